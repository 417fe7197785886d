import type { PgTable } from 'drizzle-orm/pg-core'
import { Counter } from 'prom-client'
import type { Clock } from '../clock.js'
import { qualifiedName } from '../db/bounded-delete.js'
import type { MetricsSource } from '../http/metrics.js'
import { DAY_MS } from '../time/index.js'
import { inBatches } from './batches.js'
import type { Job } from './scheduler.js'

/** The retention job (`POST /_test/jobs/platform.prune` runs it in tests). */
export const PRUNE_JOB = 'platform.prune'
/**
 * How often it runs; one replica runs each period (JobSlots). Every minute, so that an outbox
 * holds a few minutes of published events, not a quarter of an hour's; a run that finds nothing
 * is one short indexed statement per table.
 */
const PRUNE_EVERY_MS = 60_000
/**
 * How long a published event stays in its outbox (for an operator to look at): nothing reads it
 * again. Kept for RETENTION_DAYS, a busy outbox grew to tens of megabytes, and each vacuum pass
 * over it (a publish updates the row twice, leaving two dead versions) walked every page of its
 * indexes: on the embedded engine, 0.5 s in which no other statement ran (the 30-minute soak).
 * Ten minutes was still 90 MB of avatar events at the soak's 110 events/s (1.3 kB each).
 */
export const PUBLISHED_EVENTS_KEPT_MS = 60_000
/** Rows one statement deletes: each batch is its own short transaction. */
const PRUNE_BATCH_ROWS = 1000
/**
 * Batches per table and run: a bigger backlog (the first run on an old database) is worked off
 * over the next runs, so that a run stays short and a shutdown never waits long for it.
 */
const PRUNE_MAX_BATCHES = 100

/** The instant `days` days before `now`: where a retention period starts. */
export const daysBefore = (now: Date, days: number) => new Date(now.getTime() - days * DAY_MS)

/** Up to when rows may be forgotten, worked out once at the start of a run. */
interface Horizons {
  now: Date
  /** Now less the retention period: what was finished before this is past its use. */
  retention: Date
  /**
   * For the records that stop a redelivered event from being applied twice (inboxes, keyed
   * effects): the retention horizon, or the time of the oldest event of this process's outboxes
   * still unpublished when that is earlier. Such an event may yet be delivered again (the
   * in-process bus delivers it to every consumer until all of them have taken it), and every
   * record of an earlier delivery of it was made after it occurred, so none of them is older.
   */
  deliveries: Date
  /** Now less PUBLISHED_EVENTS_KEPT_MS: published events that occurred and were published before this go. */
  published: Date
}

/** The horizons of a run at `now`. Pure. */
export function horizonsAt(now: Date, retentionDays: number, oldestUnpublished: Date | undefined): Horizons {
  const retention = daysBefore(now, retentionDays)
  const deliveries = oldestUnpublished && oldestUnpublished < retention ? new Date(oldestUnpublished) : retention
  return { now, retention, deliveries, published: new Date(now.getTime() - PUBLISHED_EVENTS_KEPT_MS) }
}

/** Rows of one table that may go: the owner of the table says which, the retention job deletes them. */
export interface PruneRule {
  /** `schema.table`: the label of its metrics. */
  table: string
  /** Deletes at most `limit` rows past their use at these horizons (one statement); answers how many. */
  pruneSome(h: Horizons, limit: number): Promise<number>
}

export const pruning = (table: PgTable, pruneSome: PruneRule['pruneSome']): PruneRule => ({ table: qualifiedName(table), pruneSome })

interface RetentionOptions {
  clock: Clock
  retentionDays: number
  /** When the oldest event not yet published by this process's outboxes occurred, if any. */
  oldestUnpublished: () => Promise<Date | undefined>
  rules: PruneRule[]
  /** The contexts this process serves: replicas serving the same share the job's periods. */
  scope: string
}

/**
 * The retention job: deletes what the rules say is past its use, table after table, in
 * batches of PRUNE_BATCH_ROWS until a batch comes back short (or PRUNE_MAX_BATCHES). Safe to run on two replicas at once
 * (batches pick their rows with SKIP LOCKED, and a row deleted twice is deleted once); the rows
 * deleted are counted per table in `retention_pruned_rows_total`.
 */
export class Retention {
  private readonly pruned = new Counter({
    name: 'retention_pruned_rows_total',
    help: 'Rows deleted by the retention job of this process because they are past their use, by table',
    labelNames: ['table'],
    registers: [],
  })

  readonly job: Job
  readonly metrics: MetricsSource = (registry) => registry.registerMetric(this.pruned)

  constructor(private readonly o: RetentionOptions) {
    this.job = { name: PRUNE_JOB, everyMs: PRUNE_EVERY_MS, scope: o.scope, run: () => this.run() }
    for (const rule of o.rules) this.pruned.inc({ table: rule.table }, 0)
  }

  /**
   * One run. A table whose deletes fail does not hold back the others: the run goes on, then fails
   * naming those tables (the scheduler logs it), and the next run tries them again.
   */
  async run(): Promise<void> {
    const h = horizonsAt(this.o.clock.now(), this.o.retentionDays, await this.o.oldestUnpublished())
    const failures: { table: string; error: unknown }[] = []
    for (const rule of this.o.rules) {
      await this.prune(rule, h).catch((error: unknown) => failures.push({ table: rule.table, error }))
    }
    if (failures.length > 0) {
      throw new AggregateError(failures.map((f) => f.error), `pruning failed for ${failures.map((f) => f.table).join(', ')}`)
    }
  }

  private prune(rule: PruneRule, h: Horizons): Promise<void> {
    return inBatches(PRUNE_BATCH_ROWS, async () => {
      const n = await rule.pruneSome(h, PRUNE_BATCH_ROWS)
      this.pruned.inc({ table: rule.table }, n)
      return n
    }, PRUNE_MAX_BATCHES)
  }
}
