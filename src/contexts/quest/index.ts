import type { FastifyPluginAsync } from 'fastify'
import type { Clock } from '../../platform/clock.js'
import type { Database } from '../../platform/db/database.js'
import type { Subscription } from '../../platform/events/bus.js'
import { exactlyOnce } from '../../platform/events/inbox.js'
import { Outbox, type DomainEvent } from '../../platform/events/outbox.js'
import type { Job } from '../../platform/jobs/scheduler.js'
import type { AvatarClient } from '../avatar/client.js'
import type { AvatarDeleted } from '../avatar/events.js'
import type { GuildClient } from '../guild/client.js'
import type { TrackingClient } from '../tracking/client.js'
import type { HabitAttended } from '../tracking/events.js'
import { QuestApp } from './app/quest-app.js'
import { EXPIRE_JOB_EVERY_MS, JOIN_RECOVERY_JOB_EVERY_MS } from './domain/rules.js'
import { questRoutes } from './http/routes.js'
import { inbox, outbox as outboxTable } from './store/tables.js'

export const EXPIRE_JOB = 'quest.expire-participations'
export const FINISH_JOINS_JOB = 'quest.finish-joins'

/** The quest context: quests, their habit entries, participations, progress and payouts (as events). */
export function questContext(deps: { database: Database; clock: Clock; avatars: AvatarClient; tracking: TrackingClient; guilds: GuildClient }) {
  const outbox = new Outbox('quest', outboxTable, deps.clock, deps.database)
  const app = new QuestApp({ ...deps, outbox })
  const routes: FastifyPluginAsync = async (f) => {
    await f.register(questRoutes, { app })
  }
  const once = (handle: Parameters<typeof exactlyOnce>[3]) => exactlyOnce(deps.database, inbox, deps.clock, handle)
  // Most completions are of personal habits: those need no inbox row here.
  const onlyQuestHabits = (handle: (e: DomainEvent) => Promise<void>) => async (e: DomainEvent) => {
    if ((e as HabitAttended).payload.questId !== null) await handle(e)
  }
  const subscription: Subscription = {
    consumer: 'quest',
    handlers: {
      tracking: { HabitAttended: onlyQuestHabits(once((e) => app.recordCompletion(e as HabitAttended))) },
      avatar: { AvatarDeleted: once((e) => app.forgetAvatar((e as AvatarDeleted).payload.avatarId)) },
    },
  }
  const jobs: Job[] = [
    { name: EXPIRE_JOB, everyMs: EXPIRE_JOB_EVERY_MS, run: async () => void (await app.expireParticipations()) },
    { name: FINISH_JOINS_JOB, everyMs: JOIN_RECOVERY_JOB_EVERY_MS, run: () => app.finishJoins() },
  ]
  return { name: 'quest' as const, routes, outbox, subscription, jobs }
}
