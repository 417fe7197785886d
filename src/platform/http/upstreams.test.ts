import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { freePort } from '../net/free-port.js'
import { UpstreamPool } from './upstreams.js'

test('takes the healthy upstreams in turn, leaving out one marked down', () => {
  const pool = new UpstreamPool('avatar', ['http://a', 'http://b', 'http://c'])
  pool.markDown('http://b')
  expect([pool.pick(), pool.pick(), pool.pick(), pool.pick()]).toEqual(['http://a', 'http://c', 'http://a', 'http://c'])
})

test('with none known healthy (peers still starting), tries each in turn rather than refusing', () => {
  const pool = new UpstreamPool('avatar', ['http://a', 'http://b'])
  pool.markDown('http://a')
  pool.markDown('http://b')
  expect([pool.pick(), pool.pick(), pool.pick()]).toEqual(['http://a', 'http://b', 'http://a'])
})

test('another than the one that failed: a healthy other, else any other, else the only one there is', () => {
  const pool = new UpstreamPool('avatar', ['http://a', 'http://b', 'http://c'])
  pool.markDown('http://c')
  expect([pool.another('http://a'), pool.another('http://a')]).toEqual(['http://b', 'http://b'])
  pool.markDown('http://b')
  expect(new Set([pool.another('http://a'), pool.another('http://a')])).toEqual(new Set(['http://b', 'http://c']))
  expect(new UpstreamPool('avatar', ['http://a']).another('http://a')).toBe('http://a')
})

test("a request about an aggregate goes to its partition's owner, and on to the next in rank once that one is down", () => {
  const pool = new UpstreamPool('avatar', ['http://a', 'http://b', 'http://c'])
  const ranked = pool.ranked('avatar-1')
  expect([...ranked].sort()).toEqual(['http://a', 'http://b', 'http://c'])
  expect([pool.pick('avatar-1'), pool.pick('avatar-1')]).toEqual([ranked[0], ranked[0]])
  const changes: string[][] = []
  pool.onChange(() => changes.push(pool.healthy()))
  pool.markDown(ranked[0]!)
  expect(pool.pick('avatar-1')).toBe(ranked[1])
  expect(pool.ranked('avatar-1')).toEqual(ranked.slice(1))
  expect(changes).toEqual([ranked.slice(1).sort()])
})

test('another attempt about an aggregate goes to the next in rank after the one that failed, before it is known to be down', () => {
  const pool = new UpstreamPool('avatar', ['http://a', 'http://b', 'http://c'])
  const ranked = pool.ranked('avatar-1')
  expect(pool.another(ranked[0]!, 'avatar-1')).toBe(ranked[1])
  expect(pool.another(ranked[1]!, 'avatar-1')).toBe(ranked[0])
})

describe('health checks', () => {
  let server: Server
  let live: string
  let checks = 0
  /** While set, the server answers its health check after this many ms. */
  let lateBy = 0
  beforeAll(async () => {
    server = createServer((req, res) => {
      if (req.url === '/healthz') checks++
      setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}'), lateBy)
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    live = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  })
  afterAll(() => new Promise((resolve) => server.close(resolve)))

  test('a pool checked once used costs no check until its first pick; then it leaves out an upstream that does not answer', async () => {
    const nobody = `http://127.0.0.1:${await freePort()}`
    const pool = new UpstreamPool('avatar', [live, nobody])
    try {
      pool.checkHealthOnceUsed()
      checks = 0
      await new Promise((r) => setTimeout(r, 300))
      expect(checks).toBe(0)
      expect(pool.healthy()).toEqual([live, nobody]) // optimistic until a check says otherwise
      pool.pick()
      await expect.poll(() => pool.healthy(), { timeout: 5_000 }).toEqual([live])
      expect(checks).toBeGreaterThan(0)
    } finally {
      pool.stop()
    }
  })

  test('a stopped pool checks no more, used or not', async () => {
    const pool = new UpstreamPool('avatar', [live])
    pool.checkHealthOnceUsed()
    pool.stop()
    checks = 0
    pool.pick()
    await new Promise((r) => setTimeout(r, 300))
    expect(checks).toBe(0)
  })

  test('one late answer is forgiven; the second in a row marks the upstream down, and an answer in time brings it back', async () => {
    const pool = new UpstreamPool('avatar', [live])
    const changes: string[][] = []
    pool.onChange(() => changes.push(pool.healthy()))
    try {
      lateBy = 1_500 // past the check's 1 s
      checks = 0
      pool.startHealthChecks()
      await expect.poll(() => checks, { timeout: 5_000 }).toBe(2) // the second round has asked
      expect(changes).toEqual([]) // the first late answer changed nothing
      await expect.poll(() => pool.healthy(), { timeout: 5_000 }).toEqual([])
      lateBy = 0
      await expect.poll(() => pool.healthy(), { timeout: 5_000 }).toEqual([live])
      expect(changes).toEqual([[], [live]])
    } finally {
      pool.stop()
      lateBy = 0
    }
  }, 20_000)
})
