import { and, asc, desc, eq, lt, sql } from 'drizzle-orm'
import type { Queryable, Tx } from '../../../platform/db/database.js'
import type { DivisionResult, LeagueOutcome, Standing, Tier } from '../domain/league.js'
import { avatars, leagueClosings, leagueEntries, leagueResults, leagueTiers } from './tables.js'

/** A division of a season's tier. */
export interface DivisionRef {
  season: string
  tier: Tier
  division: number
}

export interface Member extends Standing {
  name: string
}

export interface HistoryItem {
  season: string
  tier: Tier
  rank: number
  score: number
  result: LeagueOutcome
  reward: number
}

/** Everything the leagues keep of an avatar, oldest first: for its owner's export (DESIGN §9.4). */
export interface LeagueRecord {
  /** The tier its next season starts in, once a closed season has set one. */
  tier: Tier | undefined
  entries: { season: string; tier: Tier; division: number; score: number; reachedAt: Date }[]
  results: (HistoryItem & { division: number })[]
}

/** The weekly leagues' tables (scores are written by the avatar's writer: avatar-aggregate.ts). */
export const leagueRepo = {
  /** The division the avatar entered in the season, if it has; `waiting` when it scored but waits to be placed. */
  async entryOf(q: Queryable, season: string, avatarId: string): Promise<{ placed?: DivisionRef; waiting: boolean }> {
    const [row] = await q.select({ tier: leagueEntries.tier, division: leagueEntries.division }).from(leagueEntries)
      .where(and(eq(leagueEntries.season, season), eq(leagueEntries.avatarId, avatarId)))
    if (!row) return { waiting: false }
    return row.tier !== null && row.division !== null ? { placed: { season, tier: row.tier as Tier, division: row.division }, waiting: false } : { waiting: true }
  },

  /** The tier the avatar plays its next week in, when a season has set one. */
  async tierOf(q: Queryable, avatarId: string): Promise<Tier | undefined> {
    const [row] = await q.select({ tier: leagueTiers.tier }).from(leagueTiers).where(eq(leagueTiers.avatarId, avatarId))
    return row?.tier as Tier | undefined
  },

  /** A division's members with their public names and scores. */
  async members(q: Queryable, d: DivisionRef): Promise<Member[]> {
    const rows = await q.select({ avatarId: leagueEntries.avatarId, name: avatars.name, score: leagueEntries.score, reachedAt: leagueEntries.reachedAt })
      .from(leagueEntries).innerJoin(avatars, eq(avatars.id, leagueEntries.avatarId))
      .where(and(eq(leagueEntries.season, d.season), eq(leagueEntries.tier, d.tier), eq(leagueEntries.division, d.division)))
    return rows
  },

  /** Divisions of seasons before `season` not closed yet, oldest first, at most `limit`. */
  async unclosedBefore(q: Queryable, season: string, limit: number): Promise<DivisionRef[]> {
    const rows = await q.selectDistinct({ season: leagueEntries.season, tier: leagueEntries.tier, division: leagueEntries.division }).from(leagueEntries)
      .where(and(lt(leagueEntries.season, season), sql`not exists (select 1 from ${leagueClosings} c
        where c.season = ${leagueEntries.season} and c.tier = ${leagueEntries.tier} and c.division = ${leagueEntries.division})`))
      .orderBy(asc(leagueEntries.season), asc(leagueEntries.tier), asc(leagueEntries.division)).limit(limit)
    return rows.filter((r) => r.tier !== null && r.division !== null) as DivisionRef[]
  },

  /**
   * Places up to `limit` entries that wait for their avatar's last week to close, now closed: each in
   * the tier that week's end set. Answers how many it placed (none placed twice, whoever races).
   */
  async placeWaiting(q: Queryable, limit: number): Promise<number> {
    const res = await q.execute(sql`select count(*) filter (where avatar.league_place(w.season, w.avatar_id))::int as placed
      from (select e.season, e.avatar_id from ${leagueEntries} e
        where e.tier is null and not avatar.league_waits(e.season, e.avatar_id)
        order by e.season, e.reached_at limit ${limit}) w`)
    return (res as unknown as { rows: { placed: number }[] }).rows[0]?.placed ?? 0
  },

  /** Claims a division's closing: true for the one transaction that records it, false when another did. */
  async claimClosing(tx: Tx, d: DivisionRef, at: Date): Promise<boolean> {
    const claimed = await tx.insert(leagueClosings).values({ ...d, closedAt: at }).onConflictDoNothing().returning({ season: leagueClosings.season })
    return claimed.length === 1
  },

  /** Archives a closed division's results and sets each member's tier for the weeks after. */
  async saveResults(tx: Tx, d: DivisionRef, results: DivisionResult[]): Promise<void> {
    if (results.length === 0) return
    await tx.insert(leagueResults).values(results.map((r) => ({
      season: d.season, avatarId: r.avatarId, tier: d.tier, division: d.division, rank: r.rank, score: r.score, result: r.outcome, reward: r.reward,
    }))).onConflictDoNothing()
    for (const r of results) {
      await tx.insert(leagueTiers).values({ avatarId: r.avatarId, tier: r.nextTier })
        .onConflictDoUpdate({ target: leagueTiers.avatarId, set: { tier: r.nextTier } })
    }
  },

  /** The avatar's seasons newest first, after the season `before` names (from the newest without it). */
  async history(q: Queryable, avatarId: string, before: string | undefined, count: number): Promise<HistoryItem[]> {
    const where = before === undefined ? eq(leagueResults.avatarId, avatarId) : and(eq(leagueResults.avatarId, avatarId), lt(leagueResults.season, before))
    const rows = await q.select({
      season: leagueResults.season, tier: leagueResults.tier, rank: leagueResults.rank, score: leagueResults.score, result: leagueResults.result, reward: leagueResults.reward,
    }).from(leagueResults).where(where).orderBy(desc(leagueResults.season)).limit(count)
    return rows.map((r) => ({ ...r, tier: r.tier as Tier, result: r.result as LeagueOutcome }))
  },

  async hasResult(q: Queryable, avatarId: string, season: string): Promise<boolean> {
    const [row] = await q.select({ season: leagueResults.season }).from(leagueResults)
      .where(and(eq(leagueResults.avatarId, avatarId), eq(leagueResults.season, season)))
    return row !== undefined
  },

  /** Everything the leagues keep of an avatar, for its export. */
  async recordOf(q: Queryable, avatarId: string): Promise<LeagueRecord> {
    const [tier, entries, results] = await Promise.all([
      this.tierOf(q, avatarId),
      q.select({ season: leagueEntries.season, tier: leagueEntries.tier, division: leagueEntries.division, score: leagueEntries.score, reachedAt: leagueEntries.reachedAt })
        .from(leagueEntries).where(eq(leagueEntries.avatarId, avatarId)).orderBy(asc(leagueEntries.season)),
      q.select({
        season: leagueResults.season, tier: leagueResults.tier, division: leagueResults.division, rank: leagueResults.rank, score: leagueResults.score,
        result: leagueResults.result, reward: leagueResults.reward,
      }).from(leagueResults).where(eq(leagueResults.avatarId, avatarId)).orderBy(asc(leagueResults.season)),
    ])
    return {
      tier,
      // An entry waiting for its avatar's last week to close is in no division yet.
      entries: entries.flatMap((e) => (e.tier !== null && e.division !== null ? [{ ...e, tier: e.tier as Tier, division: e.division }] : [])),
      results: results.map((r) => ({ ...r, tier: r.tier as Tier, result: r.result as LeagueOutcome })),
    }
  },

  /** What the leagues keep of an avatar, deleted with it (DESIGN §9.4). */
  async deleteOf(tx: Tx, avatarId: string): Promise<void> {
    await tx.delete(leagueEntries).where(eq(leagueEntries.avatarId, avatarId))
    await tx.delete(leagueResults).where(eq(leagueResults.avatarId, avatarId))
    await tx.delete(leagueTiers).where(eq(leagueTiers.avatarId, avatarId))
  },
}
