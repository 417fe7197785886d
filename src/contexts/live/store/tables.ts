import { sql } from 'drizzle-orm'
import { bigint, bigserial, index, integer, jsonb, pgSchema, primaryKey, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core'
import { inboxTable } from '../../../platform/events/inbox.js'
import { outboxTable } from '../../../platform/events/outbox.js'

export const liveSchema = pgSchema('live')

const instant = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' })

/** A player's inbox: one row per notification of an avatar (kept NOTIFICATION_RETENTION_DAYS). */
export const notifications = liveSchema.table(
  'notifications',
  {
    id: uuid('id').primaryKey(),
    /** Creation order: the inbox lists newest first and pages by it. */
    seq: bigserial('seq', { mode: 'number' }).notNull(),
    avatarId: text('avatar_id').notNull(),
    type: text('type').notNull(),
    title: text('title').notNull(),
    body: text('body').notNull(),
    data: jsonb('data').notNull(),
    createdAt: instant('created_at').notNull(),
    readAt: instant('read_at'),
  },
  (t) => [
    index('notifications_avatar_idx').on(t.avatarId, t.seq),
    // The unread count and the unread list read only these.
    index('notifications_unread_idx').on(t.avatarId, t.seq).where(sql`${t.readAt} is null`),
    index('notifications_created_idx').on(t.createdAt),
  ],
)

/**
 * Each avatar's stream position: the sequence number of its latest stream event (locked to number
 * the next), and until when its events are recorded: a stream open, or closed less than the
 * history window ago. Nobody watching, nothing is recorded; a replay across such a time resyncs.
 */
export const streams = liveSchema.table('streams', {
  avatarId: text('avatar_id').primaryKey(),
  lastSeq: bigint('last_seq', { mode: 'number' }).notNull(),
  watchedUntil: instant('watched_until'),
})

/**
 * Each avatar's recent stream events, numbered 1, 2, 3… per avatar with no gap, so a reconnecting
 * client names the last it saw and gets what followed (kept STREAM_HISTORY_* : see domain/rules.ts).
 */
export const streamEvents = liveSchema.table(
  'stream_events',
  {
    avatarId: text('avatar_id').notNull(),
    seq: bigint('seq', { mode: 'number' }).notNull(),
    type: text('type').notNull(),
    occurredAt: instant('occurred_at').notNull(),
    payload: jsonb('payload').notNull(),
  },
  (t) => [primaryKey({ columns: [t.avatarId, t.seq] }), index('stream_events_occurred_idx').on(t.occurredAt)],
)

/** Single-use stream tickets (for `EventSource`, which cannot send a header): the hash of each, never the ticket. */
export const streamTickets = liveSchema.table(
  'stream_tickets',
  {
    hash: text('hash').primaryKey(),
    avatarId: text('avatar_id').notNull(),
    userId: text('user_id').notNull(),
    /** The token that asked for it: a stream opened with the ticket ends when that token would. */
    tokenId: text('token_id').notNull(),
    /** When that token was issued, so revoking all the account's tokens (its deletion) ends the stream too; null in a ticket written without it (then only that token's own revocation ends the stream). */
    tokenIssuedAt: instant('token_issued_at'),
    tokenExpiresAt: instant('token_expires_at').notNull(),
    expiresAt: instant('expires_at').notNull(),
  },
  (t) => [index('stream_tickets_expires_idx').on(t.expiresAt)],
)

/** Who is in which guild, from the guild's events: a guild's news goes to every member's stream. */
export const guildMembers = liveSchema.table(
  'guild_members',
  {
    avatarId: text('avatar_id').primaryKey(),
    guildId: text('guild_id').notNull(),
  },
  (t) => [index('guild_members_guild_idx').on(t.guildId)],
)

/** Which account each avatar belongs to (AvatarCreated / AvatarDeleted, and filled when an endpoint is made): whose webhooks an event goes to. */
export const accountAvatars = liveSchema.table(
  'account_avatars',
  {
    avatarId: text('avatar_id').primaryKey(),
    userId: uuid('user_id').notNull(),
  },
  (t) => [index('account_avatars_user_idx').on(t.userId)],
)

/** An account's webhook endpoint (DESIGN §9.4): where events of the chosen types are POSTed, signed with its secret. */
export const webhookEndpoints = liveSchema.table(
  'webhook_endpoints',
  {
    id: uuid('id').primaryKey(),
    seq: bigserial('seq', { mode: 'number' }).notNull(),
    userId: uuid('user_id').notNull(),
    url: text('url').notNull(),
    /** Event types delivered. */
    events: jsonb('events').$type<string[]>().notNull(),
    /** The HMAC-SHA256 key (shown to the player once, when the endpoint is made). */
    secret: text('secret').notNull(),
    /** Since when every delivery attempt has failed (null: the last one succeeded); 24 h of it disables the endpoint. */
    failingSince: instant('failing_since'),
    disabledAt: instant('disabled_at'),
    createdAt: instant('created_at').notNull(),
  },
  (t) => [index('webhook_endpoints_user_idx').on(t.userId, t.seq)],
)

/** One event to one endpoint: made once per (endpoint, event), attempted until DELIVERED or FAILED. */
export const webhookDeliveries = liveSchema.table(
  'webhook_deliveries',
  {
    id: uuid('id').primaryKey(),
    seq: bigserial('seq', { mode: 'number' }).notNull(),
    endpointId: uuid('endpoint_id').notNull(),
    eventId: uuid('event_id').notNull(),
    type: text('type').notNull(),
    /** The body POSTed, byte for byte the same on every attempt. */
    body: text('body').notNull(),
    /** PENDING | DELIVERED | FAILED */
    status: text('status').notNull(),
    attempts: integer('attempts').notNull(),
    lastStatusCode: integer('last_status_code'),
    lastError: text('last_error'),
    nextAttemptAt: instant('next_attempt_at'),
    /** A sender has taken it until then (SKIP LOCKED leases: one attempt at a time across replicas). */
    leasedUntil: instant('leased_until'),
    createdAt: instant('created_at').notNull(),
    updatedAt: instant('updated_at').notNull(),
  },
  (t) => [
    uniqueIndex('webhook_deliveries_event_idx').on(t.endpointId, t.eventId),
    index('webhook_deliveries_log_idx').on(t.endpointId, t.seq),
    index('webhook_deliveries_due_idx').on(t.nextAttemptAt).where(sql`${t.status} = 'PENDING'`),
    // The retention job deletes the log by age.
    index('webhook_deliveries_created_idx').on(t.createdAt),
  ],
)

export const outbox = outboxTable(liveSchema)
export const inbox = inboxTable(liveSchema)
