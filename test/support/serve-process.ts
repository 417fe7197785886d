/**
 * `questline` as an operator runs it: a server process of its own (from source, or from a runtime
 * tree) on a data place, and one-shot commands (backup, restore, admin) beside it. For tests that
 * kill, restart or operate on a whole process.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { inject } from 'vitest'
import { freePort } from '../../src/platform/net/free-port.js'
import { backend, createDatabase, databaseUrl, dropDatabase } from './backends.js'
import { waitUntilReady } from './runtime-smoke.js'

export { json } from './runtime-smoke.js'

const START_TIMEOUT_MS = 60_000

export interface Server {
  url: string
  child: ChildProcess
  /** What it wrote (stdout and stderr) so far. */
  output(): string
}

/** The environment without the run's own database and bus, so a process uses only what it is given. */
function ownEnvironment(env: Record<string, string>): Record<string, string | undefined> {
  const { DATABASE_URL: _db, NATS_URL: _nats, ...inherited } = process.env
  return { ...inherited, LOG_LEVEL: 'warn', JOBS_ENABLED: 'false', ...env }
}

/** How node starts Questline: from source in the checkout by default; a runtime tree's bundle from the tree. */
export interface Entry {
  args: string[]
  cwd?: string
}

const FROM_SOURCE: Entry = { args: ['--import', 'tsx', 'src/main.ts'] }

export async function startServer(env: Record<string, string>, args: string[] = [], entry: Entry = FROM_SOURCE): Promise<Server> {
  const server = await launchServer(env, args, entry)
  await untilReady(server)
  return server
}

/** A server process begun, not waited for: `untilReady` waits for its /readyz. */
export async function launchServer(env: Record<string, string>, args: string[] = [], entry: Entry = FROM_SOURCE): Promise<Server> {
  const port = await freePort()
  const child = spawn(process.execPath, [...entry.args, 'serve', ...args], {
    env: { ...ownEnvironment(env), PORT: String(port), HOST: '127.0.0.1' },
    ...(entry.cwd ? { cwd: entry.cwd } : {}),
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  for (const stream of [child.stdout!, child.stderr!]) stream.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')))
  return { url: `http://127.0.0.1:${port}`, child, output: () => output }
}

/** Waits until the server answers /readyz 200; throws (killing it) when it exits first or takes longer than `withinMs`. */
export async function untilReady(server: Server, withinMs = START_TIMEOUT_MS): Promise<void> {
  const { child } = server
  try {
    await waitUntilReady(server.url, { withinMs, exited: () => (child.exitCode !== null ? `exit code ${child.exitCode}` : undefined) })
  } catch (e) {
    child.kill('SIGKILL')
    throw new Error(`${(e as Error).message}\n${server.output()}`)
  }
}

export const stopServer = (s: Server, signal: 'SIGKILL' | 'SIGTERM' = 'SIGTERM') => new Promise<void>((resolve) => {
  if (s.child.exitCode !== null || s.child.signalCode !== null) return resolve()
  s.child.once('exit', () => resolve())
  s.child.kill(signal)
})

/** A one-shot command: its exit code and output. */
export function runCommand(env: Record<string, string>, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [...FROM_SOURCE.args, ...args], { env: ownEnvironment(env), timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr })
    })
  })
}

export interface DataPlace {
  dataDir: string
  env: Record<string, string>
  cleanup(): Promise<void>
}

/** Where a process keeps its data: a data directory, and on the PostgreSQL backend a fresh database too. */
export async function dataPlace(label: string): Promise<DataPlace> {
  const dataDir = await mkdtemp(path.join(tmpdir(), `questline-${label}-`))
  const removeDir = () => rm(dataDir, { recursive: true, force: true })
  if (backend() === 'embedded') return { dataDir, env: { DATA_DIR: dataDir }, cleanup: removeDir }
  const t = inject('templates')
  const name = `${t.runId}_${label}_${process.pid}_${Math.random().toString(36).slice(2, 8)}`
  await createDatabase(t.postgresAdminUrl!, name, t.postgresTemplate)
  return {
    dataDir,
    env: { DATA_DIR: dataDir, DATABASE_URL: databaseUrl(t.postgresAdminUrl!, name) },
    cleanup: async () => {
      await dropDatabase(t.postgresAdminUrl!, name)
      await removeDir()
    },
  }
}
