/**
 * Every service verifies tokens itself: a request sent straight to a context process, past the
 * gateway, gets the answers the gateway gives, and a logout at the gateway is in force in the
 * process once it has answered (revocations are shared through the database).
 *
 * In split mode (project api-split) the context process is an avatar process of the cluster. In
 * one process it is a second platform on the app's database serving only the avatar context, as
 * an avatar process would. (Its outbox relay competes with the app's for avatar events; no test
 * here needs them.)
 */
import { afterAll, beforeAll, expect, test } from 'vitest'
import { loadConfig } from '../src/config.js'
import { generateSigningJwk } from '../src/platform/auth/keys.js'
import { SYSTEM } from '../src/platform/auth/principal.js'
import { buildPlatform } from '../src/server.js'
import { freePort } from '../src/platform/net/free-port.js'
import { buildTestApp, splitTarget, type TestApp } from './support/app.js'
import { backend } from './support/backends.js'
import { newPlayer } from './support/players.js'
import { send, type OwnSplitTestApp, type SplitTestApp } from './support/split-app.js'
import { tokensSignedWith } from './support/tokens.js'

type Request = { method?: 'GET' | 'POST'; url: string; headers?: Record<string, string>; payload?: object }
interface Answer {
  statusCode: number
  headers: Record<string, string | string[] | number | undefined>
  body: string
  json(): any // eslint-disable-line @typescript-eslint/no-explicit-any -- as light-my-request's
}

/** A process serving the avatar context, reached without the gateway. */
interface AvatarProcess {
  send(req: Request): Promise<Answer>
  /** A service token signed with the process's configured key (in one process only). */
  ownServiceToken?: () => Promise<string>
  close(): Promise<void>
}

const sharedKey = JSON.stringify(await generateSigningJwk())
let app: TestApp
let avatarProcess: AvatarProcess

beforeAll(async () => {
  // Split: a cluster of its own, since one of its avatar processes is restarted with another key.
  app = await buildTestApp({ env: { JWT_PRIVATE_KEY: sharedKey }, ownCluster: true })
  avatarProcess = splitTarget
    ? overHttp((app as SplitTestApp).cluster.of('avatar')[0]!.url)
    : await avatarPlatformBeside(app, { JWT_PRIVATE_KEY: sharedKey })
})
afterAll(async () => {
  await avatarProcess?.close()
  await app?.close()
})

function overHttp(url: string): AvatarProcess {
  return { send: (req) => send(url, req), close: async () => {} }
}

async function avatarPlatformBeside(beside: TestApp, env: Record<string, string>): Promise<AvatarProcess> {
  const config = loadConfig({ LOG_LEVEL: 'silent', JOBS_ENABLED: 'false', ...env })
  const platform = await buildPlatform({ config, logger: false, database: beside.database, clock: beside.clock, only: ['avatar'] })
  return {
    send: (req) => platform.http.inject(req),
    // The process serves the avatar and calls nothing over HTTP: it holds no private key, so the test signs.
    ownServiceToken: async () => (await (await tokensSignedWith(env.JWT_PRIVATE_KEY)).issue(SYSTEM.userId, 'service')).token,
    close: () => platform.http.close(),
  }
}

/** An access token for the user signed with a key no Questline process holds. */
async function forgedToken(userId: string): Promise<string> {
  return (await (await tokensSignedWith(undefined)).issue(userId, 'player')).token
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` })

test('a token logged out at the gateway is refused straight at a context process once the logout has answered', async () => {
  const p = await newPlayer(app)
  const ownAvatar: Request = { url: `/api/v1/avatars/${p.avatarId}`, headers: p.auth }
  expect((await avatarProcess.send(ownAvatar)).statusCode).toBe(200)

  const loggedOutAt = Date.now()
  const logout = await app.inject({ method: 'POST', url: '/auth/logout', headers: p.auth, payload: { refreshToken: p.refreshToken } })
  expect(logout.statusCode, logout.body).toBe(204)
  expect((await app.inject(ownAvatar)).statusCode).toBe(401) // the gateway: at once

  // On PostgreSQL other processes may share the database, and the logout answers once they all
  // refuse the token. The embedded database has one process (here a second platform in it learns
  // at its next poll).
  if (backend() === 'embedded') {
    await expect.poll(async () => (await avatarProcess.send(ownAvatar)).statusCode, { timeout: 2000, interval: 100 }).toBe(401)
  }
  const direct = await avatarProcess.send(ownAvatar)
  expect(direct.statusCode, direct.body).toBe(401)
  expect(direct.json().type).toBe('/problems/invalid-token')
  expect(Date.now() - loggedOutAt).toBeLessThan(2500)
})

test('past the gateway, a request gets the gateway\'s 401 and 403 answers', async () => {
  const [p, other] = await Promise.all([newPlayer(app), newPlayer(app)])
  const avatar = `/api/v1/avatars/${p.avatarId}`
  const cases: { what: string; status: number; req: Request }[] = [
    { what: 'no token', status: 401, req: { url: avatar } },
    { what: 'not a token', status: 401, req: { url: avatar, headers: bearer('not-a-token') } },
    { what: 'a refresh token', status: 401, req: { url: avatar, headers: bearer(p.refreshToken) } },
    { what: 'a token signed with a foreign key', status: 401, req: { url: avatar, headers: bearer(await forgedToken(p.userId)) } },
    {
      what: 'changing another player\'s avatar', status: 403,
      req: { method: 'POST', url: `/api/v1/avatars/${other.avatarId}/money/earn`, headers: p.auth, payload: { amount: 1 } },
    },
  ]
  for (const c of cases) {
    const [viaGateway, direct] = [await app.inject(c.req), await avatarProcess.send(c.req)]
    expect([viaGateway.statusCode, direct.statusCode], c.what).toEqual([c.status, c.status])
    expect(direct.headers['content-type'], c.what).toMatch(/^application\/problem\+json/)
    expect(direct.json().type, c.what).toBe(viaGateway.json().type)
  }
})

test('a route only services call answers at its context\'s process; the gateway never forwards it (404 problem+json)', async () => {
  const p = await newPlayer(app)
  const owner: Request = { url: `/internal/v1/avatars/${p.avatarId}/owner`, headers: bearer(await app.issueToken(SYSTEM.userId, 'service')) }
  const direct = await avatarProcess.send(owner)
  expect(direct.statusCode, direct.body).toBe(200)
  expect(direct.json()).toEqual({ userId: p.userId })
  // In one process the app serves the avatar itself (and so its internal routes); the gateway is the split shape's.
  if (!splitTarget) return
  const viaGateway = await app.inject(owner)
  expect(viaGateway.statusCode, viaGateway.body).toBe(404)
  expect(viaGateway.headers['content-type']).toMatch(/^application\/problem\+json/)
})

test.skipIf(splitTarget)('with the edge\'s keys out of reach, a token signed elsewhere is a 503, and the process\'s own tokens still pass', async () => {
  const p = await newPlayer(app)
  const unreachable = `http://127.0.0.1:${await freePort()}/auth/jwks.json`
  const loner = await avatarPlatformBeside(app, { JWT_PRIVATE_KEY: JSON.stringify(await generateSigningJwk()), JWKS_URL: unreachable })
  try {
    const res = await loner.send({ url: `/api/v1/avatars/${p.avatarId}`, headers: p.auth })
    expect(res.statusCode, res.body).toBe(503)
    expect(res.json().type).toBe('/problems/service-unavailable')
    const own = await loner.send({ url: `/api/v1/avatars/${p.avatarId}`, headers: bearer(await loner.ownServiceToken!()) })
    expect(own.statusCode, own.body).toBe(200)
  } finally {
    await loner.close()
  }
})

// Last in the file: in split mode it restarts an avatar process with a key of its own.
test('a context process with a key of its own accepts the gateway\'s tokens, verified from the gateway\'s JWKS', async () => {
  const p = await newPlayer(app)
  const ownKey = JSON.stringify(await generateSigningJwk())
  const apart = await avatarProcessWithKey(ownKey)
  try {
    const res = await apart.send({ url: `/api/v1/avatars/${p.avatarId}`, headers: p.auth })
    expect(res.statusCode, res.body).toBe(200)
    expect(res.json().id).toBe(p.avatarId)
    const forged = await apart.send({ url: `/api/v1/avatars/${p.avatarId}`, headers: bearer(await forgedToken(p.userId)) })
    expect(forged.statusCode).toBe(401)
  } finally {
    await apart.close()
  }
})

/** An avatar process whose signing key is not the gateway's: it knows the gateway's only from JWKS_URL. */
async function avatarProcessWithKey(key: string): Promise<AvatarProcess> {
  if (splitTarget) {
    // The cluster gives every context process the gateway's JWKS_URL; only the key changes.
    const own = app as OwnSplitTestApp
    const replica = own.cluster.of('avatar').at(-1)!
    await own.cluster.kill(replica)
    return overHttp((await own.restart(replica, { JWT_PRIVATE_KEY: key })).url)
  }
  const gateway = await app.http.listen({ port: 0, host: '127.0.0.1' })
  return avatarPlatformBeside(app, { JWT_PRIVATE_KEY: key, JWKS_URL: `${gateway}/auth/jwks.json` })
}
