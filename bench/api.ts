/**
 * npm run bench — what issue #13 asks: the API's throughput and latency against an honest floor,
 * the attend pipeline end to end, a guild battle, start-up time and memory, in one run.
 *
 * Ours runs as `npm start` runs it: `node bin/questline.js serve`, the bundle in dist/ (built
 * first when src/ or web/ changed since). For each engine of BENCH_ENGINES (embedded PGlite, then
 * PostgreSQL on a fresh database dropped afterwards):
 *  1. start-up: a first start makes and migrates the data; then BENCH_STARTUP_RUNS (3) timed
 *     starts, spawn → first 200 from /healthz (median), with the RSS of each a second later; one
 *     in-process breakdown of the same steps from source (bench/startup-phases.ts); embedded also
 *     `npm start` and a bare PGlite process (bench/bare-pglite.ts) on that data dir and on a
 *     fresh one, for memory;
 *  2. ours, the platform on that existing data, and the floor (bench/baseline-server.ts: fastify,
 *     no auth, no validation, one table, one statement per request) on the same engine and avatar
 *     ids, both running, each after BENCH_WARMUP (1) s of unrecorded GET and earn load; each of
 *     these alternates between them in BENCH_ROUNDS (3) rounds of BENCH_DURATION / rounds s, so a
 *     drift of the shared machine's speed falls on both (figures: mean req/s, median p50/p99):
 *     - GET /api/v1/avatars/{id}               autocannon, BENCH_CONNECTIONS (50)
 *     - earn on one hot avatar                 POST …/money/earn {amount: 1}, the same
 *     - earn spread over BENCH_SPREAD avatars  1,000: 100 players make 10 each; each request carries its owner's token
 *     then ours alone:
 *     - attend end to end (ours)               BENCH_ATTENDS (2,000) distinct habits, from the first request
 *                                              (after BENCH_ATTEND_WARMUP (300) unrecorded ones, timed alike)
 *                                              until the avatar's experience holds every reward
 *     - attend → experience visible (ours)     BENCH_PROBES (200) sequential probes, p50/p99 (p99 of 50 would be the second-worst)
 *     - earn, one hot avatar (ours)            again, with BENCH_GUILD connections: the battle's concurrency
 *     - battle (ours)                          BENCH_GUILD (20) members of one guild attacking a BENCH_BOSS (DRAGON) at once for
 *                                              BENCH_DURATION, a new battle whenever one ends; ratio to the floor's hot earn
 *                                              (and, in its note, to ours' hot earn, also at BENCH_GUILD connections)
 *     and RSS: a second after start, and the highest during the GET and earn load.
 * Ratios are ours / floor of the same engine in the same run; the battle's is its attacks/s over
 * the floor's hot earn req/s.
 *
 * Servers run on core 1 and the bench (the load generator) on core 0 unless BENCH_PIN=false;
 * PostgreSQL is not pinned. BENCH_DATABASE_URL is the admin URL (default
 * postgres://postgres@127.0.0.1:5432/postgres). With the defaults a run takes about 5 minutes on an
 * idle machine. Anything that fails is reported as a FAILED row and the rest still runs; the exit
 * code is then 1. Results also go to bench/results/api-<time>.json.
 */
import { existsSync, readdirSync } from 'node:fs'
import { mkdir, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { buildAll } from '../scripts/build.js'
import { measureBattle } from './lib/battle.js'
import { SPREAD_PER_PLAYER, spreadIds } from './lib/bench-avatars.js'
import { withBenchDatabase } from './lib/database.js'
import { loadPackagesScript } from './lib/dependencies.js'
import { load, median, type LoadResult, type LoadSpec, type Target } from './lib/load.js'
import { rssMb, sampleRss } from './lib/memory.js'
import { pinCores } from './lib/pinning.js'
import { guildOf, register, spreadAvatars, type Player } from './lib/players.js'
import { nodeCommand, startServer, type Started } from './lib/processes.js'
import { measureAttendsEndToEnd, measureRewardDelay } from './lib/scenarios.js'
import { timeRun, timeStartUp } from './lib/startup.js'
import { fmt, table } from './lib/table.js'
import { withTempDir } from './lib/temp-dir.js'

const DURATION = Number(process.env.BENCH_DURATION ?? 10)
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50)
const SPREAD = Number(process.env.BENCH_SPREAD ?? 1000)
const ATTENDS = Number(process.env.BENCH_ATTENDS ?? 2000)
const ATTEND_WARMUP = Number(process.env.BENCH_ATTEND_WARMUP ?? 300)
const PROBES = Number(process.env.BENCH_PROBES ?? 200)
const GUILD = Number(process.env.BENCH_GUILD ?? 20)
const STARTUP_RUNS = Number(process.env.BENCH_STARTUP_RUNS ?? 3)
const WARMUP = Number(process.env.BENCH_WARMUP ?? 1)
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3))
/** Each compared scenario takes BENCH_DURATION per target in all, in whole seconds per round. */
const ROUND_SECONDS = Math.max(1, Math.round(DURATION / ROUNDS))
const ADMIN_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
const BOSS = process.env.BENCH_BOSS ?? 'DRAGON'
/** What `npm start` runs: the platform as the build bundled it (built first when stale). */
const OURS = 'bin/questline.js'

type Engine = 'embedded' | 'postgres'
const ENGINES = (process.env.BENCH_ENGINES ?? 'embedded,postgres').split(',') as Engine[]

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
  /** ours / floor req/s; for the battle, attacks/s / the floor's hot earn req/s. */
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
/** The hot earn again, with as many connections as the battle has attackers: the battle's ratio at equal concurrency. */
const EARN_HOT_AT_GUILD = `earn, one hot avatar (${GUILD} conn, the battle's)`

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

/**
 * One engine: ours and the floor run side by side (both idle but for the load sent to one of them),
 * and each compared scenario alternates between them in BENCH_ROUNDS rounds, so a drift in the
 * machine's speed (a shared VM) falls on both alike; then ours alone for attends, probes, battle.
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
    step(`ours ${engine}: ${Math.ceil(SPREAD / SPREAD_PER_PLAYER)} players make the ${SPREAD} spread avatars`)
    const spread = SPREAD > 0 ? await attempt(`ours ${engine}: spread setup`, () => spreadAvatars(base, spreadIds(SPREAD)), { target: 'ours', engine, scenario: EARN_SPREAD }) : undefined
    ours.get = { url: `${base}/api/v1/avatars/${hot.avatarId}`, headers: hot.auth, connections: CONNECTIONS }
    ours.earn = { url: `${base}/api/v1/avatars/${hot.avatarId}/money/earn`, headers: { ...hot.auth, ...json }, ...earnBody, connections: CONNECTIONS }
    if (spread) ours.spread = { url: base, headers: json, targets: spread, ...earnBody, connections: CONNECTIONS }

    const floorEnvironment = { ...env, ...floorEnv, FLOOR_ENGINE: engine, FLOOR_HOT_ID: hot.avatarId, FLOOR_SPREAD: String(SPREAD) }
    const floorServer = await attempt(`floor ${engine}`, () => startServer(`floor ${engine}`, 'bench/baseline-server.ts', [], floorEnvironment, '/healthz', { cpus: serverCpus }), whole('floor'))
    try {
      const floor: Side | undefined = floorServer && await floorSide(engine, floorServer, hot.avatarId, floorEnv)
      await compareSideBySide(engine, ours, floor)
    } finally {
      await floorServer?.stop()
    }
    await measureOursAlone(engine, base, hot)
  } finally {
    await server.stop()
  }
}

/** A target of the compared scenarios: its process and what each scenario sends it. */
interface Side {
  target: Row['target']
  pid: number
  idleMb: number | undefined
  dataDir: Memory['dataDir']
  get?: LoadSpec
  earn?: LoadSpec
  spread?: LoadSpec | undefined
}

async function floorSide(engine: Engine, server: Started, hotId: string, floorEnv: Record<string, string>): Promise<Side> {
  const base = server.url
  await new Promise((r) => setTimeout(r, 1_000))
  const targets: Target[] = spreadIds(SPREAD).map((id) => ({ path: `/avatars/${id}/earn` }))
  return {
    target: 'floor', pid: server.pid, idleMb: await rssMb(server.pid),
    dataDir: engine === 'postgres' || floorEnv.FLOOR_DATA_DIR ? 'existing' : 'fresh',
    get: { url: `${base}/avatars/${hotId}`, connections: CONNECTIONS },
    earn: { url: `${base}/avatars/${hotId}/earn`, headers: json, ...earnBody, connections: CONNECTIONS },
    spread: SPREAD > 0 ? { url: base, headers: json, targets, ...earnBody, connections: CONNECTIONS } : undefined,
  }
}

/** GET, hot earn and spread earn, ours and the floor taking turns round by round; RSS sampled throughout. */
async function compareSideBySide(engine: Engine, ours: Side, floor: Side | undefined): Promise<void> {
  const sides = floor ? [ours, floor] : [ours]
  const samplers = sides.map((side) => sampleRss(side.pid))
  const specs = (pick: (s: Side) => LoadSpec | undefined) => sides.flatMap((side) => { const spec = pick(side); return spec ? [{ side, spec }] : [] })
  await warmUp(...specs((s) => s.get).map((x) => x.spec), ...specs((s) => s.earn).map((x) => x.spec))
  for (const [name, pick] of [[GET, (s: Side) => s.get], [EARN_HOT, (s: Side) => s.earn], [EARN_SPREAD, (s: Side) => s.spread]] as const) {
    const runs = new Map<Side, LoadResult[]>()
    for (let round = 1; round <= ROUNDS; round++) {
      for (const { side, spec } of specs(pick)) {
        step(`${side.target} ${engine}: ${name}, round ${round} of ${ROUNDS}`)
        const result = await attempt(`${side.target} ${engine}: ${name}`, () => load({ ...spec, duration: ROUND_SECONDS }))
        if (result) runs.set(side, [...(runs.get(side) ?? []), result])
      }
    }
    const oursRuns = runs.get(ours) ?? []
    const floorRuns = (floor && runs.get(floor)) || []
    const perRound = oursRuns.length === floorRuns.length ? oursRuns.map((r, i) => (r.rps / floorRuns[i]!.rps).toFixed(2)).join(', ') : ''
    for (const [side, results] of runs) {
      rows.push({
        target: side.target, engine, scenario: name,
        rps: results.reduce((sum, r) => sum + r.rps, 0) / results.length,
        p50: median(results.map((r) => r.p50)), p99: median(results.map((r) => r.p99)),
        non2xx: results.reduce((sum, r) => sum + r.non2xx, 0), errors: results.reduce((sum, r) => sum + r.errors, 0),
        ...(side === ours && perRound && floorRuns.length > 0 ? { note: `${results.length} rounds of ${ROUND_SECONDS} s; ours/floor by round ${perRound}` } : {}),
      })
    }
  }
  for (const [i, side] of sides.entries()) {
    memory.push({ process: side.target, engine, measured: 'scenarios', dataDir: side.dataDir, idleMb: side.idleMb, loadMb: await samplers[i]!.stop() })
  }
}

/** Attends, probes and the battle: ours only (the floor has no such thing). */
async function measureOursAlone(engine: Engine, base: string, hot: Player): Promise<void> {
  if (ATTENDS > 0) {
    await scenario('ours', engine, `attend end to end (${ATTENDS} distinct habits)`, async () => {
      if (ATTEND_WARMUP > 0) await measureAttendsEndToEnd(base, hot.token, hot.avatarId, ATTEND_WARMUP, CONNECTIONS)
      const e2e = await measureAttendsEndToEnd(base, hot.token, hot.avatarId, ATTENDS, CONNECTIONS)
      return {
        rps: e2e.perSecond, p50: e2e.requests.p50, p99: e2e.requests.p99, requests: ATTENDS,
        note: `every reward visible after ${Math.round(e2e.elapsedMs)} ms; the requests alone ${Math.round(e2e.requests.rps)}/s`,
      }
    })
  }
  if (PROBES > 0) await scenario('ours', engine, `attend → experience visible (${PROBES} sequential)`, () => measureRewardDelay(base, hot.token, hot.avatarId, PROBES))
  if (GUILD > 0) {
    await scenario('ours', engine, EARN_HOT_AT_GUILD, async () => {
      const earn = await load({ url: `${base}/api/v1/avatars/${hot.avatarId}/money/earn`, headers: { ...hot.auth, ...json }, ...earnBody, connections: GUILD, duration: DURATION })
      return { ...earn, note: 'ours alone, right before the battle' }
    })
    let standing: Pick<Row, 'rps' | 'requests' | 'note'> | undefined
    await scenario('ours', engine, `battle: ${GUILD} members attack one ${BOSS}`, async () => {
      const guild = await guildOf(base, GUILD)
      const b = await measureBattle(base, guild, BOSS, DURATION)
      standing = { rps: b.standingRps, requests: b.attacks, note: `the same attacks over the ${fmt(b.attacks / b.standingRps, 1)} s bosses stood (each battle from its start to its last attack)` }
      return { rps: b.rps, p50: b.p50, p99: b.p99, requests: b.attacks, errors: b.errors, note: `${b.battles} battle${b.battles === 1 ? '' : 's'} of ${BOSS}; ${b.refused} attacks refused (battle just over / attacker fallen)` }
    })
    if (standing) rows.push({ target: 'ours', engine, scenario: `battle while a boss stands (the same attacks)`, ...standing })
  }
}

// ---- start-up and the bare PGlite process ----

const serve = (env: Record<string, string>) => {
  const [command, args] = nodeCommand(OURS, ['serve'], serverCpus)
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
  startUps.push(figure(`node ${OURS} serve → /healthz 200`, engine, runs.map((r) => r.ms)))
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
  const [npm, args] = pinned(['npm', 'start', '--silent'])
  const npmRuns = await repeat(STARTUP_RUNS, () => timeStartUp(npm, args, { LOG_LEVEL: 'warn', DATA_DIR: dataDir }))
  startUps.push(figure('npm start → /healthz 200', 'embedded', npmRuns.map((r) => r.ms)))
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

function ratios(): void {
  const find = (target: Row['target'], engine: Engine, scenario: string) =>
    rows.find((r) => r.target === target && r.engine === engine && r.scenario === scenario && r.rps !== undefined)
  for (const r of rows) {
    const rps = r.rps
    if (r.target !== 'ours' || rps === undefined) continue
    if (r.scenario.startsWith('battle')) {
      // The battle is judged like every other target: against the floor's one-statement hot earn of the same run.
      const floorEarn = find('floor', r.engine, EARN_HOT)
      if (floorEarn?.rps) {
        r.ratio = rps / floorEarn.rps
        r.ratioOf = "floor's hot earn"
      }
      const others = ([[EARN_HOT, `ours' hot earn`], [EARN_HOT_AT_GUILD, `ours' hot earn at ${GUILD} conn`]] as const).flatMap(([scenario, what]) => {
        const earn = find('ours', r.engine, scenario)
        return earn?.rps ? [`${(rps / earn.rps).toFixed(2)} of ${what}`] : []
      })
      if (others.length > 0) r.note = [r.note, others.join(', ')].filter(Boolean).join('; ')
      continue
    }
    const floor = find('floor', r.engine, r.scenario)
    if (floor?.rps) {
      r.ratio = rps / floor.rps
      r.ratioOf = 'floor'
    }
  }
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
  // Ours runs as npm start runs it, from the bundle: built now if src/ or web/ changed since.
  await buildAll({ ifStale: true })
  if (ENGINES.includes('embedded')) await attempt('embedded', embedded, { target: 'ours', engine: 'embedded', scenario: '(data directory)' })
  if (ENGINES.includes('postgres')) await attempt('postgres', postgres, { target: 'ours', engine: 'postgres', scenario: '(bench database)' })
  printReport()
  await mkdir('bench/results', { recursive: true })
  const file = `bench/results/api-${new Date().toISOString().replace(/[:.]/g, '-')}.json`
  await writeFile(file, JSON.stringify({
    settings: { connections: CONNECTIONS, duration: DURATION, spread: SPREAD, attends: ATTENDS, attendWarmUp: ATTEND_WARMUP, probes: PROBES, guild: GUILD, startupRuns: STARTUP_RUNS, pinning: pinning.description },
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
