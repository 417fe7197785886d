import type { FastifyPluginAsync } from 'fastify'
import type { EconomyMode } from '../../config.js'
import type { Clock } from '../../platform/clock.js'
import type { Database } from '../../platform/db/database.js'
import { Outbox } from '../../platform/events/outbox.js'
import { AvatarApp } from './app/avatar-app.js'
import { inProcessAvatarClient, type AvatarClient } from './client.js'
import { avatarRoutes } from './http/avatar-routes.js'
import { itemRoutes } from './http/item-routes.js'
import { outbox } from './store/tables.js'

/** The avatar context as a module: its use cases, its API routes and its port for others. */
export function avatarContext(deps: { database: Database; clock: Clock; economyMode: EconomyMode }) {
  const app = new AvatarApp({ ...deps, outbox: new Outbox(outbox, deps.clock) })
  const routes: FastifyPluginAsync = async (f) => {
    await f.register(avatarRoutes, { app })
    await f.register(itemRoutes, { app })
  }
  const client: AvatarClient = inProcessAvatarClient(app)
  return { name: 'avatar' as const, routes, client }
}
