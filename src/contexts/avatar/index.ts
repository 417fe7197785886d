import type { EconomyMode } from '../../config.js'
import type { AvatarDraft } from '../../contracts/events/avatar.js'
import { AccountDeleted } from '../../contracts/events/edge.js'
import { BattleLost, BattleWon, BossStruckBack } from '../../contracts/events/guild.js'
import { QuestCompleted } from '../../contracts/events/quest.js'
import { HabitAttended, HabitMissed } from '../../contracts/events/tracking.js'
import { SYSTEM } from '../../platform/auth/principal.js'
import type { Clock } from '../../platform/clock.js'
import type { Database } from '../../platform/db/database.js'
import { NotFound } from '../../platform/errors.js'
import { effectKey, on, onParticipants } from '../../platform/events/contract.js'
import { exactlyOnce } from '../../platform/events/inbox.js'
import { inboxPruning } from '../../platform/events/retention.js'
import { Outbox, type DomainEvent } from '../../platform/events/outbox.js'
import { batchMetrics } from '../../platform/http/metrics.js'
import { daysBefore, pruning } from '../../platform/jobs/retention.js'
import { contextModule } from '../../platform/module.js'
import { AvatarApp } from './app/avatar-app.js'
import { httpAvatarClient, inProcessAvatarClient, type AvatarClient } from './client.js'
import type { Completion } from './domain/habit-effects.js'
import { EARNINGS_KEPT_DAYS } from './domain/rules.js'
import { avatarRoutes } from './http/avatar-routes.js'
import { earningsRoutes } from './http/earnings-routes.js'
import { avatarExportRoutes } from './http/export-routes.js'
import { itemRoutes } from './http/item-routes.js'
import { avatarServiceRoutes } from './http/service-routes.js'
import { avatarRepo } from './store/avatars.js'
import { earningsRepo } from './store/earnings.js'
import { appliedCalls, closedAccounts, earnings, inbox, outbox as outboxTable } from './store/tables.js'
import { AVATAR_PROBLEMS } from './http/problem-types.js'

/** The avatar context: the RPG avatar, its stats, wallet, inventory and equipment. */
export const avatarModule = contextModule({
  name: 'avatar',
  problemTypes: AVATAR_PROBLEMS,
  calls: [],
  remotePort: httpAvatarClient,
  routes: (app: AvatarApp) => ({
    apiRoutes: async (f) => {
      await f.register(avatarRoutes, { app })
      await f.register(itemRoutes, { app })
    },
    internalRoutes: async (f) => {
      await f.register(avatarServiceRoutes, { app })
      await f.register(avatarExportRoutes, { app })
      await f.register(earningsRoutes, { app })
    },
  }),
  build(deps: { database: Database; clock: Clock; config: { economyMode: EconomyMode } }) {
    const outbox = new Outbox<AvatarDraft>('avatar', outboxTable, deps.clock, deps.database)
    const app = new AvatarApp({ database: deps.database, clock: deps.clock, outbox, economyMode: deps.config.economyMode })
    // An event's effect on one avatar is a keyed change (the key names the event and the avatar), so
    // a redelivery answers as the first delivery did; and concurrent deliveries for one avatar batch.
    const key = (e: DomainEvent, avatarId: string) => effectKey(e.id, avatarId)
    const reward = (e: DomainEvent, avatarId: string, r: { experience: number; money: number }) => unlessGone(app.rewardFromPlay(avatarId, r, key(e, avatarId)))
    const damage = (e: DomainEvent, avatarId: string, amount: number) => unlessGone(app.damage(SYSTEM, avatarId, amount, key(e, avatarId)))
    const port: AvatarClient = inProcessAvatarClient(app, deps.database)
    return {
      handlers: app,
      outbox,
      port,
      consumers: [
        on(HabitAttended, (e) => unlessGone(app.rewardCompletion(e.payload.avatarId, completionOf(e.payload), key(e, e.payload.avatarId)))),
        on(HabitMissed, (e) => unlessGone(app.settleMissedWindow(e.payload.avatarId, e.payload, key(e, e.payload.avatarId)))),
        onParticipants(BattleWon, async (e, avatarIds) => void (await Promise.all(avatarIds.map((id) => reward(e, id, e.payload.reward))))),
        onParticipants(BattleLost, async (e, avatarIds) => void (await Promise.all(avatarIds.map((id) => damage(e, id, e.payload.penalty))))),
        on(BossStruckBack, (e) => damage(e, e.payload.avatarId, e.payload.damage)),
        on(QuestCompleted, (e) => reward(e, e.payload.avatarId, e.payload.reward)),
        on(AccountDeleted, exactlyOnce(deps.database, inbox, deps.clock, (e) => app.deleteAllOf(e.payload.userId))),
      ],
      // The keys of events' effects stand in for an inbox: kept as long as an inbox row would be.
      prune: [
        pruning(appliedCalls, (h, limit) => avatarRepo.deleteAppliedCallsBefore(deps.database.db, h.deliveries, limit)),
        inboxPruning(deps.database, inbox),
        pruning(closedAccounts, (h, limit) => avatarRepo.deleteClosedAccountsBefore(deps.database.db, h.retention, limit)),
        // Earnings answer reports of the last EARNINGS_KEPT_DAYS (a year's, and then some).
        pruning(earnings, (h, limit) => earningsRepo.pruneSome(deps.database.db, daysBefore(h.now, EARNINGS_KEPT_DAYS), limit)),
      ],
      metrics: batchMetrics('avatar_command', 'avatar changes', () => app.batchStats),
    }
  },
})

/** What a HabitAttended pays for. One written without `windowCompleted` made its window done. */
const completionOf = (p: HabitAttended['payload']): Completion => ({ reward: p.reward, streak: p.streak, windowCompleted: p.windowCompleted !== false })

/** An event about an avatar deleted since has nothing left to change. */
const unlessGone = (work: Promise<unknown>): Promise<void> => work.then(() => undefined, (e: unknown) => {
  if (!(e instanceof NotFound)) throw e
})
