import { sql } from 'drizzle-orm'
import type { Database, Tx } from '../../../platform/db/database.js'
import type { StreamEntry } from '../domain/stream.js'
import { streamEvents, streams } from './tables.js'

/** A new stream event of one avatar, before it has its place. */
export interface NewEntry {
  avatarId: string
  type: string
  occurredAt: string
  payload: unknown
}

const AFTER = `select avatar_id, seq::float8 as seq, type, occurred_at, payload from live.stream_events
  where avatar_id = $1 and seq > $2 order by seq limit $3`
const POSITION = 'select last_seq::float8 as last_seq, watched_until from live.streams where avatar_id = $1'
const WATCHED = 'select avatar_id from live.streams where avatar_id = any($1::text[]) and watched_until > $2'
/** Records from now until $2 for each avatar of $1 (never shortening a later watch). */
const WATCH = `insert into live.streams (avatar_id, last_seq, watched_until) select id, 0, $2 from unnest($1::text[]) as id
  on conflict (avatar_id) do update set watched_until = greatest(live.streams.watched_until, excluded.watched_until)`
const LAST_SEQS = 'select avatar_id, last_seq::float8 as last_seq from live.streams where avatar_id = any($1::text[])'
/** The oldest a replay may start after: the avatar's first kept event less one. */
const FIRST_KEPT = 'select min(seq)::float8 as first from live.stream_events where avatar_id = $1'

const toEntry = (r: Record<string, unknown>): StreamEntry => ({
  avatarId: r.avatar_id as string, seq: r.seq as number, type: r.type as string,
  occurredAt: new Date(r.occurred_at as string | Date).toISOString(), payload: r.payload,
})

/**
 * Each avatar's stream history. Numbers are handed out under the lock of the avatar's row in
 * `live.streams`, held to commit, so an avatar's events commit in the order of their numbers:
 * a reader that has seen n has seen everything before n.
 */
export const streamHistory = {
  /** Appends the entries (in the caller's transaction), each avatar's in the order given; answers them numbered. */
  async append(tx: Tx, entries: NewEntry[]): Promise<StreamEntry[]> {
    if (entries.length === 0) return []
    const counts = new Map<string, number>()
    for (const e of entries) counts.set(e.avatarId, (counts.get(e.avatarId) ?? 0) + 1)
    // Rows locked in one order by every writer: two batches never wait on each other in a circle.
    const avatars = [...counts.keys()].sort()
    const positions = await tx.insert(streams).values(avatars.map((avatarId) => ({ avatarId, lastSeq: counts.get(avatarId)! })))
      .onConflictDoUpdate({ target: streams.avatarId, set: { lastSeq: sql`${streams.lastSeq} + excluded.last_seq` } })
      .returning()
    const next = new Map(positions.map((p) => [p.avatarId, p.lastSeq - counts.get(p.avatarId)! + 1]))
    const numbered = entries.map((e) => {
      const seq = next.get(e.avatarId)!
      next.set(e.avatarId, seq + 1)
      return { ...e, seq }
    })
    await tx.insert(streamEvents).values(numbered.map((e) => ({ ...e, occurredAt: new Date(e.occurredAt) })))
    return numbered
  },

  /** Up to `limit` of the avatar's entries after `seq`, oldest first. */
  async after(database: Database, avatarId: string, seq: number, limit: number): Promise<StreamEntry[]> {
    return (await database.statement('live_stream_after', AFTER, [avatarId, seq, limit])).map(toEntry)
  },

  /** The number of the avatar's latest stream event (0 before its first), and until when its events were to be recorded. */
  async position(database: Database, avatarId: string): Promise<{ lastSeq: number; watchedUntil: Date | undefined }> {
    const [row] = await database.statement('live_stream_position', POSITION, [avatarId])
    const until = row?.watched_until as string | Date | null | undefined
    return { lastSeq: (row?.last_seq as number | undefined) ?? 0, watchedUntil: until ? new Date(until) : undefined }
  },

  /** Of these avatars, those whose events are recorded at `now`. */
  async watched(database: Database, avatarIds: string[], now: Date): Promise<Set<string>> {
    if (avatarIds.length === 0) return new Set()
    const rows = await database.statement('live_stream_watched', WATCHED, [avatarIds, now.toISOString()])
    return new Set(rows.map((r) => r.avatar_id as string))
  },

  /** Records these avatars' events until `until` (a stream opened, or is still open). */
  async watch(database: Database, avatarIds: string[], until: Date): Promise<void> {
    if (avatarIds.length > 0) await database.statement('live_stream_watch', WATCH, [[...avatarIds].sort(), until.toISOString()])
  },

  /** The same for many avatars at once (those without any event are left out). */
  async lastSeqs(database: Database, avatarIds: string[]): Promise<Map<string, number>> {
    const rows = await database.statement('live_stream_last_seqs', LAST_SEQS, [avatarIds])
    return new Map(rows.map((r) => [r.avatar_id as string, r.last_seq as number]))
  },

  /** The number of the avatar's oldest kept event, undefined when none is kept. */
  async firstKept(database: Database, avatarId: string): Promise<number | undefined> {
    const [row] = await database.statement('live_stream_first_kept', FIRST_KEPT, [avatarId])
    return (row?.first as number | null | undefined) ?? undefined
  },

  /**
   * Deletes at most `limit` entries older than `before` that are also not among their avatar's
   * latest `keep` (a replay reaches back at least as far as either), and any older than
   * `retention` (an avatar that stopped playing keeps none for ever); answers how many.
   */
  async pruneSome(database: Database, h: { before: Date; keep: number; retention: Date }, limit: number): Promise<number> {
    const result = await database.db.execute(sql`
      delete from live.stream_events where (avatar_id, seq) in (
        select e.avatar_id, e.seq from live.stream_events e join live.streams s on s.avatar_id = e.avatar_id
         where e.occurred_at < ${h.before.toISOString()}::timestamptz
           and (e.seq <= s.last_seq - ${h.keep} or e.occurred_at < ${h.retention.toISOString()}::timestamptz)
         limit ${limit} for update of e skip locked)
      returning 1`)
    return (result as unknown as { rows: unknown[] }).rows.length
  },
}
