import { createHash } from 'node:crypto'
import { and, inArray, isNotNull, isNull, sql } from 'drizzle-orm'
import { getTableConfig } from 'drizzle-orm/pg-core'
import type { Database } from '../db/database.js'
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

/** A claimed outbox row, as the claim statement answers it. */
interface Claimed {
  seq: number
  attempts: number
  event: DomainEvent
}

const toClaimed = (r: Record<string, unknown>): Claimed => ({
  seq: Number(r.seq),
  attempts: r.attempts as number,
  event: {
    id: r.id as string,
    type: r.type as string,
    occurredAt: new Date(r.occurred_at as string | Date).toISOString(),
    aggregateId: r.aggregate_id as string,
    version: r.version as number,
    payload: r.payload,
  },
})

/**
 * One statement in autocommit: marks the previous batch published ($1) and leases the next one
 * ($2 seconds, at most $3 rows). The rows it leases are locked only while it runs (SKIP LOCKED,
 * so replicas take different rows); rows being marked are still leased to us, so never re-claimed.
 */
const settleAndClaim = (table: string) => `
with settled as (
  update ${table} set published_at = now(), claimed_until = null where seq = any($1::bigint[])
)
update ${table} set claimed_until = now() + make_interval(secs => $2::double precision)
 where seq in (
   select seq from ${table}
    where published_at is null and (claimed_until is null or claimed_until < now())
    order by seq limit $3 for update skip locked)
returning seq, id, type, aggregate_id, version, occurred_at, payload, attempts`

/**
 * Moves committed events from the outboxes to the bus, oldest first. Not strictly in order: an
 * event whose publish failed waits out a backoff while later ones go on (and replicas of a
 * consumer handle deliveries side by side), so consumers must not depend on order. Rows are leased
 * with SKIP LOCKED, so several replicas can relay at once without taking the same rows; a
 * crash between publishing and marking means a redelivery, which the consumers' inboxes absorb.
 */
export class OutboxRelay {
  private readonly options: RelayOptions
  /**
   * Each outbox's loop while it runs: outboxes are drained side by side, so a slow consumer of one
   * context's events (a publish waits for every handler in one process) holds back no other's.
   */
  private readonly running = new Map<Outbox, Promise<void>>()
  /** Outboxes with events committed since their loop last looked at them. */
  private readonly due = new Set<Outbox>()
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
    for (const o of outboxes) o.onCommitted(() => this.nudge([o]))
  }

  async start(): Promise<void> {
    await this.releaseLeasesOfTheDead()
    this.stopped = false
    this.timer = setInterval(() => void this.poll(), this.options.pollMs)
    this.timer.unref()
    this.nudge(this.outboxes)
  }

  /**
   * The embedded database has one process at a time (its data directory's lock): a lease found at
   * start is a crashed process's, and its events go out now rather than when it runs out. On
   * PostgreSQL a lease may be a live replica's, so it runs out instead (`leaseSeconds`).
   */
  private async releaseLeasesOfTheDead(): Promise<void> {
    if (this.database.kind !== 'embedded') return
    for (const o of this.outboxes) {
      await this.database.db.update(o.table).set({ claimedUntil: null })
        .where(and(isNull(o.table.publishedAt), isNotNull(o.table.claimedUntil)))
    }
  }

  async close(): Promise<void> {
    this.stopped = true
    clearInterval(this.timer)
    await Promise.all(this.running.values())
  }

  /**
   * Publishes until nothing is pending, including events that handlers raise on the way
   * (tests; with the in-process bus this means every effect has been applied).
   */
  async drain(): Promise<void> {
    for (let published = 1; published > 0; ) {
      while (this.running.size > 0) await Promise.all(this.running.values())
      published = 0
      for (const o of this.outboxes) published += await this.drainOutbox(o)
    }
  }

  /** Looks at these outboxes soon: each at once when its loop is idle, else when its running pass ends. */
  private nudge(outboxes: Outbox[]): void {
    if (this.stopped) return
    for (const o of outboxes) {
      this.due.add(o)
      if (this.running.has(o)) continue
      this.running.set(o, this.loop(o).finally(() => this.running.delete(o)))
    }
  }

  private async loop(o: Outbox): Promise<void> {
    while (this.due.has(o) && !this.stopped) {
      this.due.delete(o)
      try {
        await this.drainOutbox(o)
      } catch (e) {
        this.log?.error({ err: e, context: o.context }, 'outbox relay failed; will retry')
      }
    }
  }

  /**
   * Publishes the outbox's pending events, a claimed batch at a time, every event of a batch at
   * once; answers how many it published. What was published is marked by the statement that claims
   * the next batch; failed events wait out a growing backoff.
   */
  private async drainOutbox(o: Outbox): Promise<number> {
    const statement = this.statementOf(o)
    let published: number[] = []
    for (let count = 0; ; ) {
      const rows = await this.database.statement(statement.name, statement.text, [published, this.options.leaseSeconds, this.options.batchSize])
      if (rows.length === 0) return count
      const batch = rows.map(toClaimed).sort((a, b) => a.seq - b.seq)
      const failures = await this.bus.publish(o.context, batch.map((c) => c.event))
      const failedIds = new Set(failures.map((f) => f.event.id))
      const failed = batch.filter((c) => failedIds.has(c.event.id))
      for (const f of failures) {
        const row = failed.find((c) => c.event.id === f.event.id)!
        this.log?.warn({ err: f.error, context: o.context, event: row.event.id, type: row.event.type, attempts: row.attempts + 1 }, 'event delivery failed; will retry')
      }
      if (failed.length) await this.backOff(o.table, failed)
      published = batch.filter((c) => !failedIds.has(c.event.id)).map((c) => c.seq)
      count += published.length
    }
  }

  /**
   * The poll: which outboxes hold events to claim (committed by other processes, or due for a
   * retry), asked in one read, so an idle second costs one cheap statement instead of a claim per
   * outbox (on the embedded engine every statement waits for the one before).
   */
  private async poll(): Promise<void> {
    if (this.stopped || this.outboxes.length === 0) return
    try {
      this.pendingQuery ??= this.pendingOutboxesQuery()
      const rows = await this.database.statement(this.pendingQuery.name, this.pendingQuery.text, [])
      const pending = new Set(rows.map((r) => r.i as number))
      this.nudge(this.outboxes.filter((_, i) => pending.has(i)))
    } catch (e) {
      this.log?.error({ err: e }, 'outbox poll failed; will retry')
    }
  }

  private pendingQuery: { name: string; text: string } | undefined

  private pendingOutboxesQuery(): { name: string; text: string } {
    const tables = this.outboxes.map((o) => getTableConfig(o.table)).map(({ schema, name }) => `${schema}.${name}`)
    const text = tables.map((t, i) => `select ${i} as i where exists (
      select 1 from ${t} where published_at is null and (claimed_until is null or claimed_until < now()))`).join('\nunion all ')
    // Named by its text: a name must always go with the same text on a connection.
    return { name: `relay_pending_${createHash('sha1').update(text).digest('hex').slice(0, 16)}`, text }
  }

  private readonly statements = new Map<Outbox, { name: string; text: string }>()

  private statementOf(o: Outbox): { name: string; text: string } {
    let statement = this.statements.get(o)
    if (!statement) {
      const { schema, name } = getTableConfig(o.table)
      statement = { name: `relay_settle_and_claim_${schema}`, text: settleAndClaim(`${schema}.${name}`) }
      this.statements.set(o, statement)
    }
    return statement
  }

  /** Each failed event waits out a growing backoff before it is claimed again. */
  private async backOff(t: OutboxTable, failed: Claimed[]): Promise<void> {
    await this.database.transaction(async (tx) => {
      for (const row of failed) {
        const backoffMs = Math.min(MAX_BACKOFF_MS, 100 * 2 ** row.attempts)
        await tx.update(t).set({ attempts: row.attempts + 1, claimedUntil: sql`now() + make_interval(secs => ${backoffMs / 1000})` })
          .where(inArray(t.seq, [row.seq]))
      }
    })
  }
}
