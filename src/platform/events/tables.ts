import { jsonb, primaryKey, text, timestamp, uuid } from 'drizzle-orm/pg-core'
import { platformSchema } from '../db/tables.js'

/**
 * Events a consumer received whose payload does not fit the producer's contract: kept with the
 * reason, never applied and never retried (DESIGN §3).
 */
export const deadLetters = platformSchema.table(
  'dead_letters',
  {
    consumer: text('consumer').notNull(),
    eventId: uuid('event_id').notNull(),
    producer: text('producer').notNull(),
    type: text('type').notNull(),
    payload: jsonb('payload'),
    reason: text('reason').notNull(),
    parkedAt: timestamp('parked_at', { withTimezone: true, mode: 'date' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.consumer, t.eventId] })],
)
