/** The soak's tallies (bench/soak.ts): per operation, its latencies, errors, refusals and skips, and their figures. */
import { percentile } from './load.js'
import { OPERATIONS, type Operation, type Result } from './mix.js'

/** Milliseconds rounded to one decimal. */
export const ms1 = (v: number) => Math.round(v * 10) / 10

interface Tally {
  latencies: number[]
  errors: number
  refused: number
  /** Due when SOAK_MAX_OUTSTANDING were under way: not sent, counted as errors too. */
  skipped: number
  firstError?: string
}

export interface OperationFigures {
  count: number
  p50: number
  p99: number
  errors: number
  refused: number
  skipped: number
  firstError?: string
}

const newTally = (): Tally => ({ latencies: [], errors: 0, refused: 0, skipped: 0 })

export class Tallies {
  private readonly byOp = new Map<Operation, Tally>()
  /** How late the load generator started operations after their schedule (its own lag), highest. */
  lateMs = 0

  add(r: Result, ms: number): void {
    const t = this.of(r.op)
    t.latencies.push(ms)
    if (r.outcome === 'error') {
      t.errors++
      t.firstError ??= r.detail
    } else if (r.outcome === 'refused') {
      t.refused++
    }
  }

  /** An operation not sent because `maxOutstanding` requests were under way: an error. */
  skip(op: Operation, maxOutstanding: number): void {
    const t = this.of(op)
    t.skipped++
    t.errors++
    t.firstError ??= `skipped: ${maxOutstanding} requests under way`
  }

  figures(): Partial<Record<Operation, OperationFigures>> {
    const out: Partial<Record<Operation, OperationFigures>> = {}
    for (const op of OPERATIONS) {
      const t = this.byOp.get(op)
      if (!t) continue
      const sorted = [...t.latencies].sort((a, b) => a - b)
      out[op] = {
        count: t.latencies.length + t.skipped, p50: ms1(percentile(sorted, 50)), p99: ms1(percentile(sorted, 99)),
        errors: t.errors, refused: t.refused, skipped: t.skipped, ...(t.firstError ? { firstError: t.firstError } : {}),
      }
    }
    return out
  }

  /** The latencies of one operation, as measured. */
  latenciesOf(op: Operation): number[] {
    return this.byOp.get(op)?.latencies ?? []
  }

  get count(): number {
    return [...this.byOp.values()].reduce((sum, t) => sum + t.latencies.length + t.skipped, 0)
  }

  get errors(): number {
    return [...this.byOp.values()].reduce((sum, t) => sum + t.errors, 0)
  }

  private of(op: Operation): Tally {
    let t = this.byOp.get(op)
    if (!t) this.byOp.set(op, (t = newTally()))
    return t
  }
}
