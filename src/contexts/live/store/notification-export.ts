import { and, asc, eq, gt } from 'drizzle-orm'
import type { Queryable } from '../../../platform/db/database.js'
import type { NotificationExport } from '../http/export-schemas.js'
import { notifications } from './tables.js'

/** A page of an avatar's notifications, oldest first, after the one at position `afterSeq`; `next` is the last one's position. */
export async function notificationExportPage(q: Queryable, avatarId: string, afterSeq: number | undefined, limit: number): Promise<{ items: NotificationExport[]; next: string | null }> {
  const rows = await q.select().from(notifications)
    .where(and(eq(notifications.avatarId, avatarId), afterSeq === undefined ? undefined : gt(notifications.seq, afterSeq)))
    .orderBy(asc(notifications.seq)).limit(limit + 1)
  const page = rows.slice(0, limit)
  return {
    items: page.map((n) => ({
      id: n.id, type: n.type as NotificationExport['type'], title: n.title, body: n.body, data: n.data as Record<string, unknown>,
      createdAt: n.createdAt.toISOString(), readAt: n.readAt?.toISOString() ?? null,
    })),
    next: rows.length > limit ? String(page[page.length - 1]!.seq) : null,
  }
}
