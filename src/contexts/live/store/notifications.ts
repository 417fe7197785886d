import { and, asc, count, desc, eq, gt, inArray, isNull, lt, sql } from 'drizzle-orm'
import type { Queryable } from '../../../platform/db/database.js'
import type { Notification, NotificationType } from '../domain/notification.js'
import { notifications } from './tables.js'

type Row = typeof notifications.$inferSelect

const toNotification = (r: Row): Notification => ({
  id: r.id, seq: r.seq, avatarId: r.avatarId, type: r.type as NotificationType, title: r.title, body: r.body,
  data: r.data as Record<string, unknown>, createdAt: r.createdAt, readAt: r.readAt,
})

export const notificationRepo = {
  async insert(q: Queryable, rows: Omit<Notification, 'seq' | 'readAt'>[]): Promise<void> {
    if (rows.length > 0) await q.insert(notifications).values(rows)
  },

  /** A page of an avatar's notifications, newest first, those older than `beforeSeq` when given. */
  async page(q: Queryable, avatarId: string, unreadOnly: boolean, limit: number, beforeSeq?: number): Promise<Notification[]> {
    const rows = await q.select().from(notifications)
      .where(and(
        eq(notifications.avatarId, avatarId),
        unreadOnly ? isNull(notifications.readAt) : undefined,
        beforeSeq === undefined ? undefined : lt(notifications.seq, beforeSeq),
      ))
      .orderBy(desc(notifications.seq)).limit(limit)
    return rows.map(toNotification)
  },

  /** A page of an avatar's notifications, oldest first, those after position `afterSeq` when given (its owner's export). */
  async exportPage(q: Queryable, avatarId: string, limit: number, afterSeq?: number): Promise<Notification[]> {
    const rows = await q.select().from(notifications)
      .where(and(eq(notifications.avatarId, avatarId), afterSeq === undefined ? undefined : gt(notifications.seq, afterSeq)))
      .orderBy(asc(notifications.seq)).limit(limit)
    return rows.map(toNotification)
  },

  /** Where a notification of this avatar stands in its inbox (cursors name the last one of a page). */
  async positionOf(q: Queryable, avatarId: string, id: string): Promise<number | undefined> {
    const [row] = await q.select({ seq: notifications.seq }).from(notifications)
      .where(and(eq(notifications.id, id), eq(notifications.avatarId, avatarId)))
    return row?.seq
  },

  async unreadCount(q: Queryable, avatarId: string): Promise<number> {
    const [row] = await q.select({ n: count() }).from(notifications).where(and(eq(notifications.avatarId, avatarId), isNull(notifications.readAt)))
    return row?.n ?? 0
  },

  /** Marks one read (a second time keeps the first time); false when the avatar has no such notification. */
  async markRead(q: Queryable, avatarId: string, id: string, at: Date): Promise<boolean> {
    const rows = await q.update(notifications).set({ readAt: sql`coalesce(${notifications.readAt}, ${at.toISOString()}::timestamptz)` })
      .where(and(eq(notifications.id, id), eq(notifications.avatarId, avatarId))).returning({ id: notifications.id })
    return rows.length > 0
  },

  /** Deletes every notification of these avatars (they were deleted). */
  async deleteOfAvatars(q: Queryable, avatarIds: string[]): Promise<void> {
    if (avatarIds.length > 0) await q.delete(notifications).where(inArray(notifications.avatarId, avatarIds))
  },

  async markAllRead(q: Queryable, avatarId: string, at: Date): Promise<void> {
    await q.update(notifications).set({ readAt: at }).where(and(eq(notifications.avatarId, avatarId), isNull(notifications.readAt)))
  },
}
