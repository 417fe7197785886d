/**
 * npm run bench:soak — the soak of issue 15: a mixed workload held at about half the measured
 * maximum for SOAK_MINUTES, all-in-one on each engine, to show that nothing grows that should not
 * (latency, memory, the event backlog) and that nothing fails.
 *
 * Ours runs as `npm start` runs it (`node bin/questline.js serve`, the bundle in dist/, built first
 * when stale), on fresh data, logging at SOAK_LOG_LEVEL (warn). For each engine of SOAK_ENGINES
 * (embedded PGlite in a temporary DATA_DIR, then PostgreSQL on a fresh database dropped afterwards):
 *  1. population, through the API: SOAK_PLAYERS (50) players and a guild of SOAK_GUILD (10) more
 *     (armored, see bench/lib/players.ts guildOf), each with its marketplace and money, two habits
 *     each, SOAK_QUESTS (5) quests and the guild's first battle against a SOAK_BOSS (GOBLIN);
 *  2. calibration: the mix closed-loop, SOAK_CONNECTIONS (16) requests at a time for
 *     SOAK_CALIBRATE_S (15) s; what it completes per second is the maximum (it is also the warm-up);
 *  3. the soak: the same mix open-loop at SOAK_LOAD (0.5) × that maximum, or SOAK_RATE ops/s when
 *     set (to hold one rate across runs), each operation started on a fixed schedule and timed from
 *     its scheduled start, so a stall shows as latency instead of hiding in fewer requests
 *     (coordinated omission). At most SOAK_MAX_OUTSTANDING (256) requests are under way; an
 *     operation due beyond that is not sent and counts as an error.
 * The mix (bench/lib/mix.ts, per 100): reads 36 (avatar 20, habits 8, guild leaderboard 4, quests 4),
 * earn 8, create habit 12, attend 10 (habits made earlier and not attended yet, and quest copies),
 * buy 5 and sell 5 (one item, bought and sold back), attack 12 (the guild's battle; the first attack
 * to find it over starts the next one, recorded as `start battle`), join quest 10, create quest 1,
 * register 1. Refusals the game gives (`battle-over`, `attacker-fallen`) count as refused, not errors.
 *
 * Every SOAK_WINDOW_S (60) s it prints, per operation, count, p50, p99, errors and refused; how
 * late the load generator started operations (its own core busy: the latencies include it); and for
 * the server: RSS (from /proc), heap used (`nodejs_heap_size_used_bytes` of /metrics; lowest and
 * highest of the window), the event backlog (`outbox_unpublished_events` plus
 * `event_consumer_pending` and `_unacknowledged`, highest), the outbox lag (`outbox_lag_seconds`),
 * marketplace sagas open, and the largest tables (`db_table_bytes`, `db_table_rows`), from /metrics
 * scraped about every 2 s. On PostgreSQL also what the database did (bench/lib/pg-activity.ts): CPU
 * of its processes and of the server, checkpoints, WAL, autovacuum and autoanalyze runs, dead rows,
 * and the most backends waiting at once by wait type. After the load, the backlog must drain to 0
 * within 60 s.
 *
 * The verdict (the first window is the warm-up) sets the first third of the other windows against
 * the last third (m2–m4 against m8–m10 of 10; one window each below 7): an operation's p99 pooled
 * over each end's requests, judged where each end holds SOAK_MIN_SAMPLES (1,000) of it (the p99 of
 * fewer is decided by a handful of requests), drifts when up by more than SOAK_DRIFT_P99 (0.5, i.e.
 * +50%) and SOAK_DRIFT_P99_MS (2) ms; the highest RSS or the lowest heap of each end up by more than
 * SOAK_DRIFT_MEMORY (0.2) and 5 MB; the highest event backlog up by more than 100 and twice.
 * Fewer than 3 windows: no verdict on drift. Any error, any drift,
 * a backlog that does not drain or a server that exits: exit code 1.
 *
 * Servers run on core 1 and the load generator on core 0 unless BENCH_PIN=false; PostgreSQL is not
 * pinned. BENCH_DATABASE_URL is the admin URL (default postgres://postgres@127.0.0.1:5432/postgres).
 * With the defaults a run takes about 23 minutes; a check of the script (3 minutes):
 * `SOAK_MINUTES=1 SOAK_WINDOW_S=15 SOAK_CALIBRATE_S=5 npm run bench:soak`.
 * Results also go to bench/results/soak-<time>.json.
 */
import { mkdir, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { performance } from 'node:perf_hooks'
import { buildAll } from '../scripts/build.js'
import { keepAliveClient, type Client } from './lib/client.js'
import { withBenchDatabase } from './lib/database.js'
import { percentile } from './lib/load.js'
import { coresBetween, processTicks } from './lib/cpu.js'
import { rssMb } from './lib/memory.js'
import { Mix, OPERATIONS, populate, type Operation, type Result, type Scheduled } from './lib/mix.js'
import { PgActivity, type PgWindow } from './lib/pg-activity.js'
import { pinCores } from './lib/pinning.js'
import { maxOf, scrapeMetrics, sumOf } from './lib/prometheus.js'
import { startServer, type Started } from './lib/processes.js'
import { fmt, table } from './lib/table.js'
import { withTempDir } from './lib/temp-dir.js'

const MINUTES = Number(process.env.SOAK_MINUTES ?? 10)
const WINDOW_S = Number(process.env.SOAK_WINDOW_S ?? 60)
const CALIBRATE_S = Number(process.env.SOAK_CALIBRATE_S ?? 15)
const CONNECTIONS = Number(process.env.SOAK_CONNECTIONS ?? 16)
const LOAD = Number(process.env.SOAK_LOAD ?? 0.5)
const FIXED_RATE = Number(process.env.SOAK_RATE ?? 0)
const MAX_OUTSTANDING = Number(process.env.SOAK_MAX_OUTSTANDING ?? 256)
const PLAYERS = Number(process.env.SOAK_PLAYERS ?? 50)
const GUILD = Number(process.env.SOAK_GUILD ?? 10)
const QUESTS = Number(process.env.SOAK_QUESTS ?? 5)
const BOSS = process.env.SOAK_BOSS ?? 'GOBLIN'
const DRIFT_P99 = Number(process.env.SOAK_DRIFT_P99 ?? 0.5)
const DRIFT_P99_MS = Number(process.env.SOAK_DRIFT_P99_MS ?? 2)
const DRIFT_MEMORY = Number(process.env.SOAK_DRIFT_MEMORY ?? 0.2)
const MIN_SAMPLES = Number(process.env.SOAK_MIN_SAMPLES ?? 1000)
const SERVER_LOG_LEVEL = process.env.SOAK_LOG_LEVEL ?? 'warn'
const ADMIN_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'

type Engine = 'embedded' | 'postgres'
const ENGINES = (process.env.SOAK_ENGINES ?? 'embedded,postgres').split(',') as Engine[]
const WINDOWS = Math.max(1, Math.round((MINUTES * 60) / WINDOW_S))
const WINDOW_MS = WINDOW_S * 1000
/** /metrics and RSS are sampled this many times a window, about every 2 s (the lowest heap of a window needs many), the last at its end. */
const SAMPLES_PER_WINDOW = Math.max(1, Math.round(WINDOW_S / 2))
/** Memory must also grow by this much to count as drift (a small heap moves by more than 20% with GC timing). */
const DRIFT_MEMORY_MB = 5
/** The event backlog drifts when its highest grows by more than this and doubles. */
const DRIFT_BACKLOG = 100
const DRAIN_TIMEOUT_MS = 60_000
/** What the server exposes that the process rows need; reported when missing. */
const HEAP_METRIC = 'nodejs_heap_size_used_bytes'
const TOP_TABLES = 3
/** A load generator this late in a window is noted under the verdict: the machine, not only the server, was busy. */
const LATE_NOTE_MS = 10

const pinning = pinCores()
const began = performance.now()
const step = (message: string) => console.log(`[${Math.round((performance.now() - began) / 1000)} s] ${message}`)
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const ms1 = (v: number) => Math.round(v * 10) / 10
const mb = (bytes: number | undefined) => (bytes === undefined ? undefined : Math.round(bytes / 1024 / 1024 * 10) / 10)

// ---- tallies ----

interface Tally {
  latencies: number[]
  errors: number
  refused: number
  /** Due when SOAK_MAX_OUTSTANDING were under way: not sent, counted as errors too. */
  skipped: number
  firstError?: string
}

interface OperationFigures {
  count: number
  p50: number
  p99: number
  errors: number
  refused: number
  skipped: number
  firstError?: string
}

const newTally = (): Tally => ({ latencies: [], errors: 0, refused: 0, skipped: 0 })

class Tallies {
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

  skip(op: Operation): void {
    const t = this.of(op)
    t.skipped++
    t.errors++
    t.firstError ??= `skipped: ${MAX_OUTSTANDING} requests under way`
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

// ---- the server's side: RSS and /metrics ----

interface TableSize {
  table: string
  rows: number
  mb: number
}

interface ProcessSample {
  rssMb: number | undefined
  heapMb: number | undefined
  /** Events committed and not published, plus events stored for a consumer and not acknowledged. */
  backlog: number | undefined
  lagS: number | undefined
  sagasOpen: number | undefined
  /** Seconds the vacuum job has spent so far (`db_maintenance_seconds_sum`), and its longest pass's bucket bound seen. */
  maintenanceS: number | undefined
  /** The same by table. */
  maintenanceByTable?: Map<string, number>
  tables: TableSize[]
  scrapeError?: string
}

interface ProcessFigures {
  rssMaxMb?: number | undefined
  heapMinMb?: number | undefined
  heapMaxMb?: number | undefined
  backlogMax?: number | undefined
  lagMaxS?: number | undefined
  sagasOpenMax?: number | undefined
  /** Seconds of vacuum and analyze passes in the window (on the embedded engine, every statement waits meanwhile). */
  maintenanceS?: number | undefined
  /** The table whose passes took longest in the window, and their seconds. */
  maintenanceMost?: { table: string; s: number } | undefined
  /** CPU the server process used in the window (1 = one core busy throughout). */
  cores?: number | undefined
  /** The largest tables at the window's end. */
  tables: TableSize[]
  samples: number
  scrapeErrors: string[]
}

/** Metrics this server does not export, noted once per engine. */
const missing = new Set<string>()

async function sampleProcess(base: string, pid: number): Promise<ProcessSample> {
  const rss = await rssMb(pid)
  let metrics
  try {
    metrics = await scrapeMetrics(base)
  } catch (e) {
    return { rssMb: rss, heapMb: undefined, backlog: undefined, lagS: undefined, sagasOpen: undefined, maintenanceS: undefined, tables: [], scrapeError: (e as Error).message }
  }
  const unpublished = sumOf(metrics, 'outbox_unpublished_events')
  const consumers = (sumOf(metrics, 'event_consumer_pending') ?? 0) + (sumOf(metrics, 'event_consumer_unacknowledged') ?? 0)
  const rows = new Map((metrics.get('db_table_rows') ?? []).map((s) => [s.labels.table!, s.value]))
  const tables = (metrics.get('db_table_bytes') ?? [])
    .map((s) => ({ table: s.labels.table!, rows: rows.get(s.labels.table!) ?? NaN, mb: mb(s.value)! }))
    .sort((a, b) => b.mb - a.mb)
  for (const name of [HEAP_METRIC, 'outbox_unpublished_events', 'db_table_bytes']) if (!metrics.has(name)) missing.add(name)
  return {
    rssMb: rss,
    heapMb: mb(sumOf(metrics, HEAP_METRIC)),
    backlog: unpublished === undefined ? undefined : unpublished + consumers,
    lagS: maxOf(metrics, 'outbox_lag_seconds'),
    sagasOpen: sumOf(metrics, 'marketplace_sagas_open'),
    // No pass yet: the histogram has no samples, and the time spent is 0.
    maintenanceS: sumOf(metrics, 'db_maintenance_seconds_sum') ?? 0,
    maintenanceByTable: perTable(metrics.get('db_maintenance_seconds_sum') ?? []),
    tables,
  }
}

/** A metric's samples summed by their `table` label. */
function perTable(samples: { labels: Record<string, string>; value: number }[]): Map<string, number> {
  const out = new Map<string, number>()
  for (const x of samples) out.set(x.labels.table ?? '', (out.get(x.labels.table ?? '') ?? 0) + x.value)
  return out
}

/** The table whose vacuum and analyze passes took longest between two readings. */
function mostMaintained(before: Map<string, number> | undefined, after: Map<string, number> | undefined): { table: string; s: number } | undefined {
  if (!after) return undefined
  let most: { table: string; s: number } | undefined
  for (const [table, total] of after) {
    const s = total - (before?.get(table) ?? 0)
    if (s > 0 && (!most || s > most.s)) most = { table, s }
  }
  return most
}

function processFigures(samples: ProcessSample[]): ProcessFigures {
  const values = (pick: (s: ProcessSample) => number | undefined) => samples.map(pick).filter((v): v is number => v !== undefined)
  const max = (pick: (s: ProcessSample) => number | undefined) => { const v = values(pick); return v.length ? Math.max(...v) : undefined }
  const min = (pick: (s: ProcessSample) => number | undefined) => { const v = values(pick); return v.length ? Math.min(...v) : undefined }
  const last = samples.filter((s) => !s.scrapeError).at(-1)
  return {
    rssMaxMb: max((s) => s.rssMb), heapMinMb: min((s) => s.heapMb), heapMaxMb: max((s) => s.heapMb),
    backlogMax: max((s) => s.backlog), lagMaxS: max((s) => s.lagS), sagasOpenMax: max((s) => s.sagasOpen),
    tables: last?.tables ?? [], samples: samples.length,
    scrapeErrors: samples.flatMap((s) => (s.scrapeError ? [s.scrapeError] : [])),
  }
}

// ---- the two loops ----

interface Calibration {
  seconds: number
  opsPerSecond: number
  operations: Partial<Record<Operation, OperationFigures>>
  errors: number
}

/** The mix closed-loop, CONNECTIONS at a time, each operation timed from its start: the maximum it sustains. */
async function calibrate(mix: Mix, tallies: Tallies): Promise<Calibration> {
  const t0 = performance.now()
  const end = t0 + CALIBRATE_S * 1000
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
  await Promise.all(Array.from({ length: CONNECTIONS }, worker))
  await Promise.all(followUps)
  const seconds = (performance.now() - t0) / 1000
  return { seconds, opsPerSecond: tallies.count / seconds, operations: tallies.figures(), errors: tallies.errors }
}

const errorOf = (op: Operation, e: unknown): Result => ({ op, outcome: 'error', detail: (e as Error).message ?? String(e) })

interface Window {
  index: number
  operations: Partial<Record<Operation, OperationFigures>>
  process: ProcessFigures
  /** How late the load generator started an operation after its schedule, at most (its own lag; included in the latencies). */
  lateMs: number
  errors: number
  /** PostgreSQL's own activity in the window (engine postgres). */
  postgres?: PgWindow | undefined
}

/**
 * The mix open-loop at `rate` ops/s for WINDOWS windows: operation i is due at t0 + i / rate and
 * timed from then, whatever the load generator or the server was doing. Every SAMPLES_PER_WINDOW-th
 * of a window the server is sampled; when a window has ended and its operations have all
 * answered, it is printed.
 */
async function soak(engine: Engine, mix: Mix, rate: number, server: Started, postgres: PgActivity | undefined): Promise<Soaked> {
  const tallies = Array.from({ length: WINDOWS }, () => new Tallies())
  const pending = new Array<number>(WINDOWS).fill(0)
  const samples: ProcessSample[][] = Array.from({ length: WINDOWS }, () => [])
  const windows: Window[] = []
  const t0 = performance.now()
  const total = Math.floor((rate * WINDOWS * WINDOW_MS) / 1000)
  const interval = 1000 / rate
  const inFlight = new Set<Promise<void>>()
  let outstanding = 0
  /** The next operation to start. */
  let next = 0

  const sampler = (async () => {
    const every = WINDOW_MS / SAMPLES_PER_WINDOW
    let cpuAt = { ticks: await processTicks(server.pid), at: performance.now() }
    for (let j = 1; j <= WINDOWS * SAMPLES_PER_WINDOW; j++) {
      await sleep(t0 + j * every - performance.now())
      if (server.exitCause()) break
      const w = Math.ceil(j / SAMPLES_PER_WINDOW) - 1
      samples[w]!.push(await sampleProcess(server.url, server.pid))
      if (j % SAMPLES_PER_WINDOW !== 0) continue
      // Every operation due in the window started and answered.
      const windowEnd = t0 + (w + 1) * WINDOW_MS
      while ((next < total && t0 + next * interval < windowEnd && !server.exitCause()) || pending[w]! > 0) await sleep(50)
      if (server.exitCause()) break
      const maintenanceAt = (i: number) => (i < 0 ? 0 : samples[i]!.findLast((x) => x.maintenanceS !== undefined)?.maintenanceS)
      const [before, after] = [maintenanceAt(w - 1), maintenanceAt(w)]
      const cpuNow = { ticks: await processTicks(server.pid), at: performance.now() }
      const cores = coresBetween(cpuAt.ticks, cpuNow.ticks, (cpuNow.at - cpuAt.at) / 1000)
      cpuAt = cpuNow
      const byTableAt = (i: number) => (i < 0 ? new Map<string, number>() : samples[i]!.findLast((x) => x.maintenanceByTable !== undefined)?.maintenanceByTable)
      const process = {
        ...processFigures(samples[w]!), cores, maintenanceS: before === undefined || after === undefined ? undefined : ms1(after - before),
        maintenanceMost: mostMaintained(byTableAt(w - 1), byTableAt(w)),
      }
      const window: Window = {
        index: w, operations: tallies[w]!.figures(), process, lateMs: ms1(tallies[w]!.lateMs), errors: tallies[w]!.errors,
        postgres: await postgres?.window(),
      }
      windows.push(window)
      printWindow(engine, window, rate)
    }
  })()

  const windowOf = (at: number) => Math.min(WINDOWS - 1, Math.floor((at - t0) / WINDOW_MS))
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
      if (outstanding >= MAX_OUTSTANDING) t.skip(op)
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

interface Soaked {
  windows: Window[]
  /** p99 of an operation over windows [from, to) pooled, and how many latencies that is. */
  pooledP99(op: Operation, from: number, to: number): { p99: number; samples: number } | undefined
}

// ---- one engine ----

interface Verdict {
  what: string
  /** The figure at the first third of the windows after the warm-up, and at the last third. */
  early?: number | undefined
  late?: number | undefined
  drift: boolean
  note?: string
}

interface EngineRun {
  engine: Engine
  population: { players: number; guild: number; quests: number; boss: string }
  calibration?: Calibration
  rate?: number
  windows: Window[]
  verdicts: Verdict[]
  /** Milliseconds after the load until the event backlog was 0; undefined when it did not drain within DRAIN_TIMEOUT_MS. */
  drainedMs?: number | undefined
  failures: string[]
}

const runs: EngineRun[] = []

/** Polls /metrics until no event is waiting; answers how long that took, or undefined after DRAIN_TIMEOUT_MS. */
async function drained(base: string, pid: number): Promise<number | undefined> {
  const t0 = performance.now()
  while (performance.now() - t0 < DRAIN_TIMEOUT_MS) {
    if ((await sampleProcess(base, pid)).backlog === 0) return Math.round(performance.now() - t0)
    await sleep(250)
  }
  return undefined
}

async function soakEngine(engine: Engine, env: Record<string, string>): Promise<void> {
  const run: EngineRun = { engine, population: { players: PLAYERS, guild: GUILD, quests: QUESTS, boss: BOSS }, windows: [], verdicts: [], failures: [] }
  runs.push(run)
  missing.clear()
  const server = await startServer(`ours ${engine}`, 'bin/questline.js', ['serve'], { ...env, LOG_LEVEL: SERVER_LOG_LEVEL }, '/readyz', { cpus: pinning.serverCpus })
  const client: Client = keepAliveClient(server.url, MAX_OUTSTANDING)
  let postgres: PgActivity | undefined
  try {
    step(`${engine}: population — ${PLAYERS} players and a guild of ${GUILD}, ${QUESTS} quests`)
    const world = await populate(server.url, { players: PLAYERS, guild: GUILD, quests: QUESTS, boss: BOSS })
    const mix = new Mix(world, client)

    let rate = FIXED_RATE
    if (CALIBRATE_S > 0) {
      step(`${engine}: calibration — the mix closed-loop, ${CONNECTIONS} at a time, ${CALIBRATE_S} s`)
      run.calibration = await calibrate(mix, new Tallies())
      printCalibration(engine, run.calibration)
      if (!FIXED_RATE) rate = LOAD * run.calibration.opsPerSecond
    }
    if (!(rate > 0)) throw new Error('no rate: set SOAK_RATE, or SOAK_CALIBRATE_S above 0')
    run.rate = rate

    step(`${engine}: soak — ${fmt(rate, 1)} ops/s open-loop for ${WINDOWS} × ${WINDOW_S} s`)
    if (env.DATABASE_URL) postgres = await PgActivity.start(env.DATABASE_URL, server.pid)
    const soaked = await soak(engine, mix, rate, server, postgres)
    run.windows = soaked.windows
    const gone = server.exitCause()
    if (gone) throw new Error(`${gone} during the soak (errors from then on are its)`)
    if (missing.size > 0) console.log(`note: ${engine} does not export ${[...missing].join(', ')} on /metrics; those columns are empty`)

    step(`${engine}: load stopped; waiting for the event backlog to drain`)
    run.drainedMs = await drained(server.url, server.pid)
    if (run.drainedMs === undefined) run.failures.push(`the event backlog did not drain within ${DRAIN_TIMEOUT_MS / 1000} s`)
    run.verdicts = verdicts(soaked)
  } finally {
    await postgres?.stop()
    client.close()
    await server.stop()
  }
}

// ---- verdict ----

/**
 * Early against late, after the warm-up window: the first third of the other windows against the
 * last third, so that a trend decides, not one bad window on a shared machine. p99 is pooled over
 * each end's requests and judged only where each end holds MIN_SAMPLES; memory and backlog take
 * each end's extreme (highest RSS, lowest heap, highest backlog).
 */
function verdicts({ windows, pooledP99 }: Soaked): Verdict[] {
  if (windows.length < 3) return [{ what: 'drift', drift: false, note: `not judged: ${windows.length} window${windows.length === 1 ? '' : 's'}, 3 needed (the first is the warm-up)` }]
  const pooled = Math.max(1, Math.floor((windows.length - 1) / 3))
  const earlyWindows = windows.slice(1, 1 + pooled)
  const lateWindows = windows.slice(windows.length - pooled)
  const p99Up = (from: number, to: number) => to > from * (1 + DRIFT_P99) && to - from > DRIFT_P99_MS
  const memoryUp = (from: number, to: number) => to > from * (1 + DRIFT_MEMORY) && to - from > DRIFT_MEMORY_MB
  const backlogUp = (from: number, to: number) => to > from + DRIFT_BACKLOG && to > 2 * from
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
      if (!early || !late || early.samples < MIN_SAMPLES || late.samples < MIN_SAMPLES) {
        return { what, early: early?.p99, late: late?.p99, drift: false, note: `not judged: fewer than ${fmt(MIN_SAMPLES)} at an end` }
      }
      return { what, early: early.p99, late: late.p99, drift: p99Up(early.p99, late.p99) }
    }),
    judge('RSS MB, highest', (w) => w.process.rssMaxMb, Math.max, memoryUp),
    judge('heap used MB, lowest', (w) => w.process.heapMinMb, Math.min, memoryUp),
    judge('event backlog, highest', (w) => w.process.backlogMax, Math.max, backlogUp),
  ]
}

// ---- report ----

const windowName = (i: number) => (WINDOW_S === 60 ? `min ${i + 1}` : `${i * WINDOW_S}–${(i + 1) * WINDOW_S} s`)
const shortName = (i: number) => (WINDOW_S === 60 ? `m${i + 1}` : `w${i + 1}`)
const tablesText = (tables: TableSize[]) =>
  tables.slice(0, TOP_TABLES).map((t) => `${t.table} ${fmt(t.mb, 1)} MB (${fmt(t.rows)} rows)`).join(', ') || '—'

function operationRows(operations: Partial<Record<Operation, OperationFigures>>): (string | number)[][] {
  return OPERATIONS.flatMap((op) => {
    const f = operations[op]
    return f ? [[op, fmt(f.count), fmt(f.p50, 1), fmt(f.p99, 1), fmt(f.errors), fmt(f.refused), f.firstError ?? '']] : []
  })
}

const OPERATION_HEADER = ['operation', 'count', 'p50 ms', 'p99 ms', 'errors', 'refused', 'first error']
const OPERATION_RIGHT = [false, true, true, true, true, true, false]

function printCalibration(engine: Engine, c: Calibration): void {
  console.log(`\n${engine}, calibration: ${fmt(c.opsPerSecond, 1)} ops/s closed-loop with ${CONNECTIONS} at a time over ${fmt(c.seconds, 1)} s (latency from each start)`)
  console.log(table(OPERATION_HEADER, operationRows(c.operations), OPERATION_RIGHT))
}

const countOf = (w: Window) => Object.values(w.operations).reduce((sum, f) => sum + f.count, 0)

function printWindow(engine: Engine, w: Window, rate: number): void {
  const count = countOf(w)
  const p = w.process
  console.log(`\n${engine}, ${windowName(w.index)} of ${WINDOWS}: ${fmt(count)} operations (${fmt(count / WINDOW_S, 1)}/s; ${fmt(rate, 1)}/s scheduled), ` +
    `${fmt(w.errors)} errors; load generator late by ≤ ${fmt(w.lateMs, 1)} ms`)
  console.log(table(OPERATION_HEADER, operationRows(w.operations), OPERATION_RIGHT))
  console.log(`server: ${fmt(p.cores, 2)} cores, RSS ≤ ${fmt(p.rssMaxMb)} MB, heap used ${fmt(p.heapMinMb)}–${fmt(p.heapMaxMb)} MB, event backlog ≤ ${fmt(p.backlogMax)} ` +
    `(outbox lag ≤ ${fmt(p.lagMaxS, 2)} s), sagas open ≤ ${fmt(p.sagasOpenMax)}, vacuum and analyze ${fmt(p.maintenanceS, 1)} s${p.maintenanceMost ? ` (most: ${p.maintenanceMost.table}, ${fmt(p.maintenanceMost.s, 2)} s)` : ''}; largest tables: ${tablesText(p.tables)}` +
    (p.scrapeErrors.length ? `; /metrics failed ${p.scrapeErrors.length}×: ${p.scrapeErrors[0]}` : ''))
  const pg = w.postgres
  if (pg) {
    console.log(`postgres: ${fmt(pg.cores, 2)} cores (server ${fmt(pg.serverCores, 2)}), ${fmt(pg.checkpoints)} checkpoints (${fmt(pg.checkpointBuffers)} buffers), ${fmt(pg.walMb)} MB WAL, ` +
      `${fmt(pg.autovacuums)} autovacuums, ${fmt(pg.autoanalyzes)} autoanalyzes, ${fmt(pg.deadRows)} dead rows (most: ${pg.deadest}); backends waiting at most: ${waitingText(pg.waiting)}`)
  }
}

const waitingText = (waiting: Record<string, number>) => Object.entries(waiting).map(([type, n]) => `${type} ${n}`).join(', ') || 'none'

/** Per engine: p99 of each operation by window, the server's figures by window, the largest tables and the verdict. */
function printSummary(): void {
  for (const run of runs) {
    const ws = run.windows
    if (ws.length === 0) {
      console.log(`\n== Soak, ${run.engine}: FAILED before any window: ${run.failures.join('; ')}`)
      continue
    }
    console.log(`\n== Soak, ${run.engine}: ${fmt(run.rate, 1)} ops/s open-loop (${fmt(LOAD * 100)}% of ${fmt(run.calibration?.opsPerSecond, 1)} ops/s closed-loop with ${CONNECTIONS}` +
      `${FIXED_RATE ? '; SOAK_RATE set' : ''}), ${ws.length} × ${WINDOW_S} s; ${run.population.players} players, guild of ${run.population.guild} against ${run.population.boss}; ${pinning.description}\n`)
    const totals = (op: Operation) => ws.reduce((sum, w) => {
      const f = w.operations[op]
      return f ? { count: sum.count + f.count, errors: sum.errors + f.errors, refused: sum.refused + f.refused } : sum
    }, { count: 0, errors: 0, refused: 0 })
    const drifting = new Set(run.verdicts.filter((v) => v.drift).map((v) => v.what))
    console.log('p99 ms by window (p50: the median of the windows\' p50)')
    console.log(table(
      ['operation', 'count', 'errors', 'refused', ...ws.map((w) => shortName(w.index)), 'p50', 'drift'],
      OPERATIONS.filter((op) => totals(op).count > 0).map((op) => {
        const t = totals(op)
        const p50s = ws.flatMap((w) => (w.operations[op] ? [w.operations[op]!.p50] : []))
        return [op, fmt(t.count), fmt(t.errors), fmt(t.refused), ...ws.map((w) => fmt(w.operations[op]?.p99, 1)),
          p50s.length ? fmt(p50s.sort((a, b) => a - b)[Math.floor(p50s.length / 2)], 1) : '', drifting.has(`${op}: p99 ms`) ? 'DRIFT' : '']
      }),
      [false, true, true, true, ...ws.map(() => true), true, false],
    ))
    const row = (name: string, pick: (p: ProcessFigures) => number | undefined, digits = 0, verdict?: string) =>
      [name, ...ws.map((w) => fmt(pick(w.process), digits)), verdict && drifting.has(verdict) ? 'DRIFT' : '']
    console.log('\nserver by window')
    console.log(table(['', ...ws.map((w) => shortName(w.index)), 'drift'], [
      ['operations/s', ...ws.map((w) => fmt(countOf(w) / WINDOW_S, 1)), ''],
      row('server CPU cores', (p) => p.cores, 2),
      row('RSS MB, highest', (p) => p.rssMaxMb, 0, 'RSS MB, highest'),
      row('heap used MB, lowest', (p) => p.heapMinMb, 0, 'heap used MB, lowest'),
      row('heap used MB, highest', (p) => p.heapMaxMb),
      row('event backlog, highest', (p) => p.backlogMax, 0, 'event backlog, highest'),
      row('outbox lag s, highest', (p) => p.lagMaxS, 2),
      row('sagas open, highest', (p) => p.sagasOpenMax),
      row('vacuum and analyze s', (p) => p.maintenanceS, 1),
      ['load generator late ms, highest', ...ws.map((w) => fmt(w.lateMs, 1)), ''],
      ...(ws.some((w) => w.postgres) ? postgresRows(ws) : []),
    ], [false, ...ws.map(() => true), false]))
    const first = ws[0]?.process.tables ?? []
    const lastTables = ws.at(-1)?.process.tables ?? []
    if (lastTables.length > 0) {
      console.log(`\nlargest tables at the end (and after ${windowName(0)})`)
      console.log(table(['table', 'MB', 'rows', `MB ${shortName(0)}`, `rows ${shortName(0)}`],
        lastTables.slice(0, 5).map((t) => {
          const f = first.find((x) => x.table === t.table)
          return [t.table, fmt(t.mb, 1), fmt(t.rows), fmt(f?.mb, 1), fmt(f?.rows)]
        }), [false, true, true, true, true]))
    } else {
      console.log('\nlargest tables: /metrics exports no db_table_bytes')
    }
    console.log(`\nafter the load the event backlog ${run.drainedMs === undefined ? `did NOT drain within ${DRAIN_TIMEOUT_MS / 1000} s` : `was 0 after ${fmt(run.drainedMs)} ms`}`)
    const k = Math.max(1, Math.floor((ws.length - 1) / 3))
    console.log(`\nverdict: p99 pooled over ${k === 1 ? `${shortName(1)} against ${shortName(ws.length - 1)}` : `${shortName(1)}–${shortName(k)} against ${shortName(ws.length - k)}–${shortName(ws.length - 1)}`}; ` +
      `memory and backlog: the extremes of the same windows`)
    console.log(table(['what', 'early', 'late', 'verdict'], run.verdicts.map((v) => [
      v.what, fmt(v.early, 1), fmt(v.late, 1), v.drift ? 'DRIFT' : v.note ?? 'steady',
    ]), [false, true, true, false]))
    const late = ws.reduce((worst, w) => (w.lateMs > worst.lateMs ? w : worst))
    if (late.lateMs > LATE_NOTE_MS) {
      console.log(`note: the load generator started operations up to ${fmt(late.lateMs)} ms late (${windowName(late.index)}): its core was busy, and those latencies include it`)
    }
    for (const f of run.failures) console.log(`FAILED: ${f}`)
  }
}

function postgresRows(ws: Window[]): (string | number)[][] {
  const row = (name: string, pick: (p: PgWindow) => number | undefined, digits = 0) => [name, ...ws.map((w) => fmt(w.postgres && pick(w.postgres), digits)), '']
  const waitTypes = [...new Set(ws.flatMap((w) => Object.keys(w.postgres?.waiting ?? {})))].sort()
  return [
    row('postgres cores', (p) => p.cores, 2),
    row('server cores', (p) => p.serverCores, 2),
    row('checkpoints', (p) => p.checkpoints),
    row('WAL MB', (p) => p.walMb),
    row('autovacuums', (p) => p.autovacuums),
    row('autoanalyzes', (p) => p.autoanalyzes),
    row('dead rows', (p) => p.deadRows),
    ...waitTypes.map((t) => row(`backends waiting on ${t}, most`, (p) => p.waiting[t] ?? 0)),
  ]
}

// ---- main ----

async function main(): Promise<void> {
  console.log(`soak: ${pinning.description}`)
  for (const engine of ENGINES) {
    try {
      // Ours runs as npm start runs it, from the bundle: built now, before each engine, if src/ or web/ changed since.
      await buildAll({ ifStale: true })
      if (engine === 'embedded') await withTempDir('questline-soak-', (dir) => soakEngine(engine, { DATA_DIR: path.join(dir, 'data') }))
      else if (engine === 'postgres') await withBenchDatabase(ADMIN_URL, (url) => withTempDir('questline-soak-', (dir) => soakEngine(engine, { DATABASE_URL: url, DATA_DIR: dir })))
      else throw new Error(`unknown engine '${String(engine)}' (embedded, postgres)`)
    } catch (e) {
      console.error(`${engine} failed:`, e)
      const run = runs.find((r) => r.engine === engine)
      const message = (e as Error).message ?? String(e)
      if (run) run.failures.push(message)
      else runs.push({ engine, population: { players: PLAYERS, guild: GUILD, quests: QUESTS, boss: BOSS }, windows: [], verdicts: [], failures: [message] })
    }
  }
  printSummary()
  await mkdir('bench/results', { recursive: true })
  const file = `bench/results/soak-${new Date().toISOString().replace(/[:.]/g, '-')}.json`
  await writeFile(file, JSON.stringify({
    settings: {
      minutes: MINUTES, windowS: WINDOW_S, calibrateS: CALIBRATE_S, connections: CONNECTIONS, load: LOAD, rate: FIXED_RATE || undefined,
      maxOutstanding: MAX_OUTSTANDING, players: PLAYERS, guild: GUILD, quests: QUESTS, boss: BOSS,
      drift: { p99: DRIFT_P99, p99Ms: DRIFT_P99_MS, memory: DRIFT_MEMORY, memoryMb: DRIFT_MEMORY_MB, backlog: DRIFT_BACKLOG, minSamples: MIN_SAMPLES },
      pinning: pinning.description,
    },
    runs,
  }, null, 2))
  console.log(`\nresults: ${file}`)
  const errors = runs.reduce((sum, r) => sum + (r.calibration?.errors ?? 0) + r.windows.reduce((s, w) => s + w.errors, 0), 0)
  const drift = runs.flatMap((r) => r.verdicts.filter((v) => v.drift).map((v) => `${r.engine} ${v.what}`))
  const failures = runs.flatMap((r) => r.failures.map((f) => `${r.engine}: ${f}`))
  if (errors > 0 || drift.length > 0 || failures.length > 0) {
    console.error(`\nsoak NOT clean: ${fmt(errors)} errors${drift.length ? `; drift: ${drift.join(', ')}` : ''}${failures.length ? `; failed: ${failures.join('; ')}` : ''}`)
    process.exitCode = 1
  } else {
    console.log('\nsoak clean: no errors, no drift')
  }
}

main().catch((e: unknown) => {
  console.error(e)
  process.exit(1)
})
