/**
 * The all-in-one process SIGKILLed during a burst of batched earns, then started again on the same
 * data: every acknowledged earn is there, and none is applied twice (each earn is retried with its
 * key after the restart; the total must be exactly the sum of all of them). On the backend of the
 * project: embedded (its data directory) or PostgreSQL (a fresh database).
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { expect, inject, test } from 'vitest'
import { freePort } from '../src/split/cluster.js'
import { backend, createDatabase, databaseUrl, dropDatabase } from './support/backends.js'

const EARNS = 120
const AT_ONCE = 40
const START_TIMEOUT_MS = 60_000
const TEST_TIMEOUT_MS = 180_000

interface Server {
  url: string
  child: ChildProcess
}

async function start(env: Record<string, string>): Promise<Server> {
  const port = await freePort()
  const { DATABASE_URL: _db, NATS_URL: _nats, ...inherited } = process.env
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', 'serve'], {
    env: { ...inherited, ...env, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', JOBS_ENABLED: 'false' },
    stdio: ['ignore', 'ignore', 'inherit'],
  })
  const url = `http://127.0.0.1:${port}`
  const deadline = Date.now() + START_TIMEOUT_MS
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode}`)
    const up = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(1_000) }).then((r) => r.ok, () => false)
    if (up) return { url, child }
    if (Date.now() > deadline) {
      child.kill('SIGKILL')
      throw new Error('the server did not come up')
    }
    await new Promise((r) => setTimeout(r, 100))
  }
}

const killed = (s: Server) => new Promise<void>((resolve) => {
  if (s.child.exitCode !== null || s.child.signalCode !== null) return resolve()
  s.child.once('exit', () => resolve())
  s.child.kill('SIGKILL')
})

async function json(url: string, init: RequestInit & { token?: string; key?: string; body?: string }): Promise<{ status: number; body: Record<string, unknown> }> {
  const headers: Record<string, string> = { 'content-type': 'application/json' }
  if (init.token) headers.authorization = `Bearer ${init.token}`
  if (init.key) headers['idempotency-key'] = init.key
  const res = await fetch(url, { ...init, headers, signal: AbortSignal.timeout(10_000) })
  const text = await res.text()
  return { status: res.status, body: text ? JSON.parse(text) : undefined }
}

/** Where the process keeps its data: a data directory, and for PostgreSQL a fresh database too. */
async function dataPlace(): Promise<{ env: Record<string, string>; cleanup(): Promise<void> }> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'questline-crash-'))
  const removeDir = () => rm(dataDir, { recursive: true, force: true })
  if (backend() === 'embedded') return { env: { DATA_DIR: dataDir }, cleanup: removeDir }
  const t = inject('templates')
  const name = `${t.runId}_crash_${process.pid}`
  await createDatabase(t.postgresAdminUrl!, name, t.postgresTemplate)
  return {
    env: { DATA_DIR: dataDir, DATABASE_URL: databaseUrl(t.postgresAdminUrl!, name) },
    cleanup: async () => {
      await dropDatabase(t.postgresAdminUrl!, name)
      await removeDir()
    },
  }
}

test(`SIGKILL during ${EARNS} batched earns: every acknowledged earn survives, none is applied twice`, async ({ onTestFinished }) => {
  const place = await dataPlace()
  let server: Server | undefined
  onTestFinished(async () => {
    if (server) await killed(server)
    await place.cleanup()
  })
  server = await start(place.env)

  const account = { name: 'Crash', email: `crash-${Date.now()}@example.com`, password: 'crash test password' }
  const reg = await json(`${server.url}/auth/register`, { method: 'POST', body: JSON.stringify(account) })
  expect(reg.status).toBe(200)
  const avatarId = reg.body.userId as string
  let token = reg.body.token as string
  const earn = (base: string, i: number) =>
    json(`${base}/api/v1/avatars/${avatarId}/money/earn`, { method: 'POST', token, key: `crash-${i}`, body: JSON.stringify({ amount: i + 1 }) })

  // Earns go AT_ONCE at a time; the process is killed once a third of them were acknowledged.
  const acknowledged = new Set<number>()
  let next = 0
  const worker = async () => {
    while (next < EARNS) {
      const i = next++
      const r = await earn(server!.url, i).catch(() => undefined)
      if (r?.status === 204) acknowledged.add(i)
      if (acknowledged.size >= EARNS / 3) await killed(server!)
    }
  }
  await Promise.all(Array.from({ length: AT_ONCE }, worker))
  expect(acknowledged.size).toBeGreaterThanOrEqual(EARNS / 3)
  expect(acknowledged.size).toBeLessThan(EARNS)

  server = await start(place.env)
  const login = await json(`${server.url}/auth/login`, { method: 'POST', body: JSON.stringify({ email: account.email, password: account.password }) })
  token = login.body.token as string
  const amount = async () => (await json(`${server.url}/api/v1/avatars/${avatarId}/money`, { token })).body.amount as number
  const sum = (ids: Iterable<number>) => [...ids].reduce((n, i) => n + i + 1, 0)

  const afterRestart = await amount()
  expect(afterRestart).toBeGreaterThanOrEqual(100 + sum(acknowledged))
  // Every earn again, with its key: those applied before the kill answer as before and add nothing.
  const retried = await Promise.all(Array.from({ length: EARNS }, (_, i) => earn(server.url, i)))
  expect(retried.map((r) => r.status).filter((s) => s !== 204)).toEqual([])
  expect(await amount()).toBe(100 + sum(Array.from({ length: EARNS }, (_, i) => i)))
}, TEST_TIMEOUT_MS)
