import { asc, inArray, isNull, lt, or, sql, and } from 'drizzle-orm'
import type { Database, Queryable } from '../db/database.js'
import type { Logger } from '../log.js'
import type { EventBus } from './bus.js'
import type { DomainEvent, Outbox, OutboxTable } from './outbox.js'

export interface RelayOptions {
  /** How often to look for events committed by other processes or due for a retry. */
  pollMs: number
  /** How long a claimed batch is reserved for this relay before another may take it over. */
  leaseSeconds: number
  batchSize: number
}

const DEFAULTS: RelayOptions = { pollMs: 1000, leaseSeconds: 30, batchSize: 100 }
/** Retry delays after a failed publish grow from 100 ms up to this. */
const MAX_BACKOFF_MS = 30_000

type Row = OutboxTable['$inferSelect']

const toEvent = (r: Row): DomainEvent => ({
  id: r.id,
  type: r.type,
  occurredAt: r.occurredAt.toISOString(),
  aggregateId: r.aggregateId,
  version: r.version,
  payload: r.payload,
})

/**
 * Moves committed events from the outboxes to the bus, oldest first. Not strictly in order: an
 * event whose publish failed waits out a backoff while later ones go on (and replicas of a
 * consumer handle deliveries side by side), so consumers must not depend on order. Rows are leased
 * with SKIP LOCKED, so several replicas can relay at once without taking the same rows; a
 * crash between publishing and marking means a redelivery, which the consumers' inboxes absorb.
 */
export class OutboxRelay {
  private readonly options: RelayOptions
  private running: Promise<void> | undefined
  private again = false
  private stopped = true
  private timer: NodeJS.Timeout | undefined

  constructor(
    private readonly outboxes: Outbox[],
    private readonly bus: EventBus,
    private readonly database: Database,
    private readonly log: Logger | undefined,
    options: Partial<RelayOptions> = {},
  ) {
    this.options = { ...DEFAULTS, ...options }
    for (const o of outboxes) o.onCommitted(() => this.nudge())
  }

  start(): void {
    this.stopped = false
    this.timer = setInterval(() => this.nudge(), this.options.pollMs)
    this.timer.unref()
    this.nudge()
  }

  async close(): Promise<void> {
    this.stopped = true
    clearInterval(this.timer)
    await this.running
  }

  /**
   * Publishes until nothing is pending, including events that handlers raise on the way
   * (tests; with the in-process bus this means every effect has been applied).
   */
  async drain(): Promise<void> {
    for (let published = 1; published > 0; ) {
      while (this.running) await this.running
      published = 0
      for (const o of this.outboxes) published += await this.drainOutbox(o)
    }
  }

  private nudge(): void {
    if (this.stopped) return
    if (this.running) {
      this.again = true
      return
    }
    this.running = this.loop().finally(() => {
      this.running = undefined
    })
  }

  private async loop(): Promise<void> {
    do {
      this.again = false
      for (const o of this.outboxes) {
        try {
          await this.drainOutbox(o)
        } catch (e) {
          this.log?.error({ err: e, context: o.context }, 'outbox relay failed; will retry')
        }
      }
    } while (this.again && !this.stopped)
  }

  /**
   * Publishes the outbox's pending events, a claimed batch at a time, every event of a batch at
   * once; answers how many it published. Failed events wait out a growing backoff; the rest of
   * their batch is marked published in the same statement.
   */
  private async drainOutbox(o: Outbox): Promise<number> {
    for (let published = 0; ; ) {
      const batch = await this.claim(o.table)
      if (batch.length === 0) return published
      const failures = await this.bus.publish(o.context, batch.map(toEvent))
      const failedIds = new Set(failures.map((f) => f.event.id))
      for (const f of failures) {
        const row = batch.find((r) => r.id === f.event.id)!
        this.log?.warn({ err: f.error, context: o.context, event: row.id, type: row.type, attempts: row.attempts + 1 }, 'event delivery failed; will retry')
      }
      await this.settle(o.table, batch.filter((r) => !failedIds.has(r.id)).map((r) => r.seq), batch.filter((r) => failedIds.has(r.id)))
      published += batch.length - failures.length
    }
  }

  private async claim(t: OutboxTable): Promise<Row[]> {
    const lease = sql`now() + make_interval(secs => ${this.options.leaseSeconds})`
    // One statement in autocommit: the rows it leases are locked only while it runs.
    const db = this.database.db
    const rows = await db.update(t).set({ claimedUntil: lease }).where(inArray(t.seq,
      db.select({ seq: t.seq }).from(t)
        .where(and(isNull(t.publishedAt), or(isNull(t.claimedUntil), lt(t.claimedUntil, sql`now()`))))
        .orderBy(asc(t.seq)).limit(this.options.batchSize).for('update', { skipLocked: true }),
    )).returning()
    return rows.sort((a, b) => a.seq - b.seq)
  }

  /** Marks what was published; each failed event waits out a growing backoff. */
  private async settle(t: OutboxTable, published: number[], failed: Row[]): Promise<void> {
    const markPublished = (q: Queryable) => q.update(t).set({ publishedAt: sql`now()`, claimedUntil: null }).where(inArray(t.seq, published))
    if (failed.length === 0) {
      await markPublished(this.database.db)
      return
    }
    await this.database.transaction(async (tx) => {
      if (published.length) await markPublished(tx)
      for (const row of failed) {
        const backoffMs = Math.min(MAX_BACKOFF_MS, 100 * 2 ** row.attempts)
        await tx.update(t).set({ attempts: row.attempts + 1, claimedUntil: sql`now() + make_interval(secs => ${backoffMs / 1000})` })
          .where(inArray(t.seq, [row.seq]))
      }
    })
  }
}
