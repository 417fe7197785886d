import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { freePort } from '../src/platform/net/free-port.js'
import { newId } from '../src/platform/ids.js'
import { partition, rankFor } from '../src/platform/ownership/partitions.js'
import { buildTestApp, type TestApp } from './support/app.js'

// A gateway alone on a real port (it forwards over the network), every context's upstream a
// port nothing listens on but the marketplace's: a stand-in that answers {} and keeps what it was sent.
let gateway: TestApp
let base: string
let standIn: Server
/** Every context's upstream: nowhere, but the marketplace's stand-in (the edge calls every context). */
let upstreams: Record<string, string>
/** What reached the stand-in's API (health checks aside). */
const received: IncomingHttpHeaders[] = []
beforeAll(async () => {
  standIn = createServer((req, res) => {
    if (req.url?.startsWith('/api/')) received.push(req.headers)
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}')
  })
  await new Promise<void>((resolve) => standIn.listen(0, '127.0.0.1', resolve))
  const nowhere = `http://127.0.0.1:${await freePort()}`
  const marketplace = `http://127.0.0.1:${(standIn.address() as AddressInfo).port}`
  upstreams = { ...Object.fromEntries(['AVATAR', 'TRACKING', 'GUILD', 'QUEST', 'LIVE'].map((c) => [`UPSTREAM_${c}`, nowhere])), UPSTREAM_MARKETPLACE: marketplace }
  gateway = await buildTestApp({ only: ['edge'], env: upstreams })
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

/** A replica that records what reaches it (its pool's health checks aside) and answers with `status`. */
async function replicaAnswering(status: (method: string) => number, onTestFinished: (fn: () => Promise<void>) => void) {
  const received: { method: string; body: string }[] = []
  const server = createServer((req, res) => {
    let body = ''
    req.on('data', (c: Buffer) => (body += c.toString()))
    req.on('end', () => {
      if (req.url === '/healthz') return void res.writeHead(200).end()
      received.push({ method: req.method!, body })
      const code = status(req.method!)
      res.writeHead(code, { 'content-type': 'application/json' }).end(code === 204 ? undefined : `{"status":${code}}`)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  onTestFinished(() => new Promise<void>((resolve) => server.close(() => resolve())))
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, received }
}

test('the owner answering 503 (draining): reads and keyed writes go once more, to the next replica in rank, body whole; other writes get the 503', async ({ onTestFinished }) => {
  const draining = await replicaAnswering(() => 503, onTestFinished)
  const up = await replicaAnswering((method) => (method === 'GET' ? 200 : 204), onTestFinished)
  const two = await buildTestApp({ only: ['edge'], env: { ...upstreams, UPSTREAM_AVATAR: `${draining.url},${up.url}` } })
  onTestFinished(() => two.close())
  const at = await two.http.listen({ port: 0, host: '127.0.0.1' })
  // An avatar whose partition the draining replica owns: each of its requests meets that one first.
  let userId = newId()
  while (rankFor(partition(userId), [draining.url, up.url])[0] !== draining.url) userId = newId()
  const headers = { authorization: `Bearer ${await two.issueToken(userId, 'player')}`, 'content-type': 'application/json' }
  const earn = `${at}/api/v1/avatars/${userId}/money/earn`
  const body = JSON.stringify({ amount: 7 })
  const plainWrites: number[] = []
  for (let i = 0; i < 4; i++) {
    expect((await fetch(`${at}/api/v1/avatars/${userId}`, { headers })).status).toBe(200)
    expect((await fetch(earn, { method: 'POST', headers: { ...headers, 'idempotency-key': `k-${i}` }, body })).status).toBe(204)
    plainWrites.push((await fetch(earn, { method: 'POST', headers, body })).status)
  }
  const posts = (r: { method: string }[]) => r.filter((x) => x.method === 'POST').length
  const plainRefused = plainWrites.filter((status) => status === 503).length
  expect(plainWrites.filter((status) => status !== 204 && status !== 503)).toEqual([])
  expect(draining.received.some((r) => r.method === 'GET')).toBe(true)
  // Every keyed write reached the other replica once; a plain one only when it was sent there first.
  expect(posts(up.received)).toBe(4 + (4 - plainRefused))
  // The draining replica got plain writes (answered 503, not sent again) and keyed ones (sent again).
  expect(plainRefused).toBe(4)
  expect(posts(draining.received)).toBeGreaterThan(plainRefused)
  for (const r of [...draining.received, ...up.received].filter((x) => x.method === 'POST')) expect(r.body).toBe(body)
})
