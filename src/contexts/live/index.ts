import { lt } from 'drizzle-orm'
import type { RevocationList } from '../../platform/auth/revocations.js'
import type { Clock } from '../../platform/clock.js'
import { deleteSome } from '../../platform/db/bounded-delete.js'
import type { Database, Tx } from '../../platform/db/database.js'
import type { Broadcast } from '../../platform/events/broadcast.js'
import { on, type EventContract, type EventHandler, type EventOf } from '../../platform/events/contract.js'
import { exactlyOnceInBatches } from '../../platform/events/inbox.js'
import { Outbox, type DomainEvent } from '../../platform/events/outbox.js'
import { inboxPruning } from '../../platform/events/retention.js'
import { daysBefore, pruning } from '../../platform/jobs/retention.js'
import { contextModule } from '../../platform/module.js'
import { failed, KeyedBatcher, succeeded } from '../../platform/batcher.js'
import type { AvatarClient } from '../avatar/client.js'
import { AvatarChanged, AvatarDied, AvatarLeveledUp, MissedWindowSettled } from '../avatar/events.js'
import {
  BattleCancelled, BattleLost, BattleStarted, BattleTurnTaken, BattleWon, GuildCreated, GuildDisbanded, InviteSent, InviteWithdrawn, MemberJoined, MemberLeft,
  MemberRolesChanged,
} from '../guild/events.js'
import { ItemBought, ItemSold } from '../marketplace/events.js'
import { QuestCompleted, QuestExpired } from '../quest/events.js'
import { HabitAttended, HabitCreated, HabitDeleted, HabitMissed, HabitReminderDue } from '../tracking/events.js'
import { InboxApp } from './app/inbox-app.js'
import { StreamApp } from './app/stream-app.js'
import { StreamHub } from './app/stream-hub.js'
import * as notification from './domain/notification.js'
import type { NotificationDraft } from './domain/notification.js'
import { NOTIFICATION_RETENTION_DAYS, STREAM_CATCH_UP_MS, STREAM_HISTORY_EVENTS, STREAM_HISTORY_MINUTES, STREAM_WATCH_RENEW_MS } from './domain/rules.js'
import * as audience from './domain/stream.js'
import type { Audience } from './domain/stream.js'
import { NotificationCreated, type LiveDraft } from './events.js'
import { inboxRoutes } from './http/routes.js'
import { streamRoutes } from './http/stream-routes.js'
import { guildMemberRepo } from './store/guild-members.js'
import { streamHistory, type NewEntry } from './store/stream-history.js'
import { inbox, notifications, outbox as outboxTable, streamEvents, streamTickets } from './store/tables.js'

/** Membership changes the live context follows, applied around recording an event (so its audience is right). */
interface Follow<P> {
  before?: (tx: Tx, payloads: P[]) => Promise<void>
  after?: (tx: Tx, payloads: P[]) => Promise<void>
}

/** The live context: what the player is told of as it happens (DESIGN §9.2): the inbox and the stream. */
export const liveModule = contextModule({
  name: 'live',
  build(deps: { database: Database; clock: Clock; broadcast: Broadcast; revocations: RevocationList; config: { streamHeartbeatMs: number }; ports: { avatar: AvatarClient } }) {
    const { database, clock } = deps
    const outbox = new Outbox<LiveDraft>('live', outboxTable, clock, database)
    const app = new InboxApp({ database, clock, avatars: deps.ports.avatar, outbox })
    const hub = new StreamHub({
      after: (avatarId, seq, limit) => streamHistory.after(database, avatarId, seq, limit),
      lastSeqs: (avatarIds) => streamHistory.lastSeqs(database, avatarIds),
      watch: (avatarIds) => streamHistory.watch(database, avatarIds, new Date(clock.now().getTime() + STREAM_HISTORY_MINUTES * 60_000)),
    }, clock, (tokenId) => deps.revocations.isRevoked(tokenId), {
      heartbeatMs: deps.config.streamHeartbeatMs, catchUpMs: STREAM_CATCH_UP_MS, watchRenewMs: STREAM_WATCH_RENEW_MS,
    })
    const stream = new StreamApp({ database, clock, avatars: deps.ports.avatar, broadcast: deps.broadcast, hub })

    /** Each event of `contract` becomes the notifications `draft` makes of it, once, in a batch's transaction with its inbox rows. */
    const notifying = <C extends EventContract>(contract: C, draft: (payload: EventOf<C>['payload']) => NotificationDraft | NotificationDraft[]): EventHandler =>
      on(contract, exactlyOnceInBatches<EventOf<C>>(database, inbox, clock, (events, tx) => app.notify(tx, events.flatMap((e) => draft(e.payload))))) as EventHandler
    type WithEntries = DomainEvent & { entries: NewEntry[] }
    /**
     * Each event of `contract` goes to the streams of its audience when one of them is watched, and
     * makes its notifications if `draft` is given (then every event applies, once: one consumer per
     * event type, so an event both notified and streamed is handled in one transaction). Concurrent
     * deliveries are looked at together: who is watched is read before any transaction opens (in
     * one process a read outside the open transaction would wait for it), and only events with
     * something to write open one, with their inbox rows. The guild membership the live context
     * follows is brought up to date around it (idempotent writes: a redelivery repeats them).
     */
    const streaming = <C extends EventContract>(
      contract: C, to: (payload: EventOf<C>['payload']) => Audience,
      opts: Follow<EventOf<C>['payload']> & { draft?: (payload: EventOf<C>['payload']) => NotificationDraft | NotificationDraft[] } = {},
    ): EventHandler => {
      const { draft, before, after } = opts
      const applyOnce = exactlyOnceInBatches<WithEntries>(database, inbox, clock, async (events, tx) => {
        if (draft) await app.notify(tx, events.flatMap((e) => draft(e.payload as EventOf<C>['payload'])))
        await stream.append(tx, events.flatMap((e) => e.entries))
      })
      const deliveries = new KeyedBatcher<EventOf<C>, void>(async (_, events) => {
        const payloads = events.map((e) => e.payload)
        if (before) await database.transaction((tx) => before(tx, payloads))
        const entries = await stream.watchedEntries(events.map((e) => ({ eventId: e.id, audience: to(e.payload), type: e.type, occurredAt: e.occurredAt, payload: e.payload })))
        const outcomes = await Promise.all(events.map(async (e) => {
          const own = entries.filter((x) => x.eventId === e.id).map(({ eventId: _, ...entry }) => entry)
          if (!draft && own.length === 0) return succeeded(undefined)
          return applyOnce({ ...e, entries: own }).then(() => succeeded(undefined), failed)
        }))
        if (after) await database.transaction((tx) => after(tx, payloads))
        return outcomes
      })
      return on(contract, (event) => deliveries.submit('deliveries', event)) as EventHandler
    }
    return {
      apiRoutes: async (f) => {
        await f.register(inboxRoutes, { app })
        await f.register(streamRoutes, { app: stream, closeAll: () => hub.close() })
      },
      outbox,
      consumers: [
        streaming(AvatarLeveledUp, audience.toAvatar, { draft: notification.leveledUp }),
        streaming(AvatarDied, audience.toAvatar, { draft: notification.died }),
        // A missed window is told once the avatar has settled it: with damage, or with a streak freeze.
        streaming(MissedWindowSettled, audience.toAvatar, { draft: notification.missedWindowSettled }),
        notifying(HabitReminderDue, notification.reminded),
        streaming(QuestCompleted, audience.toAvatar, { draft: notification.questCompleted }),
        streaming(QuestExpired, audience.toAvatar, { draft: notification.questExpired }),
        streaming(BattleWon, audience.toGuild, { draft: notification.battleWon }),
        streaming(BattleLost, audience.toGuild, { draft: notification.battleLost }),
        streaming(InviteSent, audience.toInvitee, { draft: notification.invited }),
        streaming(AvatarChanged, audience.toAvatar),
        streaming(HabitAttended, audience.toAvatar),
        streaming(HabitMissed, audience.toAvatar),
        streaming(HabitCreated, audience.toAvatar),
        streaming(HabitDeleted, audience.toAvatar),
        streaming(ItemBought, audience.toAvatar),
        streaming(ItemSold, audience.toAvatar),
        streaming(NotificationCreated, audience.toAvatar),
        streaming(InviteWithdrawn, audience.toGuildAndInvitee),
        streaming(BattleStarted, audience.toGuild),
        streaming(BattleTurnTaken, audience.toGuild),
        streaming(BattleCancelled, audience.toGuild),
        streaming(MemberRolesChanged, audience.toGuild),
        streaming(GuildCreated, audience.toLeader, { before: (tx, ps) => guildMemberRepo.join(tx, ps.map((p) => ({ avatarId: p.leaderAvatarId, guildId: p.guildId }))) }),
        streaming(MemberJoined, audience.toGuild, { before: (tx, ps) => guildMemberRepo.join(tx, ps.map((p) => ({ avatarId: p.avatarId, guildId: p.guildId }))) }),
        streaming(MemberLeft, audience.toGuildAndMember, { before: async (tx, ps) => { for (const p of ps) await guildMemberRepo.leave(tx, p.avatarId, p.guildId) } }),
        streaming(GuildDisbanded, audience.toGuild, { after: async (tx, ps) => { for (const p of ps) await guildMemberRepo.disband(tx, p.guildId) } }),
      ],
      prune: [
        inboxPruning(database, inbox),
        pruning(notifications, (h, limit) => deleteSome(database.db, notifications, notifications.id,
          lt(notifications.createdAt, daysBefore(h.now, NOTIFICATION_RETENTION_DAYS)), limit)),
        pruning(streamEvents, (h, limit) => streamHistory.pruneSome(database, {
          before: new Date(h.now.getTime() - STREAM_HISTORY_MINUTES * 60_000), keep: STREAM_HISTORY_EVENTS, retention: h.retention,
        }, limit)),
        pruning(streamTickets, (h, limit) => stream.pruneTickets(h.now, limit)),
      ],
    }
  },
})
