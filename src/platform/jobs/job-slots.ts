import { and, eq, lt, sql } from 'drizzle-orm'
import type { Database } from '../db/database.js'
import type { Job } from './scheduler.js'
import { jobRuns } from './tables.js'

/** How many past periods of a job are remembered. */
const KEPT_SLOTS = 10

/**
 * Shares periodic jobs between replicas: the first replica to claim a job's current period runs
 * it, the others skip it. Periods come from the database's clock, which every replica shares.
 */
export class JobSlots {
  constructor(private readonly database: Database) {}

  async claim(job: Job): Promise<boolean> {
    return this.database.transaction(async (tx) => {
      const slot = sql<number>`floor(extract(epoch from now()) * 1000 / ${job.everyMs})::bigint`
      const key = job.scope ? `${job.name}@${job.scope}` : job.name
      const claimed = await tx.insert(jobRuns).values({ job: key, slot, claimedAt: sql`now()` })
        .onConflictDoNothing().returning({ slot: jobRuns.slot })
      const mine = claimed[0]
      if (mine) await tx.delete(jobRuns).where(and(eq(jobRuns.job, key), lt(jobRuns.slot, mine.slot - KEPT_SLOTS)))
      return mine !== undefined
    })
  }
}
