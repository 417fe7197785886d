/**
 * The experience board's reads (DESIGN §9.5): avatars by total experience, most first; equal totals
 * by who reached theirs first (experience_reached_at), then by id.
 *
 * How ranks are kept: a rank is 1 + the avatars ahead, and counting them row by row does not meet
 * 20 ms at 100,000 avatars on embedded PGlite (a plain count(*) of the table alone takes ~30 ms
 * there). So the database keeps tallies (experience_tallies) in the statement that changes the
 * avatars, by triggers, and a rank sums them: level-1 buckets of EXPERIENCE_BOARD_BUCKET
 * total above the avatar's bucket, level-2 exact totals above its own within its bucket (at most a
 * bucket's worth of rows), level-0 blocks (EXPERIENCE_BOARD_BLOCK_SECONDS of reaching time) of its
 * own total reached before its block, and a count of the few rows of its own total and block ahead
 * of it (the board index).
 * Nothing is held in memory, so every replica answers alike, and the tallies commit with the change.
 * One statement reads the rank, the total and the neighbours, on one snapshot.
 *
 * The neighbours are one range of the board index either side of the avatar's own entry, bounded
 * by a row comparison on its three columns (the total negated, so ascending index order is board
 * order). They are lateral to `me` so that its values bound the index scans: joined as a plain
 * table, the planner filters the scan by the join instead and walks the index from the board's end
 * to the avatar (hundreds of ms at 100,000 avatars on PGlite).
 */
import { sql } from 'drizzle-orm'
import type { Queryable } from '../../../platform/db/database.js'
import { EXPERIENCE_BOARD_BLOCK_SECONDS as BLOCK, EXPERIENCE_BOARD_BUCKET as BUCKET } from '../domain/rules.js'

/** An avatar as the board shows it (experience: its total). */
export interface BoardRow {
  avatarId: string
  name: string
  level: number
  experience: number
}

/** The avatar's rank, the board's size, and up to `reach` neighbours either side, in board order. */
export interface Surroundings {
  rank: number
  total: number
  me: BoardRow
  ahead: BoardRow[]
  behind: BoardRow[]
}

interface RawRow { avatarId: string; name: string; level: number; experience: string | number }
const toRow = (r: RawRow): BoardRow => ({ avatarId: r.avatarId, name: r.name, level: r.level, experience: Number(r.experience) })
const rowsOf = (result: unknown) => (result as { rows: Record<string, unknown>[] }).rows

/** The board's columns of avatar `a`, as a json object. */
const boardJson = sql.raw(`json_build_object('avatarId', a.id, 'name', a.name, 'level', a.level, 'experience', a.total_experience)`)
/**
 * Board order of avatars `a`, best first, in the board index's terms (the total negated), so the
 * index serves the order forwards and backwards instead of a sort of every avatar.
 */
const boardOrder = sql.raw('-a.total_experience, a.experience_reached_at, a.id')

export const experienceBoardRepo = {
  /** The avatar's place and its neighbours; undefined for an unknown avatar. */
  async around(q: Queryable, avatarId: string, reach: number): Promise<Surroundings | undefined> {
    const result = await q.execute(sql`
      with me as (
        select a.id, a.name, a.level, a.total_experience as t, a.experience_reached_at as r,
          floor(a.total_experience / ${BUCKET}::numeric)::bigint as bucket,
          floor(extract(epoch from a.experience_reached_at) / ${BLOCK})::bigint as block
        from avatar.avatars a where a.id = ${avatarId}),
      ahead as (select n.* from me, lateral (select a.* from avatar.avatars a
        where (-a.total_experience, a.experience_reached_at, a.id) < (-me.t, me.r, me.id)
        order by -a.total_experience desc, a.experience_reached_at desc, a.id desc limit ${reach}) n),
      behind as (select n.* from me, lateral (select a.* from avatar.avatars a
        where (-a.total_experience, a.experience_reached_at, a.id) > (-me.t, me.r, me.id)
        order by ${boardOrder} limit ${reach}) n)
      select me.id as "avatarId", me.name, me.level, me.t as experience,
        (select coalesce(sum(x.avatars), 0) from avatar.experience_tallies x where x.level = 1 and x.key > me.bucket)
        + (select coalesce(sum(x.avatars), 0) from avatar.experience_tallies x
            where x.level = 2 and x.key > me.t and x.key < (me.bucket + 1) * ${BUCKET})
        + (select coalesce(sum(x.avatars), 0) from avatar.experience_tallies x where x.level = 0 and x.key = me.t and x.block < me.block)
        + (select count(*) from avatar.avatars a where -a.total_experience = -me.t
            and a.experience_reached_at >= to_timestamp(me.block * ${BLOCK}) and (a.experience_reached_at, a.id) < (me.r, me.id)) as "ahead",
        (select coalesce(sum(x.avatars), 0) from avatar.experience_tallies x where x.level = 1) as "total",
        (select coalesce(json_agg(${boardJson} order by ${boardOrder}), '[]') from ahead a) as "aheadRows",
        (select coalesce(json_agg(${boardJson} order by ${boardOrder}), '[]') from behind a) as "behindRows"
      from me`)
    const [row] = rowsOf(result)
    if (!row) return undefined
    const ahead = (row.aheadRows as RawRow[]).map(toRow)
    return {
      rank: Number(row.ahead) + 1,
      total: Number(row.total),
      me: toRow(row as unknown as RawRow),
      ahead: ahead.slice(Math.max(0, ahead.length - reach)),
      behind: (row.behindRows as RawRow[]).map(toRow).slice(0, reach),
    }
  },

  /** The first `limit` avatars in board order, and the board's size. */
  async top(q: Queryable, limit: number): Promise<{ rows: BoardRow[]; total: number }> {
    const result = await q.execute(sql`
      select (select coalesce(sum(x.avatars), 0) from avatar.experience_tallies x where x.level = 1) as "total",
        (select coalesce(json_agg(${boardJson} order by ${boardOrder}), '[]')
          from (select * from avatar.avatars a order by ${boardOrder} limit ${limit}) a) as "rows"`)
    const [row] = rowsOf(result)
    return { rows: (row!.rows as RawRow[]).map(toRow), total: Number(row!.total) }
  },
}
