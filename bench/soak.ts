/**
 * npm run bench:soak — the soak: a mixed workload held at about half the measured
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
 *
 * This file holds the settings and runs each engine; the rest is in bench/lib: soak-load.ts (the
 * calibration and the open-loop soak), soak-server.ts (the server's samples and the drain),
 * soak-tallies.ts (per operation), soak-verdict.ts (drift) and soak-report.ts (what is printed).
 */
import { mkdir, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { performance } from 'node:perf_hooks'
import { buildAll } from '../scripts/build.js'
import { keepAliveClient, type Client } from './lib/client.js'
import { withBenchDatabase } from './lib/database.js'
import { Mix, populate } from './lib/mix.js'
import { PgActivity } from './lib/pg-activity.js'
import { pinCores } from './lib/pinning.js'
import { startServer } from './lib/processes.js'
import { calibrate, soak } from './lib/soak-load.js'
import { printCalibration, printSummary, printWindow, type Engine, type EngineRun, type ReportSettings } from './lib/soak-report.js'
import { drained } from './lib/soak-server.js'
import { Tallies } from './lib/soak-tallies.js'
import { verdicts, type DriftRules } from './lib/soak-verdict.js'
import { fmt } from './lib/table.js'
import { withTempDir } from './lib/temp-dir.js'

/** The server reads the backlogs and table sizes /metrics shows this often: as often as it is scraped. */
const METRICS_SAMPLE_SECONDS = 2

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
const DRIFT: DriftRules = {
  p99: Number(process.env.SOAK_DRIFT_P99 ?? 0.5),
  p99Ms: Number(process.env.SOAK_DRIFT_P99_MS ?? 2),
  memory: Number(process.env.SOAK_DRIFT_MEMORY ?? 0.2),
  memoryMb: 5,
  backlog: 100,
  minSamples: Number(process.env.SOAK_MIN_SAMPLES ?? 1000),
}
const SERVER_LOG_LEVEL = process.env.SOAK_LOG_LEVEL ?? 'warn'
const ADMIN_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'

const ENGINES = (process.env.SOAK_ENGINES ?? 'embedded,postgres').split(',') as Engine[]
const WINDOWS = Math.max(1, Math.round((MINUTES * 60) / WINDOW_S))
const DRAIN_TIMEOUT_MS = 60_000

const pinning = pinCores()
const REPORT: ReportSettings = {
  windows: WINDOWS, windowS: WINDOW_S, connections: CONNECTIONS, load: LOAD, fixedRate: FIXED_RATE,
  drainTimeoutMs: DRAIN_TIMEOUT_MS, pinning: pinning.description,
}
const began = performance.now()
const step = (message: string) => console.log(`[${Math.round((performance.now() - began) / 1000)} s] ${message}`)

const runs: EngineRun[] = []

async function soakEngine(engine: Engine, env: Record<string, string>): Promise<void> {
  const run: EngineRun = { engine, population: { players: PLAYERS, guild: GUILD, quests: QUESTS, boss: BOSS }, windows: [], verdicts: [], failures: [] }
  runs.push(run)
  /** Metrics this server does not export, noted once. */
  const missing = new Set<string>()
  const server = await startServer(`ours ${engine}`, 'bin/questline.js', ['serve'], { ...env, LOG_LEVEL: SERVER_LOG_LEVEL, METRICS_SAMPLE_SECONDS: String(METRICS_SAMPLE_SECONDS) }, '/readyz', { cpus: pinning.serverCpus })
  const client: Client = keepAliveClient(server.url, MAX_OUTSTANDING)
  let postgres: PgActivity | undefined
  try {
    step(`${engine}: population — ${PLAYERS} players and a guild of ${GUILD}, ${QUESTS} quests`)
    const world = await populate(server.url, { players: PLAYERS, guild: GUILD, quests: QUESTS, boss: BOSS })
    const mix = new Mix(world, client)

    let rate = FIXED_RATE
    if (CALIBRATE_S > 0) {
      step(`${engine}: calibration — the mix closed-loop, ${CONNECTIONS} at a time, ${CALIBRATE_S} s`)
      run.calibration = await calibrate(mix, new Tallies(), CALIBRATE_S, CONNECTIONS)
      printCalibration(engine, run.calibration, REPORT)
      if (!FIXED_RATE) rate = LOAD * run.calibration.opsPerSecond
    }
    if (!(rate > 0)) throw new Error('no rate: set SOAK_RATE, or SOAK_CALIBRATE_S above 0')
    run.rate = rate

    step(`${engine}: soak — ${fmt(rate, 1)} ops/s open-loop for ${WINDOWS} × ${WINDOW_S} s`)
    if (env.DATABASE_URL) postgres = await PgActivity.start(env.DATABASE_URL, server.pid)
    const plan = { rate, windows: WINDOWS, windowS: WINDOW_S, maxOutstanding: MAX_OUTSTANDING, missing }
    const soaked = await soak(mix, server, postgres, plan, (w) => printWindow(engine, w, rate, REPORT))
    run.windows = soaked.windows
    const gone = server.exitCause()
    if (gone) throw new Error(`${gone} during the soak (errors from then on are its)`)
    if (missing.size > 0) console.log(`note: ${engine} does not export ${[...missing].join(', ')} on /metrics; those columns are empty`)

    step(`${engine}: load stopped; waiting for the event backlog to drain`)
    run.drainedMs = await drained(server.url, server.pid, DRAIN_TIMEOUT_MS)
    if (run.drainedMs === undefined) run.failures.push(`the event backlog did not drain within ${DRAIN_TIMEOUT_MS / 1000} s`)
    run.verdicts = verdicts(soaked, DRIFT)
  } finally {
    await postgres?.stop()
    client.close()
    await server.stop()
  }
}

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
  printSummary(runs, REPORT)
  await mkdir('bench/results', { recursive: true })
  const file = `bench/results/soak-${new Date().toISOString().replace(/[:.]/g, '-')}.json`
  await writeFile(file, JSON.stringify({
    settings: {
      minutes: MINUTES, windowS: WINDOW_S, calibrateS: CALIBRATE_S, connections: CONNECTIONS, load: LOAD, rate: FIXED_RATE || undefined,
      maxOutstanding: MAX_OUTSTANDING, players: PLAYERS, guild: GUILD, quests: QUESTS, boss: BOSS,
      drift: DRIFT,
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
