import { afterAll, beforeAll, expect, test } from 'vitest'
import { freePort } from '../src/platform/net/free-port.js'
import { newId } from '../src/platform/ids.js'
import { buildTestApp, type TestApp } from './support/app.js'

// A gateway alone on a real port (it forwards over the network), every context's upstream a
// port nothing listens on.
let gateway: TestApp
let base: string
beforeAll(async () => {
  const nowhere = `http://127.0.0.1:${await freePort()}`
  const upstreams = Object.fromEntries(['AVATAR', 'TRACKING', 'GUILD', 'QUEST', 'MARKETPLACE', 'LIVE'].map((c) => [`UPSTREAM_${c}`, nowhere]))
  gateway = await buildTestApp({ only: ['edge'], env: upstreams })
  base = await gateway.http.listen({ port: 0, host: '127.0.0.1' })
})
afterAll(() => gateway.close())

test('a context with no upstream up answers 503 problem+json, for reads and changes alike', async () => {
  const userId = newId()
  const headers = { authorization: `Bearer ${await gateway.issueToken(userId, 'player')}`, 'content-type': 'application/json' }
  for (const [method, path, body] of [
    ['GET', `/api/v1/avatars/${userId}`],
    ['POST', '/api/v1/guilds', { name: 'Nobody Home', avatarId: userId }],
    ['GET', '/api/v1/quests'],
  ] as const) {
    const res = await fetch(base + path, { method, headers, ...(body ? { body: JSON.stringify(body) } : {}) })
    expect(res.status, `${method} ${path}`).toBe(503)
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/)
    expect(await res.json()).toMatchObject({ status: 503, type: '/problems/service-unavailable' })
  }
})

test('the gateway authenticates before it forwards: no token or a bad one is 401 without an upstream', async () => {
  expect((await fetch(`${base}/api/v1/avatars/${newId()}`)).status).toBe(401)
  expect((await fetch(`${base}/api/v1/avatars/${newId()}`, { headers: { authorization: 'Bearer nonsense' } })).status).toBe(401)
})

test('a route only services call is never forwarded: 404 problem+json from the gateway, to a service token too, and not in its documents', async () => {
  const service = { authorization: `Bearer ${await gateway.issueToken(newId(), 'service')}` }
  for (const path of [`/internal/v1/avatars/${newId()}/owner`, '/internal/v1/exports/avatars?ownerId=' + newId(), `/internal/v1/exports/quests/avatars/${newId()}`]) {
    // Forwarded, it would be a 503: no upstream is up.
    const res = await fetch(base + path, { headers: service })
    expect(res.status, path).toBe(404)
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/)
  }
  const internal = await (await fetch(`${base}/internal/openapi.json`)).json() as { paths: object }
  expect(Object.keys(internal.paths)).toEqual([])
  const publicPaths = Object.keys((await (await fetch(`${base}/openapi.json`)).json() as { paths: object }).paths)
  expect(publicPaths).toContain('/api/v1/avatars/{id}')
  expect(publicPaths.filter((p) => p.startsWith('/internal/'))).toEqual([])
})
