import { text, timestamp, uuid, type PgSchema } from 'drizzle-orm/pg-core'
import type { Clock } from '../clock.js'
import type { Database, Tx } from '../db/database.js'
import type { DomainEvent } from './outbox.js'


/** Ids of the events a consuming context has applied, one row each. */
export function inboxTable(schema: PgSchema) {
  return schema.table('inbox', {
    eventId: uuid('event_id').primaryKey(),
    type: text('type').notNull(),
    handledAt: timestamp('handled_at', { withTimezone: true, mode: 'date' }).notNull(),
  })
}

export type InboxTable = ReturnType<typeof inboxTable>

/**
 * Wraps a consumer's handler so its effect and the record of the event commit together: a
 * redelivered event finds its id and does nothing. Use cases called by the handler join the
 * transaction.
 */
export function exactlyOnce(
  database: Database,
  inbox: InboxTable,
  clock: Clock,
  handle: (event: DomainEvent, tx: Tx) => Promise<void>,
): (event: DomainEvent) => Promise<void> {
  return (event) =>
    database.transaction(async (tx) => {
      const fresh = await tx.insert(inbox).values({ eventId: event.id, type: event.type, handledAt: clock.now() })
        .onConflictDoNothing().returning({ id: inbox.eventId })
      if (fresh.length === 0) return
      await handle(event, tx)
    })
}
