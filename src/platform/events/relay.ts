import { and, inArray, isNotNull, isNull, sql } from 'drizzle-orm'
import { getTableConfig } from 'drizzle-orm/pg-core'
import type { Database } from '../db/database.js'
import type { Logger } from '../log.js'
import type { EventBus } from './bus.js'
import type { DomainEvent, Outbox, OutboxTable } from './outbox.js'

interface RelayOptions {
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

const settle = (table: string) => `update ${table} set published_at = now(), claimed_until = null where seq = any($1::bigint[])`

/** A batch claimed: what it leased ($2 seconds), after the previous batch was marked published ($1). */
const settlingThen = (table: string, claim: string) => `
with settled as (${settle(table)})
update ${table} set claimed_until = now() + make_interval(secs => $2::double precision)
 where ${claim}`

const CLAIMABLE = 'published_at is null and (claimed_until is null or claimed_until < now())'

/**
 * One statement in autocommit: marks the previous batch published and leases the oldest events
 * nobody holds (at most $3). The rows it leases are locked only while it runs (SKIP LOCKED, so
 * replicas take different rows); rows being marked are still leased to us, so never re-claimed.
 */
const settleAndClaimOldest = (table: string) => `${settlingThen(table, `seq in (
   select seq from ${table} where ${CLAIMABLE} order by seq limit $3 for update skip locked)`)}
returning seq, id, type, aggregate_id, version, occurred_at, payload, attempts`

/**
 * The same for events handed over by the process that committed them ($3, their ids): found by
 * their ids, not by a scan, and read no further (the process has them). One that a poll of any
 * process claimed first is not leased again.
 */
const settleAndClaimHanded = (table: string) => `${settlingThen(table, `id = any($3::uuid[]) and ${CLAIMABLE}`)}
returning seq, id, attempts`

/**
 * Moves committed events from the outboxes to the bus. Events a process commits are handed to its
 * relay (`Outbox.committed`), which leases them by id and publishes them at once; a poll each
 * `pollMs` finds the rest, oldest first: what other processes committed and have not leased, what
 * a crash left, events due again after a failed publish. Not strictly in order: an event whose
 * publish failed waits out a backoff while later ones go on (and replicas of a consumer handle
 * deliveries side by side), so consumers must not depend on order. A lease is taken by one relay
 * only, so several replicas relay at once without taking the same rows; a crash between publishing
 * and marking means a redelivery, which the consumers' inboxes absorb.
 */
export class OutboxRelay {
  private readonly options: RelayOptions
  /**
   * Each outbox's loop while it runs: outboxes are drained side by side, so a slow consumer of one
   * context's events (a publish waits for every handler in one process) holds back no other's.
   */
  private readonly running = new Map<Outbox, Promise<void>>()
  /** Outboxes the poll found events in: their loops look for the oldest ones nobody holds. */
  private readonly due = new Set<Outbox>()
  /** Events this process committed, by outbox, waiting for their loop to lease and publish them. */
  private readonly handed = new Map<Outbox, DomainEvent[]>()
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
    for (const o of outboxes) {
      this.handed.set(o, [])
      o.onCommitted((events) => {
        // Not while stopped: the rows wait in the table for the next start or another process.
        if (this.stopped) return
        this.handed.get(o)!.push(...events)
        this.run(o)
      })
    }
  }

  async start(): Promise<void> {
    await this.releaseLeasesOfTheDead()
    this.stopped = false
    this.timer = setInterval(() => void this.poll(), this.options.pollMs)
    this.timer.unref()
    this.lookAt(this.outboxes)
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
      for (const o of this.outboxes) published += await this.drainOutbox(o, true)
    }
  }

  /** Has these outboxes' loops look for the oldest events nobody holds: each at once when idle, else when its running pass ends. */
  private lookAt(outboxes: Outbox[]): void {
    for (const o of outboxes) {
      this.due.add(o)
      this.run(o)
    }
  }

  private run(o: Outbox): void {
    if (this.stopped || this.running.has(o)) return
    this.running.set(o, this.loop(o).finally(() => this.running.delete(o)))
  }

  private async loop(o: Outbox): Promise<void> {
    while (!this.stopped && (this.due.has(o) || this.handed.get(o)!.length > 0)) {
      const lookForOldest = this.due.delete(o)
      try {
        await this.drainOutbox(o, lookForOldest)
      } catch (e) {
        // The events it held are still in the table: the next poll finds them.
        this.log?.error({ err: e, context: o.context }, 'outbox relay failed; will retry')
      }
    }
  }

  /**
   * Publishes the events handed over, a leased batch at a time, every event of a batch at once;
   * then, with `lookForOldest`, the oldest ones nobody holds, until there are none. Answers how
   * many it published. What was published is marked by the statement that leases the next batch
   * (or, last, by one of its own); failed events wait out a growing backoff.
   */
  private async drainOutbox(o: Outbox, lookForOldest: boolean): Promise<number> {
    const statements = this.statementsOf(o)
    let published: number[] = []
    for (let count = 0; ; ) {
      const handed = this.handed.get(o)!.splice(0, this.options.batchSize)
      let batch: Claimed[]
      if (handed.length > 0) {
        const rows = await this.database.plannedEachTime(statements.handed, [published, this.options.leaseSeconds, handed.map((e) => e.id)])
        const byId = new Map(handed.map((e) => [e.id, e]))
        batch = rows.map((r) => ({ seq: Number(r.seq), attempts: r.attempts as number, event: byId.get(r.id as string)! }))
      } else if (lookForOldest) {
        const rows = await this.database.plannedEachTime(statements.oldest, [published, this.options.leaseSeconds, this.options.batchSize])
        if (rows.length === 0) return count
        batch = rows.map(toClaimed)
      } else {
        if (published.length > 0) await this.database.plannedEachTime(statements.settle, [published])
        return count
      }
      published = await this.publish(o, batch.sort((a, b) => a.seq - b.seq))
      count += published.length
    }
  }

  /** Publishes a leased batch; answers the seqs of the events the bus took, and backs the others off. */
  private async publish(o: Outbox, batch: Claimed[]): Promise<number[]> {
    if (batch.length === 0) return []
    const failures = await this.bus.publish(o.context, batch.map((c) => c.event))
    const failedIds = new Set(failures.map((f) => f.event.id))
    const failed = batch.filter((c) => failedIds.has(c.event.id))
    for (const f of failures) {
      const row = failed.find((c) => c.event.id === f.event.id)!
      this.log?.warn({ err: f.error, context: o.context, event: row.event.id, type: row.event.type, attempts: row.attempts + 1 }, 'event delivery failed; will retry')
    }
    if (failed.length) await this.backOff(o.table, failed)
    return batch.filter((c) => !failedIds.has(c.event.id)).map((c) => c.seq)
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
      const rows = await this.database.plannedEachTime(this.pendingQuery, [])
      const pending = new Set(rows.map((r) => r.i as number))
      this.lookAt(this.outboxes.filter((_, i) => pending.has(i)))
    } catch (e) {
      this.log?.error({ err: e }, 'outbox poll failed; will retry')
    }
  }

  private pendingQuery: string | undefined

  private pendingOutboxesQuery(): string {
    const tables = this.outboxes.map((o) => getTableConfig(o.table)).map(({ schema, name }) => `${schema}.${name}`)
    return tables.map((t, i) => `select ${i} as i where exists (select 1 from ${t} where ${CLAIMABLE})`).join('\nunion all ')
  }

  private readonly statements = new Map<Outbox, Record<'oldest' | 'handed' | 'settle', string>>()

  /** The outbox's statements: planned each time (`plannedEachTime`), since an outbox fills and empties. */
  private statementsOf(o: Outbox): Record<'oldest' | 'handed' | 'settle', string> {
    let statements = this.statements.get(o)
    if (!statements) {
      const { schema, name } = getTableConfig(o.table)
      const table = `${schema}.${name}`
      statements = { oldest: settleAndClaimOldest(table), handed: settleAndClaimHanded(table), settle: settle(table) }
      this.statements.set(o, statements)
    }
    return statements
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
