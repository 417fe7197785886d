/**
 * What an operator runs beside the server: `questline admin grant|revoke`, `backup` and `restore`
 * of the embedded data directory (also while it is served), the PostgreSQL backup that
 * docs/operations.md#backups gives (pg_dump), and `serve --test-controls`. Each test runs whole
 * processes, as an operator would.
 */
import { execFile } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { mkdtemp, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { decodeProtectedHeader } from 'jose'
import { expect, inject, test } from 'vitest'
import { backend, createDatabase, databaseUrl, dropDatabase } from './support/backends.js'
import { dataPlace, json, runCommand, startServer, stopServer, type DataPlace, type Server } from './support/serve-process.js'

const TIMEOUT_MS = 120_000
const onEmbedded = test.runIf(backend() === 'embedded')
const onPostgres = test.runIf(backend() === 'postgres')

interface Account { email: string; password: string; userId: string; token: string; refreshToken: string }

async function register(base: string): Promise<Account> {
  const account = { name: 'Op', email: `op-${randomUUID()}@example.com`, password: 'operator test password' }
  const res = await json(`${base}/auth/register`, { method: 'POST', body: JSON.stringify(account) })
  expect(res.status).toBe(200)
  return { ...account, userId: res.body.userId as string, token: res.body.token as string, refreshToken: res.body.refreshToken as string }
}

const roleOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8')).role as string

/** A player's visible state: the avatar, its habits and its inventory. */
async function snapshot(base: string, a: Account) {
  const get = async (p: string) => {
    const r = await json(`${base}${p}`, { token: a.token })
    expect(r.status, p).toBe(200)
    return r.body
  }
  return { avatar: await get(`/api/v1/avatars/${a.userId}`), habits: await get(`/api/v1/habits?avatarId=${a.userId}`), inventory: await get(`/api/v1/avatars/${a.userId}/inventory`) }
}

/** A new player with some play to carry across a backup (a habit, money earned), and what they see. */
async function playerWithHistory(base: string) {
  const player = await register(base)
  await play(base, player)
  return { player, before: await snapshot(base, player) }
}

async function play(base: string, a: Account): Promise<void> {
  const habit = await json(`${base}/api/v1/habits`, { method: 'POST', token: a.token, body: JSON.stringify({ avatarId: a.userId, title: 'Read 20 pages', recurrenceType: 'DAILY' }) })
  expect(habit.status, JSON.stringify(habit.body)).toBe(200)
  expect((await json(`${base}/api/v1/avatars/${a.userId}/money/earn`, { method: 'POST', token: a.token, body: JSON.stringify({ amount: 42 }) })).status).toBe(204)
}

async function withServer(place: DataPlace, run: (s: Server) => Promise<void>, args: string[] = []): Promise<void> {
  const server = await startServer(place.env, args)
  try {
    await run(server)
  } finally {
    await stopServer(server)
  }
}

test('admin grant makes an admin from the next refresh; revoke ends their sessions and refuses their tokens at once; an unknown email is refused', async ({ onTestFinished }) => {
  const place = await dataPlace('admin')
  onTestFinished(() => place.cleanup())
  await withServer(place, async (server) => {
    const [op, other] = [await register(server.url), await register(server.url)]
    const earnForOther = (token: string) => json(`${server.url}/api/v1/avatars/${other.userId}/money/earn`, { method: 'POST', token, body: JSON.stringify({ amount: 1 }) })
    expect((await earnForOther(op.token)).status).toBe(403)

    const granted = await runCommand(place.env, ['admin', 'grant', op.email.toUpperCase()])
    expect(granted, granted.stderr).toMatchObject({ code: 0 })
    expect(granted.stdout).toContain(`${op.email} is an admin`)
    const refreshed = await json(`${server.url}/auth/refresh`, { method: 'POST', body: JSON.stringify({ refreshToken: op.refreshToken }) })
    const adminToken = refreshed.body.token as string
    expect(roleOf(adminToken)).toBe('admin')
    expect((await earnForOther(adminToken)).status).toBe(204)

    const revoked = await runCommand(place.env, ['admin', 'revoke', op.email])
    expect(revoked, revoked.stderr).toMatchObject({ code: 0 })
    // Other processes (the command itself, on PostgreSQL) are heard from at the server's next poll.
    await expect.poll(async () => (await earnForOther(adminToken)).status, { timeout: 5_000 }).toBe(401)
    expect((await json(`${server.url}/auth/refresh`, { method: 'POST', body: JSON.stringify({ refreshToken: refreshed.body.refreshToken }) })).status).toBe(401)
    const again = await json(`${server.url}/auth/login`, { method: 'POST', body: JSON.stringify({ email: op.email, password: op.password }) })
    expect(roleOf(again.body.token as string)).toBe('player')
    expect((await earnForOther(again.body.token as string)).status).toBe(403)

    const unknown = await runCommand(place.env, ['admin', 'grant', 'nobody@example.com'])
    expect(unknown.code).toBe(1)
    expect(unknown.stderr).toContain("User with email 'nobody@example.com' not found")
    expect((await runCommand(place.env, ['admin', 'promote', op.email])).stderr).toContain('usage: questline admin grant|revoke EMAIL')
  })
  // With the server stopped, the command opens the data itself.
  const offline = await runCommand(place.env, ['admin', 'revoke', 'nobody@example.com'])
  expect(offline.stderr).toContain('not found')
}, TIMEOUT_MS)

const kidOf = (token: string) => decodeProtectedHeader(token).kid

test('keys rotate: new tokens carry the new kid at every server, the JWKS lists both keys, tokens of the previous key live until they expire', async ({ onTestFinished }) => {
  const place = await dataPlace('keys')
  onTestFinished(() => place.cleanup())

  // On PostgreSQL a second server with a data directory of its own and no JWT_PRIVATE_KEY: the keys are the database's.
  const secondDir = backend() === 'postgres' ? await mkdtemp(path.join(tmpdir(), 'questline-keys-second-')) : undefined
  onTestFinished(() => (secondDir ? rm(secondDir, { recursive: true, force: true }) : undefined))
  await withServer(place, async (first) => {
    const second = secondDir ? await startServer({ ...place.env, DATA_DIR: secondDir }, ['--test-controls']) : first
    onTestFinished(() => stopServer(second))
    const servers = [first, second]
    const player = await register(first.url)
    const avatarStatus = async (s: Server, token: string) => (await json(`${s.url}/api/v1/avatars/${player.userId}`, { token })).status
    const login = async (s: Server) => (await json(`${s.url}/auth/login`, { method: 'POST', body: JSON.stringify({ email: player.email, password: player.password }) })).body.token as string
    expect(await avatarStatus(second, player.token)).toBe(200)
    expect(await avatarStatus(first, await login(second))).toBe(200)
    const oldKid = kidOf(player.token)

    const rotated = await runCommand(place.env, ['keys', 'rotate'])
    expect(rotated, rotated.stderr).toMatchObject({ code: 0 })
    const newKid = /kid (\S+)\)/.exec(rotated.stdout)?.[1]
    expect(newKid).not.toBe(oldKid)
    // Served embedded, the server rotated itself; on PostgreSQL each reads the keys again within seconds.
    for (const s of servers) await expect.poll(async () => kidOf(await login(s)), { timeout: 10_000, interval: 250 }).toBe(newKid)
    for (const s of servers) {
      const jwks = await json(`${s.url}/auth/jwks.json`)
      expect((jwks.body.keys as { kid: string }[]).map((k) => k.kid)).toEqual([newKid, oldKid])
      expect(await avatarStatus(s, player.token)).toBe(200)
    }

    const pastExpiry = new Date(Date.now() + 3_601_000).toISOString()
    for (const s of servers) expect((await json(`${s.url}/_test/clock`, { method: 'POST', body: JSON.stringify({ now: pastExpiry }) })).status).toBe(200)
    for (const s of servers) {
      expect(await avatarStatus(s, player.token)).toBe(401)
      expect(await avatarStatus(s, await login(s))).toBe(200)
    }
  }, ['--test-controls'])
}, TIMEOUT_MS)

onEmbedded('backup while served and when stopped; restore refuses a directory holding data unless told, and a served one; the restored copy serves the same resources', async ({ onTestFinished }) => {
  const [source, copy] = [await dataPlace('backup-source'), await dataPlace('backup-copy')]
  onTestFinished(async () => {
    await source.cleanup()
    await copy.cleanup()
  })
  const live = path.join(copy.dataDir, '..', `${path.basename(copy.dataDir)}.live.qlbackup`)
  const stopped = path.join(copy.dataDir, '..', `${path.basename(copy.dataDir)}.stopped.qlbackup`)
  onTestFinished(async () => {
    await Promise.all([live, stopped].map((f) => rm(f, { force: true })))
  })
  let played: Awaited<ReturnType<typeof playerWithHistory>> | undefined
  await withServer(source, async (server) => {
    played = await playerWithHistory(server.url)
    const made = await runCommand(source.env, ['backup', live])
    expect(made, made.stderr).toMatchObject({ code: 0 })
    expect((await stat(live)).mode & 0o777).toBe(0o600)
    expect((await json(`${server.url}/readyz`)).status).toBe(200)
    const overServed = await runCommand(source.env, ['restore', live, '--force'])
    expect(overServed.code).toBe(1)
    expect(overServed.stderr).toContain('stop the server first')
  })
  expect((await runCommand(source.env, ['backup', stopped])).code).toBe(0)

  expect((await runCommand(copy.env, ['restore', live])).code).toBe(0)
  const refused = await runCommand(copy.env, ['restore', stopped])
  expect(refused.code).toBe(1)
  expect(refused.stderr).toContain('holds data already')
  expect((await runCommand(copy.env, ['restore', stopped, '--force'])).code).toBe(0)
  expect((await runCommand(copy.env, ['restore', path.join(copy.dataDir, 'pgdata', 'PG_VERSION')])).stderr).toContain('is not a Questline backup')

  // The signing key came along (in the database): the player's token from before still works.
  await withServer(copy, async (server) => {
    expect(await snapshot(server.url, played!.player)).toEqual(played!.before)
  })
  const onPostgres = await runCommand({ ...copy.env, DATABASE_URL: 'postgres://127.0.0.1:1/none' }, ['backup', stopped])
  expect(onPostgres.stderr).toContain('pg_dump')
}, TIMEOUT_MS)

onPostgres('the PostgreSQL backup of docs/operations.md: pg_dump, then pg_restore into a new database, serves the same resources', async ({ onTestFinished }) => {
  const place = await dataPlace('pgdump')
  const t = inject('templates')
  const restoredName = `${t.runId}_pgrestore_${process.pid}`
  const dump = path.join(place.dataDir, 'questline.dump')
  onTestFinished(async () => {
    await dropDatabase(t.postgresAdminUrl!, restoredName)
    await place.cleanup()
  })
  let played: Awaited<ReturnType<typeof playerWithHistory>> | undefined
  await withServer(place, async (server) => {
    played = await playerWithHistory(server.url)
    await promisify(execFile)('pg_dump', ['--format=custom', `--file=${dump}`, place.env.DATABASE_URL!])
  })
  await createDatabase(t.postgresAdminUrl!, restoredName)
  const restoredUrl = databaseUrl(t.postgresAdminUrl!, restoredName)
  await promisify(execFile)('pg_restore', ['--no-owner', `--dbname=${restoredUrl}`, dump])
  // The same DATA_DIR: its signing key verifies the tokens issued before.
  await withServer({ ...place, env: { ...place.env, DATABASE_URL: restoredUrl } }, async (server) => {
    expect(await snapshot(server.url, played!.player)).toEqual(played!.before)
  })
}, TIMEOUT_MS)

test('test controls come only with serve --test-controls, on a loopback host, with warnings, and validate the clock', async ({ onTestFinished }) => {
  const place = await dataPlace('controls')
  onTestFinished(() => place.cleanup())
  const open = await runCommand({ ...place.env, HOST: '0.0.0.0' }, ['serve', '--test-controls'])
  expect(open.code).toBe(1)
  expect(open.stderr).toContain('need a loopback HOST')

  const setClock = (s: Server, body: unknown) => json(`${s.url}/_test/clock`, { method: 'POST', body: JSON.stringify(body) })
  await withServer({ ...place, env: { ...place.env, TEST_CONTROL: 'true' } }, async (server) => {
    expect((await setClock(server, { now: null })).status).toBe(404)
  })
  await withServer(place, async (server) => {
    const garbage = await setClock(server, { now: 'garbage' })
    expect(garbage.status).toBe(400)
    expect(JSON.stringify(garbage.body)).toContain('body/now')
    expect((await setClock(server, { now: 5 })).status).toBe(400)
    const set = await setClock(server, { now: '2030-01-02T03:04:05Z' })
    expect(set).toEqual({ status: 200, body: { now: '2030-01-02T03:04:05.000Z' } })
    await expect.poll(() => server.output()).toContain('test control used')
    expect(server.output()).toContain('test controls are on')
  }, ['--test-controls'])
}, TIMEOUT_MS)

test('serve refuses to start when a context it serves calls one it neither serves nor reaches, naming the setting', async ({ onTestFinished }) => {
  const place = await dataPlace('unreached')
  onTestFinished(() => place.cleanup())
  const elsewhere = { UPSTREAM_TRACKING: 'http://127.0.0.1:9', UPSTREAM_GUILD: 'http://127.0.0.1:9' }
  const refused = await runCommand({ ...place.env, ...elsewhere }, ['serve', '--only', 'quest'])
  expect(refused.code).toBe(1)
  expect(refused.stderr).toContain('The quest context calls avatar, which this process neither serves nor reaches: set UPSTREAM_AVATAR')
  expect(refused.stderr).toContain('--only quest,avatar')
}, TIMEOUT_MS)
