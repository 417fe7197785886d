/**
 * The soak's two loads (bench/soak.ts): the mix closed-loop to calibrate, then open-loop on a fixed
 * schedule, window by window, with the server sampled about every 2 s.
 */
import { performance } from 'node:perf_hooks'
import { coresBetween, processTicks } from './cpu.js'
import { percentile } from './load.js'
import type { Mix, Operation, Result, Scheduled } from './mix.js'
import type { PgActivity, PgWindow } from './pg-activity.js'
import type { Started } from './processes.js'
import { sleep } from './scenarios.js'
import { sampleProcess, windowProcess, type ProcessFigures, type ProcessSample } from './soak-server.js'
import { ms1, Tallies, type OperationFigures } from './soak-tallies.js'

export interface Calibration {
  seconds: number
  opsPerSecond: number
  operations: Partial<Record<Operation, OperationFigures>>
  errors: number
}

/** The mix closed-loop, `connections` at a time for `seconds`, each operation timed from its start: the maximum it sustains. */
export async function calibrate(mix: Mix, tallies: Tallies, seconds: number, connections: number): Promise<Calibration> {
  const t0 = performance.now()
  const end = t0 + seconds * 1000
  const followUps: Promise<void>[] = []
  const worker = async () => {
    while (performance.now() < end) {
      const started = performance.now()
      const op = mix.draw()
      const r = await mix.run(op).catch((e: unknown) => errorOf(op, e))
      tallies.add(r, performance.now() - started)
      const f = r.followUp
      if (f) followUps.push(f.done.then((x) => tallies.add(x, performance.now() - f.startedAt)))
    }
  }
  await Promise.all(Array.from({ length: connections }, worker))
  await Promise.all(followUps)
  const elapsedS = (performance.now() - t0) / 1000
  return { seconds: elapsedS, opsPerSecond: tallies.count / elapsedS, operations: tallies.figures(), errors: tallies.errors }
}

const errorOf = (op: Operation, e: unknown): Result => ({ op, outcome: 'error', detail: (e as Error).message ?? String(e) })

export interface Window {
  index: number
  operations: Partial<Record<Operation, OperationFigures>>
  process: ProcessFigures
  /** How late the load generator started an operation after its schedule, at most (its own lag; included in the latencies). */
  lateMs: number
  errors: number
  /** PostgreSQL's own activity in the window (engine postgres). */
  postgres?: PgWindow | undefined
}

export interface Soaked {
  windows: Window[]
  /** p99 of an operation over windows [from, to) pooled, and how many latencies that is. */
  pooledP99(op: Operation, from: number, to: number): { p99: number; samples: number } | undefined
}

export interface SoakPlan {
  /** Operations started per second. */
  rate: number
  windows: number
  windowS: number
  /** Requests under way at most; an operation due beyond that is not sent and counts as an error. */
  maxOutstanding: number
  /** Where the samples note the metrics the server does not export. */
  missing: Set<string>
}

/**
 * The mix open-loop at `plan.rate` ops/s for `plan.windows` windows: operation i is due at
 * t0 + i / rate and timed from then, whatever the load generator or the server was doing. About
 * every 2 s the server is sampled (the last sample of a window at its end); when a window has ended
 * and its operations have all answered, it goes to `onWindow`.
 */
export async function soak(mix: Mix, server: Started, postgres: PgActivity | undefined, plan: SoakPlan, onWindow: (w: Window) => void): Promise<Soaked> {
  const { rate, windows: windowCount, maxOutstanding } = plan
  const windowMs = plan.windowS * 1000
  /** Samples a window (the lowest heap of a window needs many), the last at its end. */
  const samplesPerWindow = Math.max(1, Math.round(plan.windowS / 2))
  const tallies = Array.from({ length: windowCount }, () => new Tallies())
  const pending = new Array<number>(windowCount).fill(0)
  const samples: ProcessSample[][] = Array.from({ length: windowCount }, () => [])
  const windows: Window[] = []
  const t0 = performance.now()
  const total = Math.floor((rate * windowCount * windowMs) / 1000)
  const interval = 1000 / rate
  const inFlight = new Set<Promise<void>>()
  let outstanding = 0
  /** The next operation to start. */
  let next = 0

  const sampler = (async () => {
    const every = windowMs / samplesPerWindow
    let cpuAt = { ticks: await processTicks(server.pid), at: performance.now() }
    for (let j = 1; j <= windowCount * samplesPerWindow; j++) {
      await sleep(t0 + j * every - performance.now())
      if (server.exitCause()) break
      const w = Math.ceil(j / samplesPerWindow) - 1
      samples[w]!.push(await sampleProcess(server.url, server.pid, plan.missing))
      if (j % samplesPerWindow !== 0) continue
      // Every operation due in the window started and answered.
      const windowEnd = t0 + (w + 1) * windowMs
      while ((next < total && t0 + next * interval < windowEnd && !server.exitCause()) || pending[w]! > 0) await sleep(50)
      if (server.exitCause()) break
      const cpuNow = { ticks: await processTicks(server.pid), at: performance.now() }
      const cores = coresBetween(cpuAt.ticks, cpuNow.ticks, (cpuNow.at - cpuAt.at) / 1000)
      cpuAt = cpuNow
      const window: Window = {
        index: w, operations: tallies[w]!.figures(), process: windowProcess(samples, w, cores), lateMs: ms1(tallies[w]!.lateMs), errors: tallies[w]!.errors,
        postgres: await postgres?.window(),
      }
      windows.push(window)
      onWindow(window)
    }
  })()

  const windowOf = (at: number) => Math.min(windowCount - 1, Math.floor((at - t0) / windowMs))
  /** Records `result` when it settles, timed from `from`, in the window `from` falls in; counted as under way until then. */
  const track = (from: number, result: Promise<Result>) => {
    const w = windowOf(from)
    outstanding++
    pending[w]!++
    const run: Promise<void> = result.then((r) => {
      tallies[w]!.add(r, performance.now() - from)
      outstanding--
      pending[w]!--
      inFlight.delete(run)
      if (r.followUp) track(r.followUp.startedAt, r.followUp.done)
    })
    inFlight.add(run)
  }

  // Until the end, or the server is gone (then every request would fail the same way).
  while (next < total && !server.exitCause()) {
    const now = performance.now()
    for (; next < total && t0 + next * interval <= now; next++) {
      const due = t0 + next * interval
      const t = tallies[windowOf(due)]!
      t.lateMs = Math.max(t.lateMs, now - due)
      const op: Scheduled = mix.draw()
      if (outstanding >= maxOutstanding) t.skip(op, maxOutstanding)
      else track(due, mix.run(op).catch((e: unknown) => errorOf(op, e)))
    }
    // Sleep until the next is due (setTimeout's ~1 ms granularity starts a few at once at high rates).
    await sleep(Math.max(0, Math.min(50, t0 + next * interval - performance.now())))
  }
  // Settled ones leave the set, and a settled attack may add the battle it started.
  while (inFlight.size > 0) await Promise.all(inFlight)
  await sampler
  const pooledP99 = (op: Operation, from: number, to: number) => {
    const sorted = tallies.slice(from, to).flatMap((t) => t.latenciesOf(op)).sort((a, b) => a - b)
    return sorted.length === 0 ? undefined : { p99: ms1(percentile(sorted, 99)), samples: sorted.length }
  }
  return { windows, pooledP99 }
}
