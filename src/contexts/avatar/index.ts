import type { FastifyPluginAsync } from 'fastify'
import type { EconomyMode } from '../../config.js'
import type { Clock } from '../../platform/clock.js'
import type { Database } from '../../platform/db/database.js'
import { Outbox } from '../../platform/events/outbox.js'
import { AvatarApp } from './app/avatar-app.js'
import { inProcessAvatarClient, type AvatarClient } from './client.js'
import { avatarRoutes } from './http/avatar-routes.js'
import { itemRoutes } from './http/item-routes.js'
import { inbox, outbox as outboxTable } from './store/tables.js'
import { SYSTEM } from '../../platform/auth/principal.js'
import { NotFound } from '../../platform/errors.js'
import type { Subscription } from '../../platform/events/bus.js'
import { exactlyOnce } from '../../platform/events/inbox.js'
import type { BattleLost, BattleWon, BossStruckBack } from '../guild/events.js'
import type { QuestCompleted } from '../quest/events.js'
import type { HabitAttended, HabitMissed } from '../tracking/events.js'

/** The avatar context as a module: its use cases, its API routes and its port for others. */
export function avatarContext(deps: { database: Database; clock: Clock; economyMode: EconomyMode }) {
  const outbox = new Outbox('avatar', outboxTable, deps.clock, deps.database)
  const app = new AvatarApp({ ...deps, outbox })
  const routes: FastifyPluginAsync = async (f) => {
    await f.register(avatarRoutes, { app })
    await f.register(itemRoutes, { app })
  }
  const client: AvatarClient = inProcessAvatarClient(app, deps.database)
  const once = (handle: Parameters<typeof exactlyOnce>[3]) => exactlyOnce(deps.database, inbox, deps.clock, handle)
  // An event about an avatar deleted since has nothing left to change.
  const unlessGone = (work: Promise<unknown>) => work.then(() => undefined, (e: unknown) => { if (!(e instanceof NotFound)) throw e })
  const subscription: Subscription = {
    consumer: 'avatar',
    handlers: {
      tracking: {
        HabitAttended: once((e) => unlessGone(app.rewardFromPlay((e as HabitAttended).payload.avatarId, (e as HabitAttended).payload.reward))),
        HabitMissed: once((e) => unlessGone(app.damage(SYSTEM, (e as HabitMissed).payload.avatarId, (e as HabitMissed).payload.damage))),
      },
      guild: {
        BattleWon: once(async (e) => {
          const { participants, reward } = (e as BattleWon).payload
          for (const id of participants) await unlessGone(app.rewardFromPlay(id, reward))
        }),
        BattleLost: once(async (e) => {
          const { participants, penalty } = (e as BattleLost).payload
          for (const id of participants) await unlessGone(app.damage(SYSTEM, id, penalty))
        }),
        BossStruckBack: once((e) => unlessGone(app.damage(SYSTEM, (e as BossStruckBack).payload.avatarId, (e as BossStruckBack).payload.damage))),
      },
      quest: {
        QuestCompleted: once((e) => unlessGone(app.rewardFromPlay((e as QuestCompleted).payload.avatarId, (e as QuestCompleted).payload.reward))),
      },
    },
  }
  return { name: 'avatar' as const, routes, client, outbox, subscription }
}
