import type { FastifyPluginAsync } from 'fastify'
import type { Clock } from '../../platform/clock.js'
import type { Database } from '../../platform/db/database.js'
import type { Subscription } from '../../platform/events/bus.js'
import { exactlyOnce } from '../../platform/events/inbox.js'
import { Outbox } from '../../platform/events/outbox.js'
import type { Job } from '../../platform/jobs/scheduler.js'
import type { AvatarClient } from '../avatar/client.js'
import type { AvatarDeleted } from '../avatar/events.js'
import { TrackingApp } from './app/tracking-app.js'
import { inProcessTrackingClient, type TrackingClient } from './client.js'
import { MISSED_JOB_EVERY_MS } from './domain/rules.js'
import { habitRoutes } from './http/routes.js'
import { trackingServiceRoutes } from './http/service-routes.js'
import { inbox, outbox as outboxTable } from './store/tables.js'

export const MISSED_WINDOWS_JOB = 'tracking.missed-windows'

/** The tracking context: habits, their windows and completions, rewards and penalties as events. */
export function trackingContext(deps: { database: Database; clock: Clock; avatars: AvatarClient }) {
  const outbox = new Outbox('tracking', outboxTable, deps.clock, deps.database)
  const app = new TrackingApp({ ...deps, outbox })
  const routes: FastifyPluginAsync = async (f) => {
    await f.register(habitRoutes, { app })
    await f.register(trackingServiceRoutes, { app })
  }
  const once = (handle: Parameters<typeof exactlyOnce>[3]) => exactlyOnce(deps.database, inbox, deps.clock, handle)
  const subscription: Subscription = {
    consumer: 'tracking',
    handlers: {
      avatar: {
        AvatarDeleted: once((e) => app.deleteHabitsOfAvatar((e as AvatarDeleted).payload.avatarId)),
      },
    },
  }
  const jobs: Job[] = [{ name: MISSED_WINDOWS_JOB, everyMs: MISSED_JOB_EVERY_MS, run: async () => void (await app.judgeMissedWindows()) }]
  const client: TrackingClient = inProcessTrackingClient(app, deps.database)
  return { name: 'tracking' as const, routes, client, outbox, subscription, jobs }
}
