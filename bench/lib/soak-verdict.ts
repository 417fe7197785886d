/** The soak's verdict (bench/soak.ts): whether latency, memory or the event backlog drifted from the early windows to the late ones. */
import { OPERATIONS } from './mix.js'
import type { Soaked, Window } from './soak-load.js'
import { fmt } from './table.js'

export interface Verdict {
  what: string
  /** The figure at the first third of the windows after the warm-up, and at the last third. */
  early?: number | undefined
  late?: number | undefined
  drift: boolean
  note?: string
}

/** What counts as drift. */
export interface DriftRules {
  /** A p99 drifts when up by more than this share (0.5 = +50%) … */
  p99: number
  /** … and by more than these milliseconds. */
  p99Ms: number
  /** Memory drifts when up by more than this share … */
  memory: number
  /** … and by more than these MB (a small heap moves by more than 20% with GC timing). */
  memoryMb: number
  /** The event backlog drifts when its highest grows by more than this and doubles. */
  backlog: number
  /** A p99 is judged only where each end holds this many latencies of the operation. */
  minSamples: number
}

/**
 * Early against late, after the warm-up window: the first third of the other windows against the
 * last third, so that a trend decides, not one bad window on a shared machine. p99 is pooled over
 * each end's requests and judged only where each end holds `rules.minSamples`; memory and backlog
 * take each end's extreme (highest RSS, lowest heap, highest backlog).
 */
export function verdicts({ windows, pooledP99 }: Soaked, rules: DriftRules): Verdict[] {
  if (windows.length < 3) return [{ what: 'drift', drift: false, note: `not judged: ${windows.length} window${windows.length === 1 ? '' : 's'}, 3 needed (the first is the warm-up)` }]
  const pooled = Math.max(1, Math.floor((windows.length - 1) / 3))
  const earlyWindows = windows.slice(1, 1 + pooled)
  const lateWindows = windows.slice(windows.length - pooled)
  const p99Up = (from: number, to: number) => to > from * (1 + rules.p99) && to - from > rules.p99Ms
  const memoryUp = (from: number, to: number) => to > from * (1 + rules.memory) && to - from > rules.memoryMb
  const backlogUp = (from: number, to: number) => to > from + rules.backlog && to > 2 * from
  const judge = (what: string, of: (w: Window) => number | undefined, extreme: (...v: number[]) => number, up: (from: number, to: number) => boolean): Verdict => {
    const at = (ws: Window[]) => {
      const v = ws.map(of).filter((x): x is number => x !== undefined)
      return v.length ? extreme(...v) : undefined
    }
    const [a, b] = [at(earlyWindows), at(lateWindows)]
    if (a === undefined || b === undefined) return { what, early: a, late: b, drift: false, note: 'not measured' }
    return { what, early: a, late: b, drift: up(a, b) }
  }
  return [
    ...OPERATIONS.filter((op) => windows[1]!.operations[op] && windows.at(-1)!.operations[op]).map((op): Verdict => {
      const what = `${op}: p99 ms`
      const early = pooledP99(op, 1, 1 + pooled)
      const late = pooledP99(op, windows.length - pooled, windows.length)
      if (!early || !late || early.samples < rules.minSamples || late.samples < rules.minSamples) {
        return { what, early: early?.p99, late: late?.p99, drift: false, note: `not judged: fewer than ${fmt(rules.minSamples)} at an end` }
      }
      return { what, early: early.p99, late: late.p99, drift: p99Up(early.p99, late.p99) }
    }),
    judge('RSS MB, highest', (w) => w.process.rssMaxMb, Math.max, memoryUp),
    judge('heap used MB, lowest', (w) => w.process.heapMinMb, Math.min, memoryUp),
    judge('event backlog, highest', (w) => w.process.backlogMax, Math.max, backlogUp),
  ]
}
