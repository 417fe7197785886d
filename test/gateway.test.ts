import { createServer } from 'node:http'
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
  const upstreams = Object.fromEntries(['AVATAR', 'TRACKING', 'GUILD', 'QUEST', 'MARKETPLACE'].map((c) => [`UPSTREAM_${c}`, nowhere]))
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

test('a replica answering 503 (draining): reads and keyed writes go once more, to the other replica, body whole; other writes get the 503', async ({ onTestFinished }) => {
  const draining = await replicaAnswering(() => 503, onTestFinished)
  const up = await replicaAnswering((method) => (method === 'GET' ? 200 : 204), onTestFinished)
  const two = await buildTestApp({ only: ['edge'], env: { UPSTREAM_AVATAR: `${draining.url},${up.url}` } })
  onTestFinished(() => two.close())
  const at = await two.http.listen({ port: 0, host: '127.0.0.1' })
  const userId = newId()
  const headers = { authorization: `Bearer ${await two.issueToken(userId, 'player')}`, 'content-type': 'application/json' }
  const earn = `${at}/api/v1/avatars/${userId}/money/earn`
  const body = JSON.stringify({ amount: 7 })
  const plainWrites: number[] = []
  // Round-robin over the two: each kind of request meets the draining replica first now and then.
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
  expect(plainRefused).toBeGreaterThan(0)
  expect(posts(draining.received)).toBeGreaterThan(plainRefused)
  for (const r of [...draining.received, ...up.received].filter((x) => x.method === 'POST')) expect(r.body).toBe(body)
})
