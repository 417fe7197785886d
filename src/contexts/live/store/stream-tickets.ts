import { eq, lt } from 'drizzle-orm'
import type { Database, Queryable } from '../../../platform/db/database.js'
import { deleteSome } from '../../../platform/db/bounded-delete.js'
import { streamTickets } from './tables.js'

type StreamTicketRow = typeof streamTickets.$inferSelect

export const streamTicketRepo = {
  async insert(q: Queryable, row: StreamTicketRow): Promise<void> {
    await q.insert(streamTickets).values(row)
  },

  /** Takes the ticket with this hash: at most one caller ever gets it, on any replica. */
  async take(q: Queryable, hash: string): Promise<StreamTicketRow | undefined> {
    const [row] = await q.delete(streamTickets).where(eq(streamTickets.hash, hash)).returning()
    return row
  },

  pruneSome(database: Database, before: Date, limit: number): Promise<number> {
    return deleteSome(database.db, streamTickets, streamTickets.hash, lt(streamTickets.expiresAt, before), limit)
  },
}
