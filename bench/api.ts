/**
 * npm run bench — the API's throughput and latency against an honest floor, the attend pipeline
 * end to end, a guild battle, start-up time and memory, on each engine, in one run.
 *
 * Ours runs as `npm start` runs it: `node bin/questline.js serve`, the bundle in dist/ (built
 * first when src/ or web/ changed since). The floor is bench/baseline-server.ts: fastify, no auth,
 * no validation, one statement per request in autocommit, on the same engine and avatar ids. For
 * each engine of BENCH_ENGINES (embedded PGlite, then PostgreSQL on a fresh database dropped
 * afterwards):
 *  1. start-up (bench/lib/api-startup.ts): a first start makes and migrates the data; then
 *     BENCH_STARTUP_RUNS (3) timed starts, spawn → first 200 from /healthz (median), with the RSS
 *     of each; an in-process breakdown of the same steps; embedded also `npm start` and a bare
 *     PGlite process on that data dir and on a fresh one (which becomes the floor's), for memory;
 *  2. compared (bench/lib/api-compared.ts): ours on that data and the floor, both running, each
 *     scenario alternating between them in BENCH_ROUNDS (3) rounds, after BENCH_WARMUP (1) s of
 *     unrecorded GET and earn load on each:
 *     - GET /api/v1/avatars/{id}               autocannon, BENCH_CONNECTIONS (50), BENCH_DURATION / rounds s a round
 *     - earn on one hot avatar                 POST …/money/earn {amount: 1}, the same
 *     - earn spread over BENCH_SPREAD avatars  1,000: 100 players make 10 each; each request carries its owner's token
 *     - attends by many players, end to end    BENCH_ATTEND_PLAYERS (50) players, one avatar each, × BENCH_ATTEND_HABITS
 *                                              (60) fresh DAILY habits each round, each attended once, BENCH_CONNECTIONS
 *                                              at a time with its owner's token (bench/lib/attends.ts): attends/s from
 *                                              the first request until every avatar's experience, read through the
 *                                              public API, holds its rewards; request p50/p99
 *  3. ours alone (bench/lib/api-ours-alone.ts), the floor stopped:
 *     - attend end to end, one avatar          BENCH_ATTENDS (2,000) distinct habits, from the first request until the
 *                                              avatar's experience holds every reward (after BENCH_ATTEND_WARMUP (300)
 *                                              unrecorded ones, timed alike)
 *     - attend → experience visible            BENCH_PROBES (200) sequential probes, p50/p99
 *     - earn, one hot avatar                   again, with BENCH_GUILD connections: the battle's concurrency
 *     - battle                                 BENCH_GUILD (20) members of one guild attacking a BENCH_BOSS (DRAGON), one
 *                                              attack in flight each, for BENCH_DURATION, a new battle whenever one ends
 *     and RSS: a second after start, and the highest during the compared scenarios.
 * Ratios (bench/lib/api-report.ts) are ours / floor of the same engine in the same run; the
 * battle's is its attacks/s over the floor's hot earn req/s.
 *
 * BENCH_ONLY runs some scenarios only: a comma-separated list of get, earn, spread, attends,
 * one-avatar, probes, battle (which brings earn along, for its ratio) and startup. A knob at 0
 * skips its scenario. Servers run on core 1 and the bench (the load generator) on core 0 unless
 * BENCH_PIN=false; PostgreSQL is not pinned. BENCH_DATABASE_URL is the admin URL (default
 * postgres://postgres@127.0.0.1:5432/postgres). With the defaults a run takes about 6 minutes on
 * an idle machine. Anything that fails is reported as a FAILED row and the rest still runs; the
 * exit code is then 1. Results also go to bench/results/api-<time>.json.
 */
import { existsSync, readdirSync } from 'node:fs'
import path from 'node:path'
import { buildAll } from '../scripts/build.js'
import { compareSideBySide, floorSide, type Side } from './lib/api-compared.js'
import { measureOursAlone } from './lib/api-ours-alone.js'
import { printReport, writeResults } from './lib/api-report.js'
import {
  ADMIN_URL, ATTEND_HABITS, ATTEND_PLAYERS, attempt, CONNECTIONS, EARN_SPREAD, earnBody, ENGINES, failures, json, memory, OURS, pinning, selected,
  serverCpus, SPREAD, step, STARTUP_RUNS, type Engine, type Row,
} from './lib/api-run.js'
import { barePglite, startUp, startUpEmbeddedExtras } from './lib/api-startup.js'
import { oursAttendTarget } from './lib/attends.js'
import { SPREAD_PER_PLAYER, spreadIds } from './lib/bench-avatars.js'
import { withBenchDatabase } from './lib/database.js'
import { rssMb } from './lib/memory.js'
import { register, spreadAvatars } from './lib/players.js'
import { startServer } from './lib/processes.js'
import { inBatches } from './lib/scenarios.js'
import { withTempDir } from './lib/temp-dir.js'

const compared = (['get', 'earn', 'spread', 'attends'] as const).some(selected)
const attending = selected('attends') && ATTEND_PLAYERS > 0 && ATTEND_HABITS > 0

/**
 * One engine: ours and the floor run side by side for the compared scenarios; then, the floor
 * stopped, ours alone for attends on one avatar, probes and the battle.
 */
async function benchEngine(engine: Engine, env: Record<string, string>, floorEnv: Record<string, string>): Promise<void> {
  // Something in the data dir: the start-up runs were there first (and, embedded, made the database).
  const existing = env.DATA_DIR !== undefined && existsSync(env.DATA_DIR) && readdirSync(env.DATA_DIR).length > 0
  const whole = (target: Row['target']) => ({ target, engine, scenario: '(the whole target)' })
  const server = await attempt(`ours ${engine}`, () => startServer(`ours ${engine}`, OURS, ['serve'], { ...env, LOG_LEVEL: 'warn' }, '/readyz', { cpus: serverCpus }), whole('ours'))
  if (!server) return
  try {
    const base = server.url
    await new Promise((r) => setTimeout(r, 1_000))
    const ours: Side = { target: 'ours', pid: server.pid, idleMb: await rssMb(server.pid), dataDir: existing ? 'existing' : 'fresh' }
    const hot = await register(base, 'Hot')
    if (compared) {
      if (SPREAD > 0 && selected('spread')) {
        step(`ours ${engine}: ${Math.ceil(SPREAD / SPREAD_PER_PLAYER)} players make the ${SPREAD} spread avatars`)
        const spread = await attempt(`ours ${engine}: spread setup`, () => spreadAvatars(base, spreadIds(SPREAD)), { target: 'ours', engine, scenario: EARN_SPREAD })
        if (spread) ours.spread = { url: base, headers: json, targets: spread, ...earnBody, connections: CONNECTIONS }
      }
      if (attending) {
        step(`ours ${engine}: ${ATTEND_PLAYERS} players register for the attends`)
        ours.attends = oursAttendTarget(base, await inBatches(ATTEND_PLAYERS, 4, (i) => register(base, `Attender ${i}`)))
      }
      ours.get = { url: `${base}/api/v1/avatars/${hot.avatarId}`, headers: hot.auth, connections: CONNECTIONS }
      ours.earn = { url: `${base}/api/v1/avatars/${hot.avatarId}/money/earn`, headers: { ...hot.auth, ...json }, ...earnBody, connections: CONNECTIONS }

      const floorEnvironment = { ...env, ...floorEnv, FLOOR_ENGINE: engine, FLOOR_HOT_ID: hot.avatarId, FLOOR_SPREAD: String(SPREAD) }
      const floorServer = await attempt(`floor ${engine}`, () => startServer(`floor ${engine}`, 'bench/baseline-server.ts', [], floorEnvironment, '/healthz', { cpus: serverCpus }), whole('floor'))
      try {
        const fresh = engine === 'embedded' && !floorEnv.FLOOR_DATA_DIR
        const floor = floorServer && await floorSide(engine, floorServer, hot.avatarId, fresh, ours.attends?.avatars.map((a) => a.id) ?? [])
        await compareSideBySide(engine, ours, floor)
      } finally {
        await floorServer?.stop()
      }
    }
    await measureOursAlone(engine, base, hot)
  } finally {
    await server.stop()
  }
}

/** Embedded: start-up first (it leaves a migrated data dir), a bare PGlite dir for the floor, then ours and the floor. */
async function embedded(): Promise<void> {
  await withTempDir('questline-bench-', async (root) => {
    const dataDir = path.join(root, 'platform')
    const floorDir = path.join(root, 'floor-pgdata')
    if (STARTUP_RUNS > 0 && selected('startup')) {
      await attempt('start-up embedded', () => startUp('embedded', { DATA_DIR: dataDir }), { what: 'start-up', engine: 'embedded' })
      await attempt('start-up embedded: bare PGlite and npm start', () => startUpEmbeddedExtras(dataDir), { what: 'bare PGlite, npm start', engine: 'embedded' })
    }
    // A bare PGlite process makes the floor's data dir (initdb), so the floor, like ours, starts on an existing one.
    step('bare PGlite on a fresh data dir (it becomes the floor\'s)')
    const bare = await attempt('bare PGlite', () => barePglite(floorDir), { what: 'bare PGlite on a fresh data dir', engine: 'embedded' })
    if (bare) memory.push({ process: 'bare PGlite', engine: 'embedded', measured: 'bare process', dataDir: 'fresh', idleMb: bare.rssMb })
    await benchEngine('embedded', { DATA_DIR: dataDir }, bare ? { FLOOR_DATA_DIR: floorDir } : {})
  })
}

async function postgres(): Promise<void> {
  await withBenchDatabase(ADMIN_URL, (url) => withTempDir('questline-bench-', async (dataDir) => {
    const env = { DATABASE_URL: url, DATA_DIR: dataDir }
    if (STARTUP_RUNS > 0 && selected('startup')) await attempt('start-up postgres', () => startUp('postgres', env), { what: 'start-up', engine: 'postgres' })
    await benchEngine('postgres', env, {})
  }))
}

async function main(): Promise<void> {
  console.log(`bench: ${pinning.description}`)
  // Ours runs as npm start runs it, from the bundle: built now if src/ or web/ changed since.
  await buildAll({ ifStale: true })
  if (ENGINES.includes('embedded')) await attempt('embedded', embedded, { target: 'ours', engine: 'embedded', scenario: '(data directory)' })
  if (ENGINES.includes('postgres')) await attempt('postgres', postgres, { target: 'ours', engine: 'postgres', scenario: '(bench database)' })
  printReport()
  console.log(`\nresults: ${await writeResults()}`)
  if (failures.length > 0) {
    console.error(`\nfailed: ${failures.join(', ')}`)
    process.exitCode = 1
  }
}

main().catch((e: unknown) => {
  console.error(e)
  process.exit(1)
})
