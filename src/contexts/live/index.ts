import { lt } from 'drizzle-orm'
import { AvatarChanged, AvatarCreated, AvatarDeleted, AvatarDied, AvatarLeveledUp, LeagueResult, MissedWindowSettled } from '../../contracts/events/avatar.js'
import { AccountDeleted } from '../../contracts/events/edge.js'
import {
  BattleCancelled, BattleLost, BattleStarted, BattleTurnTaken, BattleWon, GuildCreated, GuildDisbanded, GuildMessageDeleted, GuildMessagePosted, InviteSent,
  InviteWithdrawn, MemberJoined, MemberLeft, MemberRolesChanged,
} from '../../contracts/events/guild.js'
import { NotificationCreated, type LiveDraft } from '../../contracts/events/live.js'
import { ItemBought, ItemSold } from '../../contracts/events/marketplace.js'
import { QuestCompleted, QuestExpired } from '../../contracts/events/quest.js'
import { HabitAttended, HabitCreated, HabitDeleted, HabitMissed, HabitReminderDue } from '../../contracts/events/tracking.js'
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
import { contextModule, type ContextParts } from '../../platform/module.js'
import { failed, KeyedBatcher, succeeded } from '../../platform/writer/batcher.js'
import type { AvatarClient } from '../avatar/client.js'
import { InboxApp } from './app/inbox-app.js'
import { httpLiveClient, inProcessLiveClient } from './client.js'
import { StreamApp } from './app/stream-app.js'
import { StreamHub } from './app/stream-hub.js'
import { WebhookApp } from './app/webhook-app.js'
import { EndpointDirectory } from './app/webhook-directory.js'
import { WebhookSender } from './app/webhook-sender.js'
import * as notification from './domain/notification.js'
import type { NotificationDraft } from './domain/notification.js'
import {
  NOTIFICATION_RETENTION_DAYS, STREAM_CATCH_UP_MS, STREAM_HISTORY_EVENTS, STREAM_HISTORY_MINUTES, STREAM_WATCH_RENEW_MS, WEBHOOK_DIRECTORY_TTL_MS,
} from './domain/rules.js'
import * as audience from './domain/stream.js'
import type { Audience } from './domain/stream.js'
import { WEBHOOK_EVENT_TYPES } from './domain/webhook.js'
import { liveExportRoutes } from './http/export-routes.js'
import { inboxRoutes } from './http/routes.js'
import { streamRoutes } from './http/stream-routes.js'
import { webhookRoutes } from './http/webhook-routes.js'
import { guildMemberRepo } from './store/guild-members.js'
import { streamHistory, type NewEntry } from './store/stream-history.js'
import { inbox, notifications, outbox as outboxTable, streamEvents, streamTickets, webhookDeliveries } from './store/tables.js'
import { webhookDeliveryRepo, webhookEndpointRepo, type NewDelivery } from './store/webhooks.js'
import { LIVE_PROBLEMS } from './http/problem-types.js'

/** Membership changes the live context follows, applied around recording an event (so its audience is right). */
interface Follow<P> {
  before?: (tx: Tx, payloads: P[]) => Promise<void>
  after?: (tx: Tx, payloads: P[]) => Promise<void>
}

/** The live context: what the player is told of as it happens (DESIGN §9.2): the inbox and the stream. */
export const liveModule = contextModule({
  name: 'live',
  problemTypes: LIVE_PROBLEMS,
  calls: ['avatar'],
  remotePort: httpLiveClient,
  routes: (h: { inbox: InboxApp; stream: StreamApp; webhooks: WebhookApp }) => ({
    apiRoutes: async (f) => {
      await f.register(inboxRoutes, { app: h.inbox })
      await f.register(streamRoutes, { app: h.stream })
      await f.register(webhookRoutes, { app: h.webhooks })
    },
    internalRoutes: async (f) => {
      await f.register(liveExportRoutes, { app: h.inbox })
    },
  }),
  build(deps: { database: Database; clock: Clock; broadcast: Broadcast; revocations: RevocationList; config: { streamHeartbeatMs: number; webhookAllowPrivate: boolean; webhookTimeoutMs: number }; ports: { avatar: AvatarClient } }) {
    const { database, clock } = deps
    const outbox = new Outbox<LiveDraft>('live', outboxTable, clock, database)
    const app = new InboxApp({ database, clock, avatars: deps.ports.avatar, outbox })
    const hub = new StreamHub({
      after: (avatarId, seq, limit) => streamHistory.after(database, avatarId, seq, limit),
      lastSeqs: (avatarIds) => streamHistory.lastSeqs(database, avatarIds),
      watch: (avatarIds) => streamHistory.watch(database, avatarIds, new Date(clock.now().getTime() + STREAM_HISTORY_MINUTES * 60_000)),
    }, clock, (g) => deps.revocations.isRevoked(g.tokenId, g.tokenIssuedAt === undefined ? undefined : { userId: g.userId, issuedAt: g.tokenIssuedAt }), {
      heartbeatMs: deps.config.streamHeartbeatMs, catchUpMs: STREAM_CATCH_UP_MS, watchRenewMs: STREAM_WATCH_RENEW_MS,
    })
    const stream = new StreamApp({ database, clock, avatars: deps.ports.avatar, broadcast: deps.broadcast, hub })
    const directory = new EndpointDirectory(() => webhookEndpointRepo.anyEnabled(database.db), deps.broadcast, WEBHOOK_DIRECTORY_TTL_MS)
    const sender = new WebhookSender({
      database, clock, timeoutMs: deps.config.webhookTimeoutMs, allowPrivate: deps.config.webhookAllowPrivate,
      notify: (tx, drafts) => app.notify(tx, drafts), disabled: () => directory.changed(),
    })
    const webhooks = new WebhookApp({
      database, clock, avatars: deps.ports.avatar, directory, allowPrivate: deps.config.webhookAllowPrivate, wake: () => sender.wake(),
    })
    /** The event types the consumers below offer to webhooks: checked against WEBHOOK_EVENT_TYPES once they are made. */
    const offered = new Set<string>()

    /** An event as a stream or a webhook takes it, with the audience it concerns. */
    const draftOf = <E extends DomainEvent>(e: E, to: Audience) => ({ eventId: e.id, audience: to, type: e.type, occurredAt: e.occurredAt, payload: e.payload })
    /**
     * Each event of `contract` becomes the notifications `draft` makes of it, and the webhook
     * deliveries its audience's endpoints ask for (read before the transaction), once, in a batch's
     * transaction with its inbox rows.
     */
    const notifying = <C extends EventContract>(
      contract: C, to: (payload: EventOf<C>['payload']) => Audience, draft: (payload: EventOf<C>['payload']) => NotificationDraft | NotificationDraft[],
    ): EventHandler<C> => {
      offered.add(contract.type)
      const applyOnce = exactlyOnceInBatches<EventOf<C> & { deliveries: NewDelivery[] }>(database, inbox, clock, async (events, tx) => {
        await app.notify(tx, events.flatMap((e) => draft(e.payload)))
        await webhooks.record(tx, events.flatMap((e) => e.deliveries))
      })
      return on(contract, async (e) => {
        const deliveries = await webhooks.deliveriesFor([draftOf(e, to(e.payload))])
        await applyOnce({ ...e, deliveries: deliveries.get(e.id) ?? [] })
      })
    }
    type WithEntries<E extends DomainEvent> = E & { entries: NewEntry[]; deliveries: NewDelivery[] }
    /**
     * Each event of `contract` goes to the streams of its audience when one of them is watched, and
     * makes its notifications if `draft` is given (then every event applies, once: one consumer per
     * event type, so an event both notified and streamed is handled in one transaction), and the
     * webhook deliveries its audience's endpoints ask for. Concurrent deliveries are looked at
     * together: who is watched and whose endpoints want it are read before any transaction opens
     * (in one process a read outside the open transaction would wait for it), and only events with
     * something to write open one, with their inbox rows. The guild membership the live context
     * follows is brought up to date around it (idempotent writes: a redelivery repeats them).
     */
    const streaming = <C extends EventContract>(
      contract: C, to: (payload: EventOf<C>['payload']) => Audience,
      opts: Follow<EventOf<C>['payload']> & { draft?: (payload: EventOf<C>['payload']) => NotificationDraft | NotificationDraft[] } = {},
    ): EventHandler<C> => {
      const { draft, before, after } = opts
      offered.add(contract.type)
      const applyOnce = exactlyOnceInBatches<WithEntries<EventOf<C>>>(database, inbox, clock, async (events, tx) => {
        if (draft) await app.notify(tx, events.flatMap((e) => draft(e.payload)))
        await stream.append(tx, events.flatMap((e) => e.entries))
        await webhooks.record(tx, events.flatMap((e) => e.deliveries))
      })
      const deliveries = new KeyedBatcher<EventOf<C>, void>(async (_, events) => {
        const payloads = events.map((e) => e.payload)
        if (before) await database.transaction((tx) => before(tx, payloads))
        const drafts = events.map((e) => draftOf(e, to(e.payload)))
        const [entries, webhooked] = await Promise.all([stream.watchedEntries(drafts), webhooks.deliveriesFor(drafts)])
        const outcomes = await Promise.all(events.map(async (e) => {
          const own = entries.filter((x) => x.eventId === e.id).map(({ eventId: _, ...entry }) => entry)
          const sends = webhooked.get(e.id) ?? []
          if (!draft && own.length === 0 && sends.length === 0) return succeeded(undefined)
          return applyOnce({ ...e, entries: own, deliveries: sends }).then(() => succeeded(undefined), failed)
        }))
        if (after) await database.transaction((tx) => after(tx, payloads))
        return outcomes
      })
      return on(contract, (event) => deliveries.submit('deliveries', event))
    }
    /** Whose avatars are whose, for webhooks: followed from the avatar's events, forgotten with the account. */
    const following = <C extends EventContract>(contract: C, apply: (tx: Tx, payloads: EventOf<C>['payload'][]) => Promise<void>): EventHandler<C> =>
      on(contract, exactlyOnceInBatches<EventOf<C>>(database, inbox, clock, (events, tx) => apply(tx, events.map((e) => e.payload))))
    const parts = {
      handlers: { inbox: app, stream, webhooks },
      // Open streams end with the server (their clients reconnect), and so do attempts under way
      // (they are made again once their leases run out).
      preClose: async () => {
        hub.close()
        await sender.close()
      },
      outbox,
      port: inProcessLiveClient(app, database),
      consumers: [
        streaming(AvatarLeveledUp, audience.toAvatar, { draft: notification.leveledUp }),
        streaming(AvatarDied, audience.toAvatar, { draft: notification.died }),
        streaming(LeagueResult, audience.toAvatar, { draft: notification.leagueResult }),
        // A missed window is told once the avatar has settled it: with damage, or with a streak freeze.
        streaming(MissedWindowSettled, audience.toAvatar, { draft: notification.missedWindowSettled }),
        notifying(HabitReminderDue, audience.toAvatar, notification.reminded),
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
        streaming(BattleCancelled, audience.toGuildAndParticipants),
        streaming(MemberRolesChanged, audience.toGuild),
        streaming(GuildMessagePosted, audience.toGuild, { draft: notification.mentioned }),
        streaming(GuildMessageDeleted, audience.toGuild),
        streaming(GuildCreated, audience.toLeader, { before: (tx, ps) => guildMemberRepo.join(tx, ps.map((p) => ({ avatarId: p.leaderAvatarId, guildId: p.guildId }))) }),
        streaming(MemberJoined, audience.toGuild, { before: (tx, ps) => guildMemberRepo.join(tx, ps.map((p) => ({ avatarId: p.avatarId, guildId: p.guildId }))) }),
        streaming(MemberLeft, audience.toGuildAndMember, { before: async (tx, ps) => { for (const p of ps) await guildMemberRepo.leave(tx, p.avatarId, p.guildId) } }),
        streaming(GuildDisbanded, audience.toGuild, { after: async (tx, ps) => { for (const p of ps) await guildMemberRepo.disband(tx, p.guildId) } }),
        following(AvatarCreated, (tx, ps) => webhooks.avatarsCreated(tx, ps)),
        following(AvatarDeleted, async (tx, ps) => {
          const avatarIds = ps.map((p) => p.avatarId)
          await app.forget(tx, avatarIds)
          await webhooks.avatarsDeleted(tx, avatarIds)
        }),
        following(AccountDeleted, (tx, ps) => webhooks.accountsDeleted(tx, ps.map((p) => p.userId))),
      ],
      jobs: [sender.job],
      metrics: sender.metrics,
      prune: [
        inboxPruning(database, inbox),
        pruning(notifications, (h, limit) => deleteSome(database.db, notifications, notifications.id,
          lt(notifications.createdAt, daysBefore(h.now, NOTIFICATION_RETENTION_DAYS)), limit)),
        pruning(streamEvents, (h, limit) => streamHistory.pruneSome(database, {
          before: new Date(h.now.getTime() - STREAM_HISTORY_MINUTES * 60_000), keep: STREAM_HISTORY_EVENTS, retention: h.retention,
        }, limit)),
        pruning(streamTickets, (h, limit) => stream.pruneTickets(h.now, limit)),
        pruning(webhookDeliveries, (h, limit) => webhookDeliveryRepo.pruneSome(database, h.retention, limit)),
      ],
    } satisfies ContextParts<unknown, unknown>
    const unoffered = WEBHOOK_EVENT_TYPES.filter((t) => !offered.has(t))
    const listed = new Set<string>(WEBHOOK_EVENT_TYPES)
    const unlisted = [...offered].filter((t) => !listed.has(t))
    if (unoffered.length + unlisted.length > 0) throw new Error(`WEBHOOK_EVENT_TYPES and the live consumers disagree: ${[...unoffered, ...unlisted].join(', ')}`)
    return parts
  },
})
