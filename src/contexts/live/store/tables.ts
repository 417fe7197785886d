import { sql } from 'drizzle-orm'
import { bigserial, index, jsonb, pgSchema, text, timestamp, uuid } from 'drizzle-orm/pg-core'
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

export const outbox = outboxTable(liveSchema)
export const inbox = inboxTable(liveSchema)
