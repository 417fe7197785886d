import { pino } from 'pino'
import { expect, test } from 'vitest'
import type { Logger } from '../log.js'
import { MetricsSampler } from './metrics-sampler.js'
import { PLATFORM_PROBLEMS } from './problem-types.js'
import { createHttpServer } from './server.js'

/** The `remoteAddress` each request's log line carries, and the `req.ip` its handler saw, for requests from `peer`. */
async function clientAddresses(trustProxy: string[], requests: { peer: string; forwardedFor?: string }[]) {
  const lines: { msg: string; req?: { remoteAddress?: string } }[] = []
  const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) }) as unknown as Logger
  const app = await createHttpServer({ logger, title: 'test', readiness: {}, processMetrics: false, reads: new MetricsSampler(60_000), trustProxy, problemTypes: PLATFORM_PROBLEMS })
  app.get('/who', async (req) => ({ ip: req.ip }))
  try {
    const seen: string[] = []
    for (const r of requests) {
      const res = await app.inject({ url: '/who', remoteAddress: r.peer, headers: r.forwardedFor ? { 'x-forwarded-for': r.forwardedFor } : {} })
      seen.push(res.json().ip)
    }
    const logged = lines.filter((l) => l.msg === 'incoming request').map((l) => l.req?.remoteAddress)
    return { seen, logged }
  } finally {
    await app.close()
  }
}

test('the client address walks X-Forwarded-For back only through trusted hops, and the request log carries it', async () => {
  const { seen, logged } = await clientAddresses(['127.0.0.1', '10.0.0.0/8'], [
    { peer: '127.0.0.1', forwardedFor: '203.0.113.7' },
    // Two trusted hops: the load balancer (10.1.2.3) forwarded for the client.
    { peer: '127.0.0.1', forwardedFor: '203.0.113.7, 10.1.2.3' },
    // An untrusted hop ends the walk: what it said came before is not believed.
    { peer: '127.0.0.1', forwardedFor: '203.0.113.7, 198.51.100.1' },
    // A peer not trusted: its header changes nothing.
    { peer: '192.0.2.9', forwardedFor: '203.0.113.7' },
    { peer: '127.0.0.1' },
  ])
  const expected = ['203.0.113.7', '203.0.113.7', '198.51.100.1', '192.0.2.9', '127.0.0.1']
  expect(seen).toEqual(expected)
  expect(logged).toEqual(expected)
})

test('trusting nobody, the client address is the peer whatever X-Forwarded-For says', async () => {
  const { seen, logged } = await clientAddresses([], [{ peer: '127.0.0.1', forwardedFor: '203.0.113.7' }, { peer: '192.0.2.9', forwardedFor: '10.0.0.1' }])
  expect(seen).toEqual(['127.0.0.1', '192.0.2.9'])
  expect(logged).toEqual(['127.0.0.1', '192.0.2.9'])
})
