/**
 * `npm run bench`'s settings (its BENCH_* knobs), the names of its scenarios, and what the run
 * records: throughput rows, start-up figures, memory samples and failures, which the report prints.
 */
import { pinCores } from './pinning.js'

export const DURATION = Number(process.env.BENCH_DURATION ?? 10)
export const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50)
export const SPREAD = Number(process.env.BENCH_SPREAD ?? 1000)
export const ATTEND_PLAYERS = Number(process.env.BENCH_ATTEND_PLAYERS ?? 50)
export const ATTEND_HABITS = Number(process.env.BENCH_ATTEND_HABITS ?? 60)
export const ATTENDS = Number(process.env.BENCH_ATTENDS ?? 2000)
export const ATTEND_WARMUP = Number(process.env.BENCH_ATTEND_WARMUP ?? 300)
export const PROBES = Number(process.env.BENCH_PROBES ?? 200)
export const GUILD = Number(process.env.BENCH_GUILD ?? 20)
export const STARTUP_RUNS = Number(process.env.BENCH_STARTUP_RUNS ?? 3)
export const WARMUP = Number(process.env.BENCH_WARMUP ?? 1)
export const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3))
/** Each timed compared scenario takes BENCH_DURATION per target in all, in whole seconds per round. */
export const ROUND_SECONDS = Math.max(1, Math.round(DURATION / ROUNDS))
export const ADMIN_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
export const BOSS = process.env.BENCH_BOSS ?? 'DRAGON'
/** What `npm start` runs: the platform as the build bundled it (built first when stale). */
export const OURS = 'bin/questline.js'

export type Engine = 'embedded' | 'postgres'
export const ENGINES = (process.env.BENCH_ENGINES ?? 'embedded,postgres').split(',') as Engine[]

/** What BENCH_ONLY may name (a comma-separated list; unset runs them all). */
const SCENARIO_KEYS = ['get', 'earn', 'spread', 'attends', 'one-avatar', 'probes', 'battle', 'startup'] as const
export type ScenarioKey = (typeof SCENARIO_KEYS)[number]
const only = process.env.BENCH_ONLY ? process.env.BENCH_ONLY.split(',').map((k) => k.trim()).filter(Boolean) : undefined
const unknown = only?.filter((k) => !(SCENARIO_KEYS as readonly string[]).includes(k)) ?? []
if (unknown.length > 0) throw new Error(`BENCH_ONLY: unknown ${unknown.join(', ')}; known: ${SCENARIO_KEYS.join(', ')}`)

/** Whether BENCH_ONLY lets a scenario run. The battle's ratio is to the floor's hot earn, so `battle` brings `earn` along. */
export const selected = (key: ScenarioKey): boolean =>
  !only || only.includes(key) || (key === 'earn' && only.includes('battle'))

export const GET = 'GET /api/v1/avatars/{id}'
export const EARN_HOT = `earn, one hot avatar (${CONNECTIONS} conn)`
export const EARN_SPREAD = `earn, spread over ${SPREAD} avatars`
export const ATTENDS_BY_PLAYERS = `attends by ${ATTEND_PLAYERS} players × ${ATTEND_HABITS} habits, end to end`
/** The hot earn again, with as many connections as the battle has attackers: the battle's ratio at equal concurrency. */
export const EARN_HOT_AT_GUILD = `earn, one hot avatar (${GUILD} conn, the battle's)`
export const BATTLE = `battle: ${GUILD} members attack one ${BOSS}`
export const BATTLE_STANDING = 'battle while a boss stands (the same attacks)'

export interface Row {
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

export interface Memory {
  process: string
  engine: Engine
  /** When it was sampled: right after the timed starts, or around the throughput scenarios. */
  measured: 'start-up runs' | 'scenarios' | 'bare process'
  /** Whether the process started on a fresh data directory (embedded: initdb in-process) or database, or an existing one. */
  dataDir: 'fresh' | 'existing'
  idleMb?: number | undefined
  loadMb?: number | undefined
}

export interface StartUpFigure {
  what: string
  engine: Engine
  runsMs: number[]
  medianMs?: number
  note?: string
}

export const rows: Row[] = []
export const memory: Memory[] = []
export const startUps: StartUpFigure[] = []
export const failures: string[] = []
/** The bench pins itself to the client core as this module loads; servers go to `serverCpus`. */
export const pinning = pinCores()
export const serverCpus = pinning.serverCpus

type Failed = Pick<Row, 'target' | 'engine' | 'scenario'> | Pick<StartUpFigure, 'what' | 'engine'>

/** Runs one target, scenario or start-up step; a failure is recorded (as a FAILED row in its table) and the bench goes on. */
export async function attempt<T>(what: string, run: () => Promise<T>, failed?: Failed): Promise<T | undefined> {
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
export const step = (message: string) => console.log(`[${Math.round((Date.now() - began) / 1000)} s] ${message}`)

/** One throughput scenario of one target: a row, or a FAILED row. */
export async function scenario(target: Row['target'], engine: Engine, name: string, run: () => Promise<Omit<Row, 'target' | 'engine' | 'scenario'>>): Promise<void> {
  step(`${target} ${engine}: ${name}`)
  const figures = await attempt(`${target} ${engine}: ${name}`, run, { target, engine, scenario: name })
  if (figures) rows.push({ target, engine, scenario: name, ...figures })
}

export const earnBody = { method: 'POST' as const, body: '{"amount":1}' }
export const json = { 'content-type': 'application/json' }
