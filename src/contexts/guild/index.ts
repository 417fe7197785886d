import type { FastifyPluginAsync } from 'fastify'
import type { Clock } from '../../platform/clock.js'
import type { Database } from '../../platform/db/database.js'
import type { Subscription } from '../../platform/events/bus.js'
import { exactlyOnce, exactlyOnceInBatches } from '../../platform/events/inbox.js'
import { Outbox } from '../../platform/events/outbox.js'
import type { Job } from '../../platform/jobs/scheduler.js'
import type { AvatarClient } from '../avatar/client.js'
import type { AvatarDeleted } from '../avatar/events.js'
import type { HabitAttended } from '../tracking/events.js'
import { BattleApp } from './app/battle-app.js'
import { GuildApp } from './app/guild-app.js'
import { inProcessGuildClient, type GuildClient } from './client.js'
import { INVITE_EXPIRY_JOB_EVERY_MS } from './domain/rules.js'
import { battleRoutes } from './http/battle-routes.js'
import { guildRoutes } from './http/guild-routes.js'
import { inbox, outbox as outboxTable } from './store/tables.js'

export const EXPIRE_INVITES_JOB = 'guild.expire-invites'

/** The guild context: guilds, members, invites, points and rank, and boss battles. */
export function guildContext(deps: { database: Database; clock: Clock; avatars: AvatarClient }) {
  const outbox = new Outbox('guild', outboxTable, deps.clock, deps.database)
  const guilds = new GuildApp({ ...deps, outbox })
  const battles = new BattleApp({ ...deps, outbox })
  const routes: FastifyPluginAsync = async (f) => {
    await f.register(guildRoutes, { app: guilds })
    await f.register(battleRoutes, { app: battles })
  }
  const client: GuildClient = inProcessGuildClient(guilds, deps.database)
  const once = (handle: Parameters<typeof exactlyOnce>[3]) => exactlyOnce(deps.database, inbox, deps.clock, handle)
  const subscription: Subscription = {
    consumer: 'guild',
    handlers: {
      tracking: {
        HabitAttended: exactlyOnceInBatches(deps.database, inbox, deps.clock, (events) =>
          guilds.awardHabitCompletions(events.map((e) => (e as HabitAttended).payload.avatarId))),
      },
      avatar: { AvatarDeleted: once((e) => guilds.avatarDeleted((e as AvatarDeleted).payload.avatarId)) },
    },
  }
  const jobs: Job[] = [{ name: EXPIRE_INVITES_JOB, everyMs: INVITE_EXPIRY_JOB_EVERY_MS, run: async () => void (await guilds.expireInvites()) }]
  return { name: 'guild' as const, routes, client, outbox, subscription, jobs }
}
