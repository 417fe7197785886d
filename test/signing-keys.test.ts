/**
 * Signing keys without JWT_PRIVATE_KEY: kept in the database and shared by every process on it,
 * rotated without logging anyone out. Three processes on one database, each with a data
 * directory of its own: the whole platform twice, and an avatar process that calls
 * nothing over HTTP (it issues no tokens). Not in the split project: it starts processes of its
 * own on the test's database (test/operator.test.ts rotates a served one with the command).
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { decodeProtectedHeader } from 'jose'
import { afterAll, beforeAll, expect, inject, test } from 'vitest'
import { loadConfig } from '../src/config.js'
import { rotateSigningKey } from '../src/operator/commands.js'
import { KeyRing } from '../src/platform/auth/key-ring.js'
import { dataDirKeyFile, generateSigningJwk, verifyingKeyOf } from '../src/platform/auth/keys.js'
import { AccessTokens } from '../src/platform/auth/tokens.js'
import { ManualClock } from '../src/platform/clock.js'
import { buildPlatform } from '../src/server.js'
import { openTestDatabase, type TestDatabase } from './support/backends.js'

type Platform = Awaited<ReturnType<typeof buildPlatform>>

const TTL_SECONDS = 600
const config = loadConfig({ LOG_LEVEL: 'silent', JOBS_ENABLED: 'false', ACCESS_TOKEN_TTL_SECONDS: String(TTL_SECONDS) })
const clock = new ManualClock(new Date('2031-03-01T08:00:00Z'))
const dirs: string[] = []
let testDb: TestDatabase
let whole: Platform
let edge: Platform
let avatarOnly: Platform
/** The key the whole platform's data directory held from before keys lived in the database. */
let legacyKid: string

/** A data directory holding a signing key file, as one made before keys lived in the database. */
async function dataDirWithKeyFile(): Promise<{ dir: string; kid: string }> {
  const dir = await mkdtemp(path.join(tmpdir(), 'questline-keys-'))
  dirs.push(dir)
  const jwk = await generateSigningJwk()
  await mkdir(path.dirname(dataDirKeyFile(dir)), { recursive: true })
  await writeFile(dataDirKeyFile(dir), JSON.stringify(jwk))
  return { dir, kid: (await verifyingKeyOf(jwk)).kid }
}

beforeAll(async () => {
  testDb = await openTestDatabase(inject('templates'))
  const common = { config, logger: false as const, database: testDb.database, clock }
  const [legacy, other] = [await dataDirWithKeyFile(), await dataDirWithKeyFile()]
  legacyKid = legacy.kid
  // One after the other: the first finds no key in the database and imports its directory's.
  whole = await buildPlatform({ ...common, keysDir: legacy.dir })
  // A second whole process (its edge calls every context, which it serves too).
  edge = await buildPlatform({ ...common, keysDir: other.dir })
  avatarOnly = await buildPlatform({ ...common, keysDir: other.dir, only: ['avatar'] })
})
afterAll(async () => {
  for (const p of [avatarOnly, edge, whole]) await p?.http.close()
  await testDb?.drop()
  for (const dir of dirs) await rm(dir, { recursive: true, force: true })
})

const kidOf = (token: string) => decodeProtectedHeader(token).kid
const jwksKids = async (p: Platform) => ((await p.http.inject({ url: '/auth/jwks.json' })).json().keys as { kid: string }[]).map((k) => k.kid)

async function register(p: Platform): Promise<{ userId: string; email: string; token: string }> {
  const email = `k-${Math.random().toString(36).slice(2)}@example.com`
  const res = await p.http.inject({ method: 'POST', url: '/auth/register', payload: { name: 'Keyholder', email, password: 'correct horse battery' } })
  expect(res.statusCode, res.body).toBe(200)
  return { userId: res.json().userId, email, token: res.json().token }
}

async function login(p: Platform, email: string): Promise<string> {
  const res = await p.http.inject({ method: 'POST', url: '/auth/login', payload: { email, password: 'correct horse battery' } })
  expect(res.statusCode, res.body).toBe(200)
  return res.json().token
}

/** The status of reading the user's avatar with the token at a process serving avatars. */
const avatarStatus = async (p: Platform, userId: string, token: string) =>
  (await p.http.inject({ url: `/api/v1/avatars/${userId}`, headers: { authorization: `Bearer ${token}` } })).statusCode

test('a data directory\'s key from before is imported when the database holds none; another directory\'s is not', async () => {
  const player = await register(edge)
  expect(kidOf(player.token)).toBe(legacyKid)
  expect(await jwksKids(whole)).toEqual([legacyKid])
  expect(await jwksKids(edge)).toEqual([legacyKid])
})

test('processes on one database, each with its own data directory and no JWT_PRIVATE_KEY, accept each other\'s tokens; one that issues none holds no private key', async () => {
  const player = await register(edge)
  expect(await avatarStatus(whole, player.userId, player.token)).toBe(200)
  expect(await avatarStatus(avatarOnly, player.userId, player.token)).toBe(200)
  const fromWhole = await login(whole, player.email)
  expect(await avatarStatus(avatarOnly, player.userId, fromWhole)).toBe(200)
  const validated = await edge.http.inject({ method: 'POST', url: '/auth/validate', payload: { token: fromWhole } })
  expect(validated.json()).toEqual({ valid: true })

  expect([whole.tokens.canSign, edge.tokens.canSign, avatarOnly.tokens.canSign]).toEqual([true, true, false])
  await expect(avatarOnly.tokens.issue(player.userId, 'service')).rejects.toThrow(/holds no private key/)
})

test('a rotation logs nobody out: tokens of the previous key live until they expire, new ones carry the new kid, JWKS lists both', async () => {
  const player = await register(whole)
  const oldToken = player.token
  expect(kidOf(oldToken)).toBe(legacyKid)

  // What `questline keys rotate` asks of the server holding an embedded data directory.
  const newKid = await edge.keys.rotate()
  expect(newKid).not.toBe(legacyKid)
  const fromEdge = await login(edge, player.email)
  expect(kidOf(fromEdge)).toBe(newKid)
  // The others meet a kid they do not know: they read the keys again, accept it, and sign with it from then on.
  expect(await avatarStatus(avatarOnly, player.userId, fromEdge)).toBe(200)
  expect(await avatarStatus(whole, player.userId, fromEdge)).toBe(200)
  expect(kidOf(await login(whole, player.email))).toBe(newKid)
  expect(await jwksKids(whole)).toEqual([newKid, legacyKid])
  expect(await jwksKids(edge)).toEqual([newKid, legacyKid])

  expect(await avatarStatus(whole, player.userId, oldToken)).toBe(200)
  expect(await avatarStatus(avatarOnly, player.userId, oldToken)).toBe(200)
  clock.advance(TTL_SECONDS * 1000 + 1000)
  expect(await avatarStatus(whole, player.userId, oldToken)).toBe(401)
  expect(await avatarStatus(avatarOnly, player.userId, oldToken)).toBe(401)
  const fresh = await login(whole, player.email)
  expect(await avatarStatus(avatarOnly, player.userId, fresh)).toBe(200)

  // Another rotation: the key before the previous one is published no more.
  const newest = await whole.keys.rotate()
  expect(await jwksKids(whole)).toEqual([newest, newKid])
})

test('a configured key is rotated by configuration: keys rotate refuses it, and JWT_PREVIOUS_PUBLIC_KEYS keeps the old key\'s tokens valid', async () => {
  const [oldJwk, newJwk] = [await generateSigningJwk(), await generateSigningJwk()]
  const configured = (previous: object[]) => loadConfig({
    LOG_LEVEL: 'silent', JOBS_ENABLED: 'false', JWT_PRIVATE_KEY: JSON.stringify(newJwk), JWT_PREVIOUS_PUBLIC_KEYS: JSON.stringify(previous),
  })
  await expect(rotateSigningKey(configured([]))).rejects.toThrow(/JWT_PREVIOUS_PUBLIC_KEYS/)

  const player = await register(edge)
  const signedBefore = new AccessTokens(await KeyRing.configured(JSON.stringify(oldJwk)), { issuer: config.jwtIssuer, audience: config.jwtAudience, ttlSeconds: 600 }, clock, { isRevoked: () => false })
  const oldToken = (await signedBefore.issue(player.userId, 'player')).token
  const { x, kty, crv } = oldJwk
  for (const [previous, status] of [[[{ kty, crv, x }], 200], [[], 401]] as const) {
    const p = await buildPlatform({ config: configured([...previous]), logger: false, database: testDb.database, clock, only: ['avatar'] })
    try {
      expect(await avatarStatus(p, player.userId, oldToken), JSON.stringify(previous)).toBe(status)
    } finally {
      await p.http.close()
    }
  }
})
