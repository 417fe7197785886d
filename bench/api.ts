/**
 * npm run bench — what issue #13 asks: the API's throughput and latency against an honest floor,
 * the attend pipeline end to end, a guild battle, start-up time and memory, in one run.
 *
 * For each engine (embedded PGlite, then PostgreSQL on a fresh database dropped afterwards):
 *  1. start-up: a first start makes and migrates the data; then BENCH_STARTUP_RUNS (3) timed
 *     starts of `node --import tsx src/main.ts serve`, spawn → first 200 from /healthz (median),
 *     with the RSS of each a second later; one in-process breakdown of the same steps
 *     (bench/startup-phases.ts); embedded also `npm start` (with its prestart web check; skipped
 *     when web/dist is stale, as npm start would build it) and a bare PGlite process
 *     (bench/bare-pglite.ts) on that data dir and on a fresh one, for memory;
 *  2. ours: the platform on that existing data, then the floor (bench/baseline-server.ts: fastify,
 *     no auth, no validation, one table, one statement per request) on the same engine and avatar
 *     ids, each after BENCH_WARMUP (1) s of unrecorded GET and earn load:
 *     - GET /api/v1/avatars/{id}               autocannon, BENCH_CONNECTIONS (50) for BENCH_DURATION (10) s
 *     - earn on one hot avatar                 POST …/money/earn {amount: 1}, the same
 *     - earn spread over BENCH_SPREAD avatars  1,000: 100 players make 10 each; each request carries its owner's token
 *     - attend end to end (ours)               BENCH_ATTENDS (300) distinct habits, from the first request
 *                                              until the avatar's experience holds every reward
 *     - attend → experience visible (ours)     BENCH_PROBES (50) sequential probes, p50/p99
 *     - battle (ours)                          BENCH_GUILD (20) members of one guild attacking a DRAGON at once for
 *                                              BENCH_DURATION, a new battle whenever one ends; ratio to ours' hot earn
 *     and RSS: a second after start, and the highest during the GET and earn load.
 * Ratios are ours / floor of the same engine in the same run.
 *
 * Servers run on core 1 and the bench (the load generator) on core 0 unless BENCH_PIN=false;
 * PostgreSQL is not pinned. BENCH_DATABASE_URL is the admin URL (default
 * postgres://postgres@127.0.0.1:5432/postgres). With the defaults a run takes about 5 minutes on an
 * idle machine. Anything that fails is reported as a FAILED row and the rest still runs; the exit
 * code is then 1. Results also go to bench/results/api-<time>.json.
 */
import { randomUUID } from 'node:crypto'
import { existsSync, readdirSync } from 'node:fs'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { isStale, SERVER, WEB } from '../scripts/outputs.js'
import { measureBattle } from './lib/battle.js'
import { SPREAD_PER_PLAYER, spreadIds } from './lib/bench-avatars.js'
import { withBenchDatabase } from './lib/database.js'
import { loadPackagesScript } from './lib/dependencies.js'
import { load, median, type LoadSpec, type Target } from './lib/load.js'
import { rssMb, sampleRss } from './lib/memory.js'
import { pinCores } from './lib/pinning.js'
import { guildOf, register, spreadAvatars } from './lib/players.js'
import { nodeCommand, onInterrupt, startServer, type Started } from './lib/processes.js'
import { measureAttendsEndToEnd, measureRewardDelay } from './lib/scenarios.js'
import { timeRun, timeStartUp } from './lib/startup.js'

const DURATION = Number(process.env.BENCH_DURATION ?? 10)
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50)
const SPREAD = Number(process.env.BENCH_SPREAD ?? 1000)
const ATTENDS = Number(process.env.BENCH_ATTENDS ?? 300)
const PROBES = Number(process.env.BENCH_PROBES ?? 50)
const GUILD = Number(process.env.BENCH_GUILD ?? 20)
const STARTUP_RUNS = Number(process.env.BENCH_STARTUP_RUNS ?? 3)
const WARMUP = Number(process.env.BENCH_WARMUP ?? 1)
const ADMIN_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
const BOSS = 'DRAGON'

type Engine = 'embedded' | 'postgres'

interface Row {
  target: 'ours' | 'floor'
  engine: Engine
  scenario: string
  rps?: number
  p50?: number
  p99?: number
  requests?: number
  non2xx?: number
  errors?: number
  /** ours / floor req/s, or for the battle attacks/s / ours' hot earn req/s. */
  ratio?: number
  ratioOf?: string
  note?: string
}

interface Memory {
  process: string
  engine: Engine
  /** When it was sampled: right after the timed starts, or around the throughput scenarios. */
  measured: 'start-up runs' | 'scenarios' | 'bare process'
  /** Whether the process started on a fresh data directory (embedded: initdb in-process) or database, or an existing one. */
  dataDir: 'fresh' | 'existing'
  idleMb?: number | undefined
  loadMb?: number | undefined
}

interface StartUpFigure {
  what: string
  engine: Engine
  runsMs: number[]
  medianMs?: number
  note?: string
}

const GET = 'GET /api/v1/avatars/{id}'
const EARN_HOT = `earn, one hot avatar (${CONNECTIONS} conn)`
const EARN_SPREAD = `earn, spread over ${SPREAD} avatars`

const rows: Row[] = []
const memory: Memory[] = []
const startUps: StartUpFigure[] = []
const failures: string[] = []
const pinning = pinCores()
const serverCpus = pinning.serverCpus

type Failed = Pick<Row, 'target' | 'engine' | 'scenario'> | Pick<StartUpFigure, 'what' | 'engine'>

/** Runs one target, scenario or start-up step; a failure is recorded (as a FAILED row in its table) and the bench goes on. */
async function attempt<T>(what: string, run: () => Promise<T>, failed?: Failed): Promise<T | undefined> {
  try {
    return await run()
  } catch (e) {
    console.error(`${what} failed:`, e)
    failures.push(what)
    const note = `FAILED: ${(e as Error).message.slice(0, 200)}`
    if (failed && 'what' in failed) startUps.push({ ...failed, runsMs: [], note })
    else if (failed) rows.push({ ...failed, note })
    return undefined
  }
}

const began = Date.now()
/** A progress line, so a long run shows where it is. */
const step = (message: string) => console.log(`[${Math.round((Date.now() - began) / 1000)} s] ${message}`)

/** One throughput scenario of one target: a row, or a FAILED row. */
async function scenario(target: Row['target'], engine: Engine, name: string, run: () => Promise<Omit<Row, 'target' | 'engine' | 'scenario'>>): Promise<void> {
  step(`${target} ${engine}: ${name}`)
  const figures = await attempt(`${target} ${engine}: ${name}`, run, { target, engine, scenario: name })
  if (figures) rows.push({ target, engine, scenario: name, ...figures })
}

const earnBody = { method: 'POST' as const, body: '{"amount":1}' }
const json = { 'content-type': 'application/json' }

/** Unrecorded load first (WARMUP s of each), so neither side is measured while V8 and PGlite's wasm still compile hot paths. */
async function warmUp(...specs: LoadSpec[]): Promise<void> {
  if (WARMUP <= 0) return
  for (const spec of specs) await load({ ...spec, duration: WARMUP })
}

async function withTempDir<T>(prefix: string, run: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(path.join(tmpdir(), prefix))
  const remove = () => rm(dir, { recursive: true, force: true })
  const unregister = onInterrupt(remove)
  try {
    return await run(dir)
  } finally {
    await remove()
    unregister()
  }
}

/** The platform on one engine: every scenario; answers the hot avatar's id. */
async function benchOurs(engine: Engine, env: Record<string, string>): Promise<string> {
  // Something in the data dir: the start-up runs were there first (and, embedded, made the database).
  const existing = existsSync(env.DATA_DIR!) && readdirSync(env.DATA_DIR!).length > 0
  const server = await startServer(`ours ${engine}`, 'src/main.ts', ['serve'], { ...env, LOG_LEVEL: 'warn' }, '/readyz', { cpus: serverCpus })
  try {
    return await measureOurs(engine, server, existing ? 'existing' : 'fresh')
  } finally {
    await server.stop()
  }
}

async function measureOurs(engine: Engine, server: Started, dataDir: Memory['dataDir']): Promise<string> {
  const base = server.url
  await new Promise((r) => setTimeout(r, 1_000))
  const idleMb = await rssMb(server.pid)
  const hot = await register(base, 'Hot')
  step(`ours ${engine}: ${Math.ceil(SPREAD / SPREAD_PER_PLAYER)} players make the ${SPREAD} spread avatars`)
  const spread = SPREAD > 0 ? await attempt(`ours ${engine}: spread setup`, () => spreadAvatars(base, spreadIds(SPREAD)), { target: 'ours', engine, scenario: EARN_SPREAD }) : undefined

  const rss = sampleRss(server.pid)
  const get: LoadSpec = { url: `${base}/api/v1/avatars/${hot.avatarId}`, headers: hot.auth, connections: CONNECTIONS, duration: DURATION }
  const earn: LoadSpec = { url: `${base}/api/v1/avatars/${hot.avatarId}/money/earn`, headers: { ...hot.auth, ...json }, ...earnBody, connections: CONNECTIONS, duration: DURATION }
  await warmUp(get, earn)
  await scenario('ours', engine, GET, () => load(get))
  await scenario('ours', engine, EARN_HOT, () => load(earn))
  if (spread) await scenario('ours', engine, EARN_SPREAD, () => load({ url: base, headers: json, targets: spread, ...earnBody, connections: CONNECTIONS, duration: DURATION }))
  memory.push({ process: 'ours', engine, measured: 'scenarios', dataDir, idleMb, loadMb: await rss.stop() })

  if (ATTENDS > 0) {
    await scenario('ours', engine, `attend end to end (${ATTENDS} distinct habits)`, async () => {
      const e2e = await measureAttendsEndToEnd(base, hot.token, hot.avatarId, ATTENDS, CONNECTIONS)
      return {
        rps: e2e.perSecond, p50: e2e.requests.p50, p99: e2e.requests.p99, requests: ATTENDS,
        note: `every reward visible after ${Math.round(e2e.elapsedMs)} ms; the requests alone ${Math.round(e2e.requests.rps)}/s`,
      }
    })
  }
  if (PROBES > 0) await scenario('ours', engine, `attend → experience visible (${PROBES} sequential)`, () => measureRewardDelay(base, hot.token, hot.avatarId, PROBES))
  if (GUILD > 0) {
    await scenario('ours', engine, `battle: ${GUILD} members attack one ${BOSS}`, async () => {
      const guild = await guildOf(base, GUILD)
      const b = await measureBattle(base, guild, BOSS, DURATION)
      return { rps: b.rps, p50: b.p50, p99: b.p99, requests: b.attacks, errors: b.errors, note: `${b.battles} battle${b.battles === 1 ? '' : 's'} of ${BOSS}; ${b.refused} attacks refused (battle just over / attacker fallen)` }
    })
  }
  return hot.avatarId
}

/** The floor on one engine, on the same avatar ids. */
async function benchFloor(engine: Engine, env: Record<string, string>, hotId: string): Promise<void> {
  const server = await startServer(`floor ${engine}`, 'bench/baseline-server.ts', [], {
    ...env, FLOOR_ENGINE: engine, FLOOR_HOT_ID: hotId, FLOOR_SPREAD: String(SPREAD),
  }, '/healthz', { cpus: serverCpus })
  const dataDir = engine === 'postgres' || env.FLOOR_DATA_DIR ? 'existing' : 'fresh'
  try {
    const base = server.url
    await new Promise((r) => setTimeout(r, 1_000))
    const idleMb = await rssMb(server.pid)
    const rss = sampleRss(server.pid)
    const get: LoadSpec = { url: `${base}/avatars/${hotId}`, connections: CONNECTIONS, duration: DURATION }
    const earn: LoadSpec = { url: `${base}/avatars/${hotId}/earn`, headers: json, ...earnBody, connections: CONNECTIONS, duration: DURATION }
    await warmUp(get, earn)
    await scenario('floor', engine, GET, () => load(get))
    await scenario('floor', engine, EARN_HOT, () => load(earn))
    if (SPREAD > 0) {
      const targets: Target[] = spreadIds(SPREAD).map((id) => ({ path: `/avatars/${id}/earn` }))
      await scenario('floor', engine, EARN_SPREAD, () => load({ url: base, headers: json, targets, ...earnBody, connections: CONNECTIONS, duration: DURATION }))
    }
    memory.push({ process: 'floor', engine, measured: 'scenarios', dataDir, idleMb, loadMb: await rss.stop() })
  } finally {
    await server.stop()
  }
}

async function benchEngine(engine: Engine, env: Record<string, string>, floorEnv: Record<string, string>): Promise<void> {
  const hotId = await attempt(`ours ${engine}`, () => benchOurs(engine, env), { target: 'ours', engine, scenario: '(the whole target)' })
  await attempt(`floor ${engine}`, () => benchFloor(engine, { ...env, ...floorEnv }, hotId ?? randomUUID()), { target: 'floor', engine, scenario: '(the whole target)' })
}

// ---- start-up and the bare PGlite process ----

const serve = (env: Record<string, string>) => {
  const [command, args] = nodeCommand('src/main.ts', ['serve'], serverCpus)
  return timeStartUp(command, args, { LOG_LEVEL: 'warn', ...env }, { measureRss: true })
}

const pinned = (command: string[]): [string, string[]] => serverCpus ? ['taskset', ['-c', serverCpus, ...command]] : [command[0]!, command.slice(1)]
const tsxNode = (...args: string[]) => pinned([process.execPath, '--import', 'tsx', ...args])

async function repeat<T>(n: number, run: () => Promise<T>): Promise<T[]> {
  const out: T[] = []
  for (let i = 0; i < n; i++) out.push(await run())
  return out
}

const figure = (what: string, engine: Engine, runsMs: number[], note?: string): StartUpFigure =>
  ({ what, engine, runsMs, medianMs: runsMs.length ? median(runsMs) : undefined, ...(note ? { note } : {}) })

/**
 * Start-up on an existing data directory (or database): a first start that creates and
 * migrates it, then STARTUP_RUNS timed starts (and the RSS of each a second after it answered),
 * then the same steps timed one by one in-process (bench/startup-phases.ts), to show where the
 * time goes. Leaves the data in place for the throughput scenarios.
 */
async function startUp(engine: Engine, env: Record<string, string>): Promise<void> {
  step(`start-up ${engine}: a first start, ${STARTUP_RUNS} timed starts, one in-process breakdown`)
  const first = await serve(env)
  startUps.push(figure(engine === 'embedded' ? 'first start, fresh data dir (initdb + migrations)' : 'first start, fresh database (migrations)', engine, [first.ms]))
  const runs = await repeat(STARTUP_RUNS, () => serve(env))
  startUps.push(figure('node --import tsx src/main.ts serve → /healthz 200', engine, runs.map((r) => r.ms)))
  memory.push({ process: 'ours', engine, measured: 'start-up runs', dataDir: 'existing', idleMb: median(runs.map((r) => r.rssMb ?? NaN)) })

  // One run: it says where the time goes; the timed starts above are the figure.
  const phases = JSON.parse((await timeRun(...tsxNode('bench/startup-phases.ts'), { LOG_LEVEL: 'warn', ...env })).lastLine) as Record<string, number>
  for (const [phase, ms] of Object.entries(phases)) {
    startUps.push(figure(phase === 'total' ? '  the same steps in one process, total' : `  of which: ${phase}`, engine, [ms]))
  }
  if (engine === 'embedded') {
    const plain = JSON.parse((await timeRun(...pinned([process.execPath, '--input-type=module', '-e', loadPackagesScript()]))).lastLine) as { ms: number }
    startUps.push(figure('  (compare: the same dependencies in plain node, no tsx)', engine, [plain.ms]))
  }
}

/** The embedded extras: the bare PGlite process on the platform's data dir, and `npm start` (the built bundle). */
async function startUpEmbeddedExtras(dataDir: string): Promise<void> {
  const bare = JSON.parse((await timeRun(...tsxNode('bench/bare-pglite.ts', path.join(dataDir, 'pgdata')))).lastLine) as { rssMb: number }
  memory.push({ process: 'bare PGlite', engine: 'embedded', measured: 'bare process', dataDir: 'existing', idleMb: bare.rssMb })
  if (isStale(SERVER) || isStale(WEB)) {
    startUps.push(figure('npm start → /healthz 200', 'embedded', [], 'skipped: dist/ or web/dist missing or stale, npm start would build them (npm run build first)'))
  } else {
    const [npm, args] = pinned(['npm', 'start', '--silent'])
    const npmRuns = await repeat(STARTUP_RUNS, () => timeStartUp(npm, args, { LOG_LEVEL: 'warn', DATA_DIR: dataDir }))
    startUps.push(figure('npm start → /healthz 200', 'embedded', npmRuns.map((r) => r.ms)))
  }
}

/** Embedded: start-up first (it leaves a migrated data dir), a bare PGlite dir for the floor, then ours and the floor. */
async function embedded(): Promise<void> {
  await withTempDir('questline-bench-', async (root) => {
    const dataDir = path.join(root, 'platform')
    const floorDir = path.join(root, 'floor-pgdata')
    if (STARTUP_RUNS > 0) {
      await attempt('start-up embedded', () => startUp('embedded', { DATA_DIR: dataDir }), { what: 'start-up', engine: 'embedded' })
      await attempt('start-up embedded: bare PGlite and npm start', () => startUpEmbeddedExtras(dataDir), { what: 'bare PGlite, npm start', engine: 'embedded' })
    }
    // A bare PGlite process makes the floor's data dir (initdb), so the floor, like ours, starts on an existing one.
    step('bare PGlite on a fresh data dir (it becomes the floor\'s)')
    const bare = await attempt('bare PGlite', async () => JSON.parse((await timeRun(...tsxNode('bench/bare-pglite.ts', floorDir))).lastLine) as { rssMb: number },
      { what: 'bare PGlite on a fresh data dir', engine: 'embedded' })
    if (bare) memory.push({ process: 'bare PGlite', engine: 'embedded', measured: 'bare process', dataDir: 'fresh', idleMb: bare.rssMb })
    await benchEngine('embedded', { DATA_DIR: dataDir }, bare ? { FLOOR_DATA_DIR: floorDir } : {})
  })
}

async function postgres(): Promise<void> {
  await withBenchDatabase(ADMIN_URL, (url) => withTempDir('questline-bench-', async (dataDir) => {
    const env = { DATABASE_URL: url, DATA_DIR: dataDir }
    if (STARTUP_RUNS > 0) await attempt('start-up postgres', () => startUp('postgres', env), { what: 'start-up', engine: 'postgres' })
    await benchEngine('postgres', env, {})
  }))
}

// ---- report ----

const fmt = (n: number | undefined, digits = 0) => (n === undefined || Number.isNaN(n) ? '' : n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits }))

function ratios(): void {
  for (const r of rows) {
    if (r.target !== 'ours' || r.rps === undefined) continue
    const floor = rows.find((f) => f.target === 'floor' && f.engine === r.engine && f.scenario === r.scenario)
    if (floor?.rps) {
      r.ratio = r.rps / floor.rps
      r.ratioOf = 'floor'
    } else if (r.scenario.startsWith('battle')) {
      const earn = rows.find((e) => e.target === 'ours' && e.engine === r.engine && e.scenario === EARN_HOT)
      if (earn?.rps) {
        r.ratio = r.rps / earn.rps
        r.ratioOf = 'ours, hot earn'
      }
    }
  }
}

function table(header: string[], body: (string | number)[][], right: boolean[]): string {
  const cells = [header, ...body.map((r) => r.map(String))]
  const widths = header.map((_, i) => Math.max(...cells.map((r) => r[i]!.length)))
  const line = (r: string[]) => r.map((c, i) => (right[i] ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join(' | ').trimEnd()
  return [line(header), widths.map((w) => '-'.repeat(w)).join('-|-'), ...cells.slice(1).map(line)].join('\n')
}

function printReport(): void {
  ratios()
  console.log(`\nQuestline API benchmark (issue #13) — ${CONNECTIONS} connections, ${DURATION} s per throughput scenario; ${pinning.description}\n`)
  console.log(table(
    ['target', 'engine', 'scenario', 'req/s', 'p50 ms', 'p99 ms', 'ours/floor', 'non-2xx', 'errors', 'note'],
    rows.map((r) => [
      r.target, r.engine, r.scenario, fmt(r.rps), fmt(r.p50, 1), fmt(r.p99, 1),
      r.ratio === undefined ? '' : `${r.ratio.toFixed(2)}${r.ratioOf === 'floor' ? '' : ` (vs ${r.ratioOf})`}`,
      r.non2xx ? fmt(r.non2xx) : '', r.errors ? fmt(r.errors) : '', r.note ?? '',
    ]),
    [false, false, false, true, true, true, true, true, true, false],
  ))
  if (startUps.length > 0) {
    console.log(`\nStart-up, spawn → first 200 from /healthz (${STARTUP_RUNS} runs, median)\n`)
    console.log(table(['engine', 'what', 'median ms', 'runs ms'], startUps.map((s) => [s.engine, s.what, fmt(s.medianMs), s.note ?? s.runsMs.join(', ')]), [false, false, true, false]))
  }
  if (memory.length > 0) {
    const bare = (dataDir: Memory['dataDir']) => memory.find((m) => m.process === 'bare PGlite' && m.dataDir === dataDir)?.idleMb
    console.log('\nMemory, RSS in MB (idle: a second after start; load: highest during the GET and earn scenarios; bare PGlite: after a few queries)\n')
    console.log(table(['process', 'engine', 'measured', 'data dir', 'idle', 'load', 'ours − bare PGlite (idle / load)'], memory.map((m) => {
      const b = m.process === 'ours' && m.engine === 'embedded' ? bare(m.dataDir) : undefined
      const share = b === undefined ? '' : `${fmt((m.idleMb ?? NaN) - b)}${m.loadMb === undefined ? '' : ` / ${fmt(m.loadMb - b)}`}`
      return [m.process, m.engine, m.measured, m.dataDir, fmt(m.idleMb), fmt(m.loadMb), share]
    }), [false, false, false, false, true, true, false]))
  }
}

async function main(): Promise<void> {
  console.log(`bench: ${pinning.description}`)
  await attempt('embedded', embedded, { target: 'ours', engine: 'embedded', scenario: '(data directory)' })
  await attempt('postgres', postgres, { target: 'ours', engine: 'postgres', scenario: '(bench database)' })
  printReport()
  await mkdir('bench/results', { recursive: true })
  const file = `bench/results/api-${new Date().toISOString().replace(/[:.]/g, '-')}.json`
  await writeFile(file, JSON.stringify({
    settings: { connections: CONNECTIONS, duration: DURATION, spread: SPREAD, attends: ATTENDS, probes: PROBES, guild: GUILD, startupRuns: STARTUP_RUNS, pinning: pinning.description },
    failures, rows, startUps, memory,
  }, null, 2))
  console.log(`\nresults: ${file}`)
  if (failures.length > 0) {
    console.error(`\nfailed: ${failures.join(', ')}`)
    process.exitCode = 1
  }
}

main().catch((e: unknown) => {
  console.error(e)
  process.exit(1)
})
