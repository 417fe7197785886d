import type { EconomyMode } from '../../config.js'
import type { AvatarDraft } from '../../contracts/events/avatar.js'
import { AccountDeleted } from '../../contracts/events/edge.js'
import { BattleLost, BattleWon, BossStruckBack } from '../../contracts/events/guild.js'
import { LeagueResult } from '../../contracts/events/avatar.js'
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
import { LeagueApp } from './app/league-app.js'
import { httpAvatarClient, inProcessAvatarClient, type AvatarClient } from './client.js'
import type { Completion } from './domain/habit-effects.js'
import { EARNINGS_KEPT_DAYS, LEAGUE_CLOSE_JOB_EVERY_MS } from './domain/rules.js'
import { avatarRoutes } from './http/avatar-routes.js'
import { boardRoutes } from './http/board-routes.js'
import { earningsRoutes } from './http/earnings-routes.js'
import { avatarExportRoutes } from './http/export-routes.js'
import { itemRoutes } from './http/item-routes.js'
import { leagueRoutes } from './http/league-routes.js'
import { avatarServiceRoutes } from './http/service-routes.js'
import { avatarRepo } from './store/avatars.js'
import { earningsRepo } from './store/earnings.js'
import { appliedCalls, closedAccounts, earnings, inbox, outbox as outboxTable } from './store/tables.js'
import { AVATAR_PROBLEMS } from './http/problem-types.js'

/** The job closing ended league seasons (DESIGN §9.5). */
export const LEAGUE_CLOSE_JOB = 'league-close-seasons'

/** The avatar context: the RPG avatar, its stats, wallet, inventory and equipment. */
export const avatarModule = contextModule({
  name: 'avatar',
  problemTypes: AVATAR_PROBLEMS,
  calls: [],
  remotePort: httpAvatarClient,
  routes: ({ avatars: app, leagues }: { avatars: AvatarApp; leagues: LeagueApp }) => ({
    apiRoutes: async (f) => {
      await f.register(avatarRoutes, { app })
      await f.register(itemRoutes, { app })
      await f.register(leagueRoutes, { leagues })
      await f.register(boardRoutes, { app })
    },
    internalRoutes: async (f) => {
      await f.register(avatarServiceRoutes, { app })
      await f.register(avatarExportRoutes, { app, leagues })
      await f.register(earningsRoutes, { app })
    },
  }),
  build(deps: { database: Database; clock: Clock; config: { economyMode: EconomyMode } }) {
    const outbox = new Outbox<AvatarDraft>('avatar', outboxTable, deps.clock, deps.database)
    const app = new AvatarApp({ database: deps.database, clock: deps.clock, outbox, economyMode: deps.config.economyMode })
    const leagues = new LeagueApp({ database: deps.database, clock: deps.clock, outbox, avatarExists: (id) => app.get(id) })
    // An event's effect on one avatar is a keyed change (the key names the event and the avatar), so
    // a redelivery answers as the first delivery did; and concurrent deliveries for one avatar batch.
    const key = (e: DomainEvent, avatarId: string) => effectKey(e.id, avatarId)
    const reward = (e: DomainEvent, avatarId: string, r: { experience: number; money: number }) => unlessGone(app.rewardFromPlay(avatarId, r, key(e, avatarId)))
    const damage = (e: DomainEvent, avatarId: string, amount: number) => unlessGone(app.damage(SYSTEM, avatarId, amount, key(e, avatarId)))
    const port: AvatarClient = inProcessAvatarClient(app, leagues, deps.database)
    return {
      handlers: { avatars: app, leagues },
      outbox,
      port,
      consumers: [
        on(HabitAttended, (e) => unlessGone(app.rewardCompletion(e.payload.avatarId, completionOf(e.payload), key(e, e.payload.avatarId)))),
        on(HabitMissed, (e) => unlessGone(app.settleMissedWindow(e.payload.avatarId, e.payload, key(e, e.payload.avatarId)))),
        onParticipants(BattleWon, async (e, avatarIds) => void (await Promise.all(avatarIds.map((id) => reward(e, id, e.payload.reward))))),
        onParticipants(BattleLost, async (e, avatarIds) => void (await Promise.all(avatarIds.map((id) => damage(e, id, e.payload.penalty))))),
        on(BossStruckBack, (e) => damage(e, e.payload.avatarId, e.payload.damage)),
        on(QuestCompleted, (e) => reward(e, e.payload.avatarId, e.payload.reward)),
        // A league's reward is paid once per result (the event's key), and scores nothing itself.
        on(LeagueResult, (e) => (e.payload.reward > 0 ? unlessGone(app.payLeagueReward(e.payload.avatarId, e.payload.reward, key(e, e.payload.avatarId))) : Promise.resolve())),
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
      jobs: [{ name: LEAGUE_CLOSE_JOB, everyMs: LEAGUE_CLOSE_JOB_EVERY_MS, run: async () => void (await leagues.closeEndedSeasons()) }],
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
