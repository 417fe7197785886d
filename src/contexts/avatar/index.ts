import type { FastifyPluginAsync } from 'fastify'
import type { EconomyMode } from '../../config.js'
import type { Clock } from '../../platform/clock.js'
import type { Database } from '../../platform/db/database.js'
import { Outbox } from '../../platform/events/outbox.js'
import { AvatarApp } from './app/avatar-app.js'
import { inProcessAvatarClient, type AvatarClient } from './client.js'
import { avatarRoutes } from './http/avatar-routes.js'
import { itemRoutes } from './http/item-routes.js'
import { outbox as outboxTable } from './store/tables.js'
import { SYSTEM } from '../../platform/auth/principal.js'
import { NotFound } from '../../platform/errors.js'
import type { Subscription } from '../../platform/events/bus.js'
import type { DomainEvent } from '../../platform/events/outbox.js'
import { batchMetrics } from '../../platform/http/metrics.js'
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
  // An event's effect on one avatar is a keyed change (the key names the event and the avatar), so a
  // redelivery answers as the first delivery did; and concurrent deliveries for one avatar batch.
  const key = (e: DomainEvent, avatarId: string) => `event:${e.id}:${avatarId}`
  const reward = (e: DomainEvent, avatarId: string, r: { experience: number; money: number }) => unlessGone(app.rewardFromPlay(avatarId, r, key(e, avatarId)))
  const damage = (e: DomainEvent, avatarId: string, amount: number) => unlessGone(app.damage(SYSTEM, avatarId, amount, key(e, avatarId)))
  // An event about an avatar deleted since has nothing left to change.
  const unlessGone = (work: Promise<unknown>) => work.then(() => undefined, (e: unknown) => { if (!(e instanceof NotFound)) throw e })
  const subscription: Subscription = {
    consumer: 'avatar',
    handlers: {
      tracking: {
        HabitAttended: (e) => reward(e, (e as HabitAttended).payload.avatarId, (e as HabitAttended).payload.reward),
        HabitMissed: (e) => damage(e, (e as HabitMissed).payload.avatarId, (e as HabitMissed).payload.damage),
      },
      guild: {
        BattleWon: async (e) => {
          const { participants, reward: r } = (e as BattleWon).payload
          await Promise.all(participants.map((id) => reward(e, id, r)))
        },
        BattleLost: async (e) => {
          const { participants, penalty } = (e as BattleLost).payload
          await Promise.all(participants.map((id) => damage(e, id, penalty)))
        },
        BossStruckBack: (e) => damage(e, (e as BossStruckBack).payload.avatarId, (e as BossStruckBack).payload.damage),
      },
      quest: {
        QuestCompleted: (e) => reward(e, (e as QuestCompleted).payload.avatarId, (e as QuestCompleted).payload.reward),
      },
    },
  }
  const metrics = batchMetrics('avatar_command', 'avatar changes', () => app.batchStats)
  return { name: 'avatar' as const, routes, client, outbox, subscription, metrics }
}
