import { bigint, primaryKey, text, timestamp } from 'drizzle-orm/pg-core'
import { platformSchema } from '../db/tables.js'

/** One row per (job, period) that some replica claimed: the period's run is done once. */
export const jobRuns = platformSchema.table(
  'job_runs',
  {
    job: text('job').notNull(),
    /** The period: database time in ms divided by the job's interval. */
    slot: bigint('slot', { mode: 'number' }).notNull(),
    claimedAt: timestamp('claimed_at', { withTimezone: true, mode: 'date' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.job, t.slot] })],
)
