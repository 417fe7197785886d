import { index, text, timestamp, uuid, type PgSchema } from 'drizzle-orm/pg-core'
import type { Clock } from '../clock.js'
import type { Database, Tx } from '../db/database.js'
import type { DomainEvent } from './outbox.js'
import { failed, KeyedBatcher, succeeded } from '../writer/batcher.js'

/** Ids of the events a consuming context has applied, one row each (kept for the retention period: events/retention.ts). */
export function inboxTable(schema: PgSchema) {
  return schema.table('inbox', {
    eventId: uuid('event_id').primaryKey(),
    type: text('type').notNull(),
    handledAt: timestamp('handled_at', { withTimezone: true, mode: 'date' }).notNull(),
  }, (t) => [index().on(t.handledAt)])
}

export type InboxTable = ReturnType<typeof inboxTable>

/**
 * Wraps a consumer's handler so its effect and the record of the event commit together: a
 * redelivered event finds its id and does nothing. Use cases called by the handler join the
 * transaction. Deliveries that arrive while one is being applied are applied together, in one
 * transaction with their inbox rows; should that fail, each is applied alone, so one bad event
 * does not hold back the others.
 */
export function exactlyOnce<E extends DomainEvent>(
  database: Database,
  inbox: InboxTable,
  clock: Clock,
  handle: (event: E, tx: Tx) => Promise<void>,
): (event: E) => Promise<void> {
  return exactlyOnceInBatches<E>(database, inbox, clock, async (events, tx) => {
    for (const event of events) await handle(event, tx)
  })
}

/** The same, for a handler that applies the fresh events of a batch at once (fewer statements). */
export function exactlyOnceInBatches<E extends DomainEvent>(
  database: Database,
  inbox: InboxTable,
  clock: Clock,
  handleAll: (events: E[], tx: Tx) => Promise<void>,
): (event: E) => Promise<void> {
  const applyTogether = (events: E[]) =>
    database.transaction(async (tx) => {
      const handledAt = clock.now()
      const fresh = await tx.insert(inbox).values(events.map((e) => ({ eventId: e.id, type: e.type, handledAt })))
        .onConflictDoNothing().returning({ id: inbox.eventId })
      const due = new Set(fresh.map((r) => r.id))
      // A delivery and its redelivery may share a batch: the first applies, the second finds it done.
      const toApply = events.filter((e) => due.delete(e.id))
      if (toApply.length > 0) await handleAll(toApply, tx)
    })
  const batcher = new KeyedBatcher<E, void>(async (_, events) => {
    try {
      await applyTogether(events)
      return events.map(() => succeeded(undefined))
    } catch (e) {
      if (events.length === 1) return [failed(e)]
      return Promise.all(events.map((event) => applyTogether([event]).then(() => succeeded(undefined), failed)))
    }
  })
  return (event) => batcher.submit('deliveries', event)
}
