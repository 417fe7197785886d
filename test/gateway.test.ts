import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { freePort } from '../src/platform/net/free-port.js'
import { newId } from '../src/platform/ids.js'
import { buildTestApp, type TestApp } from './support/app.js'

// A gateway alone on a real port (it forwards over the network), every context's upstream a
// port nothing listens on but the marketplace's: a stand-in that answers {} and keeps what it was sent.
let gateway: TestApp
let base: string
let standIn: Server
/** What reached the stand-in's API (health checks aside). */
const received: IncomingHttpHeaders[] = []
beforeAll(async () => {
  standIn = createServer((req, res) => {
    if (req.url?.startsWith('/api/')) received.push(req.headers)
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}')
  })
  await new Promise<void>((resolve) => standIn.listen(0, '127.0.0.1', resolve))
  const nowhere = `http://127.0.0.1:${await freePort()}`
  const upstreams = Object.fromEntries(['AVATAR', 'TRACKING', 'GUILD', 'QUEST', 'LIVE'].map((c) => [`UPSTREAM_${c}`, nowhere]))
  const marketplace = `http://127.0.0.1:${(standIn.address() as AddressInfo).port}`
  gateway = await buildTestApp({ only: ['edge'], env: { ...upstreams, UPSTREAM_MARKETPLACE: marketplace } })
  base = await gateway.http.listen({ port: 0, host: '127.0.0.1' })
})
afterAll(async () => {
  await gateway.close()
  await new Promise((resolve) => standIn.close(resolve))
})

test('the gateway passes the client address on in X-Forwarded-For, appended to what came with the request', async () => {
  const headers = { authorization: `Bearer ${await gateway.issueToken(newId(), 'player')}` }
  received.length = 0
  expect((await fetch(`${base}/api/v1/marketplaces/${newId()}`, { headers })).status).toBe(200)
  expect((await fetch(`${base}/api/v1/marketplaces/${newId()}`, { headers: { ...headers, 'x-forwarded-for': '203.0.113.7' } })).status).toBe(200)
  expect(received.map((h) => h['x-forwarded-for'])).toEqual(['127.0.0.1', '203.0.113.7, 127.0.0.1'])
})

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
