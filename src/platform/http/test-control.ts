/**
 * Routes that let a black-box test drive a process it cannot reach into (split services): set
 * the clock, deliver pending events, run a job now, read the values of /metrics now. Registered only by `serve --test-controls`
 * (a command-line flag: no inherited setting can turn them on), on a loopback address; never in a
 * deployment; hidden from the API document; every use is logged as a warning.
 */
import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import type { SettableClock } from '../clock.js'
import { NotFound } from '../errors.js'
import type { EventBus } from '../events/bus.js'
import type { OutboxRelay } from '../events/relay.js'
import type { Scheduler } from '../jobs/scheduler.js'
import type { Logger } from '../log.js'
import type { MetricsSampler } from './metrics-sampler.js'

interface Controls {
  clock: SettableClock
  relay: OutboxRelay
  bus: EventBus
  scheduler: Scheduler
  sampler: MetricsSampler
  log: Logger | undefined
}

const ClockBody = Type.Object({
  now: Type.Union([Type.String({ format: 'date-time', description: 'An ISO 8601 instant with its offset' }), Type.Null()]),
}, { additionalProperties: false })

/** Hosts a test-controlled process may listen on: only this machine can reach its controls. */
export function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127(\.\d{1,3}){3}$/.test(host)
}

export function registerTestControls(app: FastifyInstance, c: Controls): void {
  const hide = { hide: true }
  c.log?.warn('test controls are on (/_test/clock, /_test/settle, /_test/jobs, /_test/metrics-sample): for tests only, never in a deployment')
  app.addHook('onRequest', async (req) => {
    if (req.url.startsWith('/_test/')) c.log?.warn({ method: req.method, url: req.url }, 'test control used')
  })
  app.post('/_test/clock', { schema: { ...hide, body: ClockBody } }, async (req) => {
    const { now } = req.body as { now: string | null }
    c.clock.set(now === null ? undefined : new Date(now))
    return { now: c.clock.now().toISOString() }
  })
  app.post('/_test/settle', { schema: hide }, async () => {
    await c.relay.drain()
    // What is behind, per consumer and durable, says where a settle that never comes is stuck
    // (events undelivered with no pull waiting: a pull lost; unacknowledged and in hand: a handler).
    const isBehind = (b: { undelivered: number; unacknowledged: number }) => b.undelivered + b.unacknowledged > 0
    const behind = (await c.bus.backlog()).filter(isBehind).map((b) => ({ ...b, durables: b.durables.filter(isBehind) }))
    return { pending: behind.reduce((n, b) => n + b.undelivered + b.unacknowledged, 0), behind }
  })
  // /metrics answers the last background reading: a test asks for a fresh one before it scrapes.
  app.post('/_test/metrics-sample', { schema: hide }, async () => {
    await c.sampler.sampleNow()
    return { sampled: true }
  })
  app.post('/_test/jobs/:name', { schema: hide }, async (req) => {
    const { name } = req.params as { name: string }
    if (!c.scheduler.has(name)) throw new NotFound('Job', name)
    await c.scheduler.runNow(name)
    return { ran: name }
  })
}
