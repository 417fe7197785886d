import { AvatarDeleted } from '../../contracts/events/avatar.js'
import { AccountDeleted } from '../../contracts/events/edge.js'
import type { QuestDraft } from '../../contracts/events/quest.js'
import { HabitAttended } from '../../contracts/events/tracking.js'
import type { Clock } from '../../platform/clock.js'
import type { Database } from '../../platform/db/database.js'
import { on } from '../../platform/events/contract.js'
import { exactlyOnce } from '../../platform/events/inbox.js'
import { inboxPruning } from '../../platform/events/retention.js'
import { Outbox } from '../../platform/events/outbox.js'
import { contextModule } from '../../platform/module.js'
import { NotFound } from '../../platform/errors.js'
import { AggregateWriter } from '../../platform/writer/writer.js'
import type { AvatarClient } from '../avatar/client.js'
import type { GuildClient } from '../guild/client.js'
import type { TrackingClient } from '../tracking/client.js'
import { QuestApp } from './app/quest-app.js'
import type { Participation } from './domain/participation.js'
import { httpQuestClient, inProcessQuestClient, type QuestClient } from './client.js'
import { EXPIRE_JOB_EVERY_MS, JOIN_RECOVERY_JOB_EVERY_MS } from './domain/rules.js'
import { questExportRoutes } from './http/export-routes.js'
import { questRoutes } from './http/routes.js'
import { participationAggregate } from './store/participation-aggregate.js'
import { inbox, outbox as outboxTable } from './store/tables.js'
import { QUEST_PROBLEMS } from './http/problem-types.js'

export const EXPIRE_JOB = 'quest.expire-participations'
export const FINISH_JOINS_JOB = 'quest.finish-joins'

/** The quest context: quests, their habit entries, participations, progress and payouts (as events). */
export const questModule = contextModule({
  name: 'quest',
  problemTypes: QUEST_PROBLEMS,
  calls: ['avatar', 'tracking', 'guild'],
  remotePort: httpQuestClient,
  routes: (app: QuestApp) => ({
    apiRoutes: async (f) => {
      await f.register(questRoutes, { app })
    },
    internalRoutes: async (f) => {
      await f.register(questExportRoutes, { app })
    },
  }),
  build(deps: { database: Database; clock: Clock; ports: { avatar: AvatarClient; tracking: TrackingClient; guild: GuildClient } }) {
    const outbox = new Outbox<QuestDraft>('quest', outboxTable, deps.clock, deps.database)
    const { avatar, tracking, guild } = deps.ports
    const participations = new AggregateWriter<Participation, QuestDraft>(participationAggregate(outbox), {
      database: deps.database, clock: deps.clock, missing: (id) => new NotFound('Participation', id),
    })
    const app = new QuestApp({ database: deps.database, clock: deps.clock, avatars: avatar, tracking, guilds: guild, participations })
    const port: QuestClient = inProcessQuestClient(app, deps.database)
    const recordCompletion = exactlyOnce(deps.database, inbox, deps.clock, (e: HabitAttended) => app.recordCompletion(e))
    const forgetAccount = exactlyOnce(deps.database, inbox, deps.clock, (e: AccountDeleted) => app.forgetAccount(e.payload.userId))
    return {
      handlers: app,
      outbox,
      port,
      consumers: [
        // Most completions are of personal habits: those need no inbox row here.
        on(HabitAttended, async (e) => {
          if (e.payload.questId !== null) await recordCompletion(e)
        }),
        on(AvatarDeleted, exactlyOnce(deps.database, inbox, deps.clock, (e) => app.forgetAvatar(e.payload.avatarId))),
        // Quests are kept by their owner's account, not an avatar: they go with the account. The
        // copies are unlinked after the commit; should tracking fail, the redelivery (or the expiry
        // job) clears the queue.
        on(AccountDeleted, async (e) => {
          await forgetAccount(e)
          await app.unlinkPending()
        }),
      ],
      jobs: [
        { name: EXPIRE_JOB, everyMs: EXPIRE_JOB_EVERY_MS, run: async () => void (await app.expireParticipations()) },
        { name: FINISH_JOINS_JOB, everyMs: JOIN_RECOVERY_JOB_EVERY_MS, run: () => app.finishJoins() },
      ],
      prune: [inboxPruning(deps.database, inbox)],
    }
  },
})
