import { bigserial, index, integer, jsonb, text, timestamp, uuid, type PgSchema } from 'drizzle-orm/pg-core'
import type { Clock } from '../clock.js'
import type { Database, Tx } from '../db/database.js'
import { newId } from '../ids.js'

/** The envelope every event travels in (DESIGN §3). Payloads are plain values. */
export interface DomainEvent<T extends string = string, P = unknown> {
  id: string
  type: T
  occurredAt: string
  aggregateId: string
  version: number
  payload: P
}

/** What a producer writes: an event of one of its contracts (`DraftsOf`) with the aggregate and its version after the change. */
export type EventDraft<D extends { type: string; payload: unknown } = { type: string; payload: unknown }> = D & { aggregateId: string; version: number }

/** Each context keeps its own outbox table in its own schema; every outbox has this shape. */
export function outboxTable(schema: PgSchema) {
  return schema.table(
    'outbox',
    {
      seq: bigserial('seq', { mode: 'number' }).primaryKey(),
      id: uuid('id').notNull().unique(),
      type: text('type').notNull(),
      aggregateId: text('aggregate_id').notNull(),
      version: integer('version').notNull(),
      occurredAt: timestamp('occurred_at', { withTimezone: true, mode: 'date' }).notNull(),
      payload: jsonb('payload').notNull(),
      publishedAt: timestamp('published_at', { withTimezone: true, mode: 'date' }),
      /** A relay's lease on the row while it publishes; an expired lease may be taken over. */
      claimedUntil: timestamp('claimed_until', { withTimezone: true, mode: 'date' }),
      attempts: integer('attempts').notNull().default(0),
    },
    (t) => [index().on(t.publishedAt, t.seq)],
  )
}

export type OutboxTable = ReturnType<typeof outboxTable>

/** An event as a producer's own statement writes it into its outbox, for an aggregate at an instant. */
export interface WrittenEvent {
  id: string
  type: string
  version: number
  payload: unknown
}

/** The events a statement wrote for one aggregate at one instant, as they will be delivered. */
export const writtenEvents = (aggregateId: string, at: Date, written: WrittenEvent[]): DomainEvent[] =>
  written.map((e) => ({ id: e.id, type: e.type, occurredAt: at.toISOString(), aggregateId, version: e.version, payload: e.payload }))

/**
 * Writes events in the caller's transaction, so they commit or vanish with the state change, and
 * hands them to the relay once they have committed, which publishes them at once, with no read
 * of the outbox (its poll finds what a crash or a failed publish left there).
 */
export class Outbox<D extends { type: string; payload: unknown } = { type: string; payload: unknown }> {
  private readonly listeners: ((events: DomainEvent[]) => void)[] = []

  constructor(
    readonly context: string,
    readonly table: OutboxTable,
    private readonly clock: Clock,
    private readonly database: Database,
  ) {}

  async add(tx: Tx, drafts: EventDraft<D>[]): Promise<void> {
    if (drafts.length === 0) return
    const occurredAt = this.clock.now()
    const rows = drafts.map((d) => ({ id: newId(), type: d.type, aggregateId: d.aggregateId, version: d.version, occurredAt, payload: d.payload }))
    await tx.insert(this.table).values(rows)
    this.database.afterCommit(() => this.committed(rows.map((r) => ({ ...r, occurredAt: r.occurredAt.toISOString() }))))
  }

  /**
   * Hands events that committed to the relay: those of `add`, or those a store's own statement
   * wrote (`writtenEvents`). Each goes as a redelivery from the table would: its payload as JSON
   * gives it back (a Date as its string, no undefined members).
   */
  committed(events: DomainEvent[]): void {
    if (events.length === 0) return
    const delivered = events.map((e) => ({ ...e, payload: JSON.parse(JSON.stringify(e.payload)) as unknown }))
    this.listeners.forEach((l) => l(delivered))
  }

  onCommitted(listener: (events: DomainEvent[]) => void): void {
    this.listeners.push(listener)
  }
}
