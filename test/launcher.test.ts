/**
 * `npm run start:split` as an operator runs it: the launcher process, its children, its logs and
 * its signals. Runs in the split-services project only (it needs PostgreSQL and NATS).
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { connect as tcpConnect } from 'node:net'
import { createInterface } from 'node:readline'
import { expect, inject, test } from 'vitest'
import { freePort } from '../src/platform/net/free-port.js'
import { createEmptyPostgresDatabase } from './support/backends.js'
import { ownStream } from './support/nats.js'

const START_TIMEOUT_MS = 90_000

function launch(env: Record<string, string>): { child: ChildProcess; lines: string[]; exited: Promise<number | null> } {
  const { DATABASE_URL: _db, NATS_URL: _nats, ...inherited } = process.env
  // A process group of its own: a test that fails kills the launcher and every process it started at once.
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/launcher.ts'], { env: { ...inherited, ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true })
  const lines: string[] = []
  for (const stream of [child.stdout!, child.stderr!]) createInterface({ input: stream }).on('line', (l) => lines.push(l))
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  return { child, lines, exited }
}

/** The launcher and its children, whatever state the test left them in (SIGKILL to the launcher alone would orphan them). */
function killGroup(child: ChildProcess): void {
  try {
    process.kill(-child.pid!, 'SIGKILL')
  } catch {
    // Already gone.
  }
}

const listening = (port: number) => new Promise<boolean>((resolve) => {
  const s = tcpConnect(port, '127.0.0.1')
  s.once('connect', () => (s.destroy(), resolve(true)))
  s.once('error', () => resolve(false))
})

test('without DATABASE_URL and NATS_URL it refuses to start, naming both', async () => {
  const { lines, exited } = launch({})
  expect(await exited).toBe(1)
  expect(lines.join('\n')).toMatch(/needs DATABASE_URL and NATS_URL/)
})

test('on an empty database: every process migrates at once and comes up, logs carry names, the API answers, SIGTERM stops all', async ({ onTestFinished }) => {
  // Nothing migrated: seven processes apply the migrations at once (under the advisory lock).
  const db = await createEmptyPostgresDatabase(inject('templates'))
  const nats = ownStream(process.env.TEST_NATS_URL!, `qltest_launcher_${Date.now().toString(36)}`)
  onTestFinished(async () => {
    await db.drop()
    await nats.cleanup()
  })
  const port = await freePort()
  const { child, lines, exited } = launch({
    DATABASE_URL: db.url, ...nats.env, PORT: String(port), HOST: '127.0.0.1',
    REPLICAS_AVATAR: '2', LOG_LEVEL: 'info', JOBS_ENABLED: 'false',
  })
  onTestFinished(() => killGroup(child))
  await expect.poll(() => lines.some((l) => l.includes('Questline (split) is up on')), { timeout: START_TIMEOUT_MS, interval: 250 }).toBe(true)
  const processes = lines.flatMap((l) => l.match(/^\[launcher\] {3}(\S+) http:\/\/127\.0\.0\.1:(\d+)$/)?.slice(1) ?? [])
  const names = processes.filter((_, i) => i % 2 === 0)
  const ports = processes.filter((_, i) => i % 2 === 1).map(Number)
  expect(names.sort()).toEqual(['avatar#1', 'avatar#2', 'gateway', 'guild', 'live', 'marketplace', 'quest', 'tracking'])
  expect(ports).toContain(port)
  // Every process's log lines carry its name (each comes through its own pipe, in its own time).
  await expect.poll(() => lines.some((l) => l.startsWith('[avatar#2] ')), { timeout: 5_000 }).toBe(true)
  await expect.poll(() => lines.some((l) => l.startsWith('[gateway] ')), { timeout: 5_000 }).toBe(true)

  const base = `http://127.0.0.1:${port}`
  expect((await fetch(`${base}/readyz`)).status).toBe(200)
  const session = await (await fetch(`${base}/auth/register`, {
    method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Operator', email: 'operator@example.com', password: 'long enough password' }),
  })).json() as { token: string; userId: string }
  const avatar = await fetch(`${base}/api/v1/avatars/${session.userId}`, { headers: { authorization: `Bearer ${session.token}` } })
  expect(avatar.status).toBe(200)

  child.kill('SIGTERM')
  expect(await exited).toBe(0)
  for (const p of ports) expect(await listening(p), `port ${p}`).toBe(false)
})
