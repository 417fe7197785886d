import { and, eq, gte, lt, sql } from 'drizzle-orm'
import type { Queryable } from '../../../platform/db/database.js'
import type { Earned } from '../domain/earnings.js'
import { earnings } from './tables.js'

/** The record of what avatars earned, by bucket (written with each change: avatar-commands.ts). */
export const earningsRepo = {
  /** What the avatar earned in the buckets that start in [from, to). */
  async sumBetween(q: Queryable, avatarId: string, from: Date, to: Date): Promise<Earned> {
    const [row] = await q.select({
      experience: sql<string>`coalesce(sum(${earnings.experience}), 0)::text`,
      money: sql<string>`coalesce(sum(${earnings.money}), 0)::text`,
    }).from(earnings).where(and(eq(earnings.avatarId, avatarId), gte(earnings.bucket, from), lt(earnings.bucket, to)))
    return { experience: Number(row?.experience ?? 0), money: Number(row?.money ?? 0) }
  },

  /** Deletes at most `limit` buckets that started before `before` (SKIP LOCKED, as `deleteSome`); answers how many. */
  async pruneSome(q: Queryable, before: Date, limit: number): Promise<number> {
    const result = await q.execute(sql`
      delete from avatar.earnings where (avatar_id, bucket) in (
        select avatar_id, bucket from avatar.earnings where bucket < ${before.toISOString()}::timestamptz limit ${limit} for update skip locked)
      returning 1`)
    return (result as unknown as { rows: unknown[] }).rows.length
  },
}
