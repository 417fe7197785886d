import { eq, sql } from 'drizzle-orm'
import type { Queryable, Tx } from '../../../../platform/db/database.js'
import { calendarFeeds } from '../../store/tables.js'

/** An account's calendar feed, found by the SHA-256 of its secret (the secret itself is never stored). */
export const calendarFeedRepo = {
  /** Makes the account's feed answer to this hash alone; true when it had none before. */
  async replace(tx: Tx, userId: string, secretHash: string, at: Date): Promise<boolean> {
    const [row] = await tx.insert(calendarFeeds).values({ userId, secretHash, createdAt: at })
      .onConflictDoUpdate({ target: calendarFeeds.userId, set: { secretHash, createdAt: at } })
      // A row the statement inserted has no deleting transaction id; one it updated has its own.
      .returning({ created: sql<boolean>`(xmax = 0)` })
    return row!.created
  },

  async delete(q: Queryable, userId: string): Promise<void> {
    await q.delete(calendarFeeds).where(eq(calendarFeeds.userId, userId))
  },

  async ownerOf(q: Queryable, secretHash: string): Promise<string | undefined> {
    const [row] = await q.select({ userId: calendarFeeds.userId }).from(calendarFeeds).where(eq(calendarFeeds.secretHash, secretHash))
    return row?.userId
  },
}
