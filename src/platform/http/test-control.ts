/**
 * Routes that let a black-box test drive a process it cannot reach into (split services): set
 * the clock, deliver pending events, run a job now. Registered only with TEST_CONTROL=true,
 * never in a deployment; hidden from the API document.
 */
import type { FastifyInstance } from 'fastify'
import type { SettableClock } from '../clock.js'
import { BadRequest, NotFound } from '../errors.js'
import type { EventBus } from '../events/bus.js'
import type { OutboxRelay } from '../events/relay.js'
import type { Scheduler } from '../jobs/scheduler.js'

export interface Controls {
  clock: SettableClock
  relay: OutboxRelay
  bus: EventBus
  scheduler: Scheduler
}

export function registerTestControls(app: FastifyInstance, c: Controls): void {
  const hide = { schema: { hide: true } }
  app.post('/_test/clock', hide, async (req) => {
    const at = (req.body as { now?: unknown } | undefined)?.now
    if (at !== null && typeof at !== 'string') throw new BadRequest('Send {now: ISO instant} or {now: null} for the system clock.')
    c.clock.set(at === null ? undefined : new Date(at))
    return { now: c.clock.now().toISOString() }
  })
  app.post('/_test/settle', hide, async () => {
    await c.relay.drain()
    return { pending: await c.bus.pending() }
  })
  app.post('/_test/jobs/:name', hide, async (req) => {
    const { name } = req.params as { name: string }
    if (!c.scheduler.has(name)) throw new NotFound('Job', name)
    await c.scheduler.runNow(name)
    return { ran: name }
  })
}
