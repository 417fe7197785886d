/**
 * The vacuum job: keeps the tables this process writes free of dead row versions and their
 * planner statistics fresh, on either engine, whatever the server's settings.
 *
 * Every update and delete leaves a dead version behind (publishing an event updates its outbox
 * row; a saga updates its log; pruning deletes). PGlite runs no autovacuum at all, and a
 * PostgreSQL may have it off (this project's test machines do) or tuned for tables far slower than
 * an outbox. Left alone, the dead versions pile up and every read walks past them: the soak saw
 * PostgreSQL's CPU climb from 0.5 to 0.9 cores over 7 minutes at a constant rate, and p99 triple.
 */
import { sql } from 'drizzle-orm'
import { Histogram } from 'prom-client'
import type { Database } from '../db/database.js'
import type { MetricsSource } from '../http/metrics.js'
import type { Job } from './scheduler.js'

/** The vacuum job (`POST /_test/jobs/platform.vacuum` runs it in tests). */
export const VACUUM_JOB = 'platform.vacuum'
const VACUUM_EVERY_MS = 60_000
/** A table is vacuumed once it holds this many dead rows (or changed rows since its last analyze)… */
export const VACUUM_MIN_ROWS = 1_000
/** …and they are at least this share of its live rows: a big table is not rewalked for a few. */
const VACUUM_MIN_SHARE = 0.1
/**
 * On the embedded engine a pass holds up every other statement, so a timed run waits for this
 * long without a request under way (a personal server has many such moments)…
 */
export const EMBEDDED_QUIET_MS = 2_000
/**
 * …but not longer than this since the last complete run: under steady load it runs anyway, the
 * table with most dead rows first, while its passes have taken less than EMBEDDED_LOAD_BUDGET_MS.
 * A pass walks what changed since the last one, so frequent passes are short ones: deferring for
 * 10 minutes let an outbox's churn pile up into one 0.5 s pass (the soak), and deferring for 30
 * and then vacuuming every due table at once stalled the server for 3 s.
 */
export const EMBEDDED_MAX_DEFER_MS = 60_000
/** Under load on the embedded engine, a run starts no further pass once its passes took this long. */
export const EMBEDDED_LOAD_BUDGET_MS = 150

interface TableActivity {
  /** `schema.table`, the label of its metrics. */
  table: string
  /** The same as quoted identifiers, for the statement. */
  quoted: string
  live: number
  dead: number
  changedSinceAnalyze: number
}

/**
 * What a table needs, if anything: a vacuum (with its statistics) once it holds enough dead rows
 * to be worth a pass; only fresh statistics once it has changed enough that the planner would plan
 * by stale ones (a table that only grows has nothing to vacuum, and ANALYZE reads a sample, not
 * every page and index). Pure.
 */
export function dueFor(t: TableActivity): 'vacuum' | 'analyze' | undefined {
  const threshold = Math.max(VACUUM_MIN_ROWS, VACUUM_MIN_SHARE * t.live)
  if (t.dead >= threshold) return 'vacuum'
  if (t.changedSinceAnalyze >= threshold) return 'analyze'
  return undefined
}

export class Vacuum {
  private readonly passes = new Histogram({
    name: 'db_maintenance_seconds',
    help: 'Passes of the vacuum job over a table (vacuum: VACUUM (ANALYZE); analyze: ANALYZE) and how long each took, by table; on the embedded engine every other statement waits meanwhile',
    labelNames: ['table', 'pass'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [],
  })

  readonly job: Job
  readonly metrics: MetricsSource = (registry) => registry.registerMetric(this.passes)

  /** When the last run left no table due (or the process started). */
  private lastCompleteAt = Date.now()
  /** The timed run about to start was let through by the deferral limit, not by a quiet moment. */
  private underLoad = false

  /**
   * `schemas`: those of the contexts this process serves (and the platform's); `scope` as in Job;
   * `quietMs`: how long no request has been under way (RequestActivity).
   */
  constructor(private readonly database: Database, private readonly schemas: string[], scope: string, quietMs: () => number) {
    this.job = {
      name: VACUUM_JOB, everyMs: VACUUM_EVERY_MS, scope, run: () => this.run(),
      due: () => {
        if (database.kind !== 'embedded' || quietMs() >= EMBEDDED_QUIET_MS) return true
        this.underLoad = Date.now() - this.lastCompleteAt >= EMBEDDED_MAX_DEFER_MS
        return this.underLoad
      },
    }
  }

  /**
   * One run: each due table in turn, the one with most dead rows first (a timed run under load on
   * the embedded engine: while within EMBEDDED_LOAD_BUDGET_MS). A table that fails does not stop the others.
   */
  async run(): Promise<void> {
    const budgetMs = this.underLoad ? EMBEDDED_LOAD_BUDGET_MS : Infinity
    this.underLoad = false
    const due = (await this.activity()).flatMap((t) => {
      const pass = dueFor(t)
      return pass ? [{ ...t, pass }] : []
    })
    const started = Date.now()
    const failures: { table: string; error: unknown }[] = []
    let done = 0
    for (const t of due) {
      if (done > 0 && Date.now() - started >= budgetMs) break
      done++
      const { pass } = t
      const timer = this.passes.startTimer({ table: t.table, pass })
      try {
        // VACUUM cannot run in a transaction: this is a statement of its own, in autocommit.
        await this.database.db.execute(sql.raw(pass === 'vacuum' ? `vacuum (analyze) ${t.quoted}` : `analyze ${t.quoted}`))
        timer()
      } catch (error) {
        failures.push({ table: t.table, error })
      }
    }
    if (done === due.length) this.lastCompleteAt = Date.now()
    if (failures.length > 0) {
      throw new AggregateError(failures.map((f) => f.error), `vacuum failed for ${failures.map((f) => f.table).join(', ')}`)
    }
  }

  /** The statistics' counts (PostgreSQL's, kept by either engine; PGlite's lag about a second). */
  private async activity(): Promise<TableActivity[]> {
    const result = await this.database.db.execute(sql`
      select schemaname || '.' || relname as "table", quote_ident(schemaname) || '.' || quote_ident(relname) as quoted, n_live_tup::float8 as live, n_dead_tup::float8 as dead,
             n_mod_since_analyze::float8 as changed
        from pg_stat_user_tables
       where schemaname in (${sql.join(this.schemas.map((s) => sql`${s}`), sql`, `)})
       order by n_dead_tup desc`)
    const rows = (result as unknown as { rows: { table: string; quoted: string; live: number | string; dead: number | string; changed: number | string }[] }).rows
    return rows.map((r) => ({ table: r.table, quoted: r.quoted, live: Number(r.live), dead: Number(r.dead), changedSinceAnalyze: Number(r.changed) }))
  }
}

