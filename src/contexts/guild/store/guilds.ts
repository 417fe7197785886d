import { and, asc, desc, eq, gt, gte, ilike, inArray, lt, lte, sql } from 'drizzle-orm'
import { refusingDuplicates, type Queryable, type Tx } from '../../../platform/db/database.js'
import { NotFound } from '../../../platform/errors.js'
import { AlreadyInGuild, InvitePending, NicknameTaken } from '../domain/errors.js'
import type { Guild, Invite, Member, Role } from '../domain/guild.js'
import { chatMessages, guilds, invites, members, rankTallies } from './tables.js'

interface MemberJson { avatarId: string; nickname: string; role: string; joinedAt: string }

/**
 * A guild row with its members as one JSON column, in joining order (longest-serving first, the
 * order the domain relies on): one query per page of guilds instead of two.
 */
const guildColumns = {
  id: guilds.id,
  seq: guilds.seq,
  name: guilds.name,
  points: guilds.points,
  createdAt: guilds.createdAt,
  version: guilds.version,
  // Written with an alias: drizzle leaves column names unqualified in a one-table select.
  members: sql<MemberJson[] | string>`coalesce((select json_agg(json_build_object(
    'avatarId', m.avatar_id, 'nickname', m.nickname, 'role', m.role, 'joinedAt', m.joined_at) order by m.seq)
    from ${members} as m where m.guild_id = ${guilds}.id), '[]')`,
}

type GuildRow = { id: string; seq: number; name: string; points: number; createdAt: Date; version: number; members: MemberJson[] | string }

/** A guild as stored: with its creation order and its membership version. */
export type StoredGuild = Guild & { seq: number; version: number }

function toGuild(r: GuildRow): StoredGuild {
  // node-postgres and PGlite both parse json; a driver that does not hands over text.
  const list = typeof r.members === 'string' ? (JSON.parse(r.members) as MemberJson[]) : r.members
  return {
    id: r.id, seq: r.seq, name: r.name, points: r.points, createdAt: r.createdAt, version: r.version,
    members: list.map((m) => ({ avatarId: m.avatarId, nickname: m.nickname, role: m.role as Role, joinedAt: new Date(m.joinedAt) })),
  }
}

/** Width of a level-1 tally bucket, in points. */
const RANK_BUCKET_POINTS = 100
/** Guilds (by creation order) per level-0 tally block. */
const RANK_BLOCK_GUILDS = 1000

const bucketOf = (points: number) => Math.floor(points / RANK_BUCKET_POINTS)
const blockOf = (seq: number) => Math.floor(seq / RANK_BLOCK_GUILDS)

/** Adds `delta` guilds at (points, seq) to both tally levels. */
async function tally(tx: Tx, points: number, seq: number, delta: number, levels: (0 | 1)[] = [0, 1]): Promise<void> {
  const rows = levels.map((level) => (level === 0
    ? { level, key: points, block: blockOf(seq), guilds: delta }
    : { level, key: bucketOf(points), block: -1, guilds: delta }))
  await tx.insert(rankTallies).values(rows)
    .onConflictDoUpdate({ target: [rankTallies.level, rankTallies.key, rankTallies.block], set: { guilds: sql`${rankTallies.guilds} + excluded.guilds` } })
}

/** `%` and `_` in a searched name are letters, not wildcards. */
const likeEscape = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`)

/** A member joins: an avatar in a guild already, or a nickname taken in this one (any case), is refused. */
function insertMember(tx: Tx, guildId: string, m: Member): Promise<unknown> {
  return refusingDuplicates(tx.insert(members).values({ avatarId: m.avatarId, nickname: m.nickname, role: m.role, joinedAt: m.joinedAt, guildId }), {
    members_pkey: () => new AlreadyInGuild(m.avatarId),
    members_nickname_key: () => new NicknameTaken(m.nickname),
  })
}

export const guildRepo = {
  async find(q: Queryable, id: string): Promise<StoredGuild | undefined> {
    const [row] = await q.select(guildColumns).from(guilds).where(eq(guilds.id, id))
    return row && toGuild(row)
  },

  async get(q: Queryable, id: string): Promise<StoredGuild> {
    const g = await guildRepo.find(q, id)
    if (!g) throw new NotFound('Guild', id)
    return g
  },

  /** Loads and row-locks the guild, so membership changes to one guild queue. */
  async getForUpdate(tx: Tx, id: string): Promise<StoredGuild> {
    const [row] = await tx.select(guildColumns).from(guilds).where(eq(guilds.id, id)).for('update')
    if (!row) throw new NotFound('Guild', id)
    return toGuild(row)
  },

  /** The guild's membership version, its row share-locked until the transaction ends (a membership change waits); undefined when it is gone. */
  async versionForShare(tx: Tx, id: string): Promise<number | undefined> {
    const [row] = await tx.select({ version: guilds.version }).from(guilds).where(eq(guilds.id, id)).for('share')
    return row?.version
  },

  async exists(q: Queryable, id: string): Promise<boolean> {
    const [row] = await q.select({ id: guilds.id }).from(guilds).where(eq(guilds.id, id))
    return row !== undefined
  },

  /** A guild whose row the writer has just made: its place in the rank tallies, and its founding members (a founder in a guild already is refused). */
  async founded(tx: Tx, g: Guild): Promise<void> {
    const [row] = await tx.select({ seq: guilds.seq }).from(guilds).where(eq(guilds.id, g.id))
    await tally(tx, g.points, row!.seq, 1)
    for (const m of g.members) await insertMember(tx, g.id, m)
  },

  /**
   * Writes the member list a rule answered: who joined, who left, whose role changed. The guild's
   * row, locked, goes one version on with the writer's save in the same transaction.
   */
  async saveMembers(tx: Tx, guildId: string, before: Member[], after: Member[]): Promise<void> {
    const kept = new Set(after.map((m) => m.avatarId))
    const gone = before.filter((m) => !kept.has(m.avatarId)).map((m) => m.avatarId)
    if (gone.length > 0) await tx.delete(members).where(and(eq(members.guildId, guildId), inArray(members.avatarId, gone)))
    const previous = new Map(before.map((m) => [m.avatarId, m]))
    for (const m of after) {
      const was = previous.get(m.avatarId)
      if (!was) await insertMember(tx, guildId, m)
      else if (was.role !== m.role) await tx.update(members).set({ role: m.role }).where(eq(members.avatarId, m.avatarId))
    }
  },

  /**
   * What goes with a guild whose row the writer deletes: its invites, its members, and its count in
   * the rank tallies, by its points as read under its row lock (`getForUpdate`: `addPoints` waits
   * for it, so they are the points the row holds).
   */
  async dissolve(tx: Tx, g: StoredGuild): Promise<void> {
    await tx.delete(invites).where(eq(invites.guildId, g.id))
    await tx.delete(members).where(eq(members.guildId, g.id))
    await tx.delete(chatMessages).where(eq(chatMessages.guildId, g.id))
    await tally(tx, g.points, g.seq, -1)
  },

  async guildOf(q: Queryable, avatarId: string): Promise<string | undefined> {
    const [row] = await q.select({ guildId: members.guildId }).from(members).where(eq(members.avatarId, avatarId))
    return row?.guildId
  },

  /** The guild of each of these avatars that belongs to one. */
  async guildsOf(q: Queryable, avatarIds: string[]): Promise<Map<string, string>> {
    const rows = await q.select({ avatarId: members.avatarId, guildId: members.guildId }).from(members).where(inArray(members.avatarId, avatarIds))
    return new Map(rows.map((r) => [r.avatarId, r.guildId]))
  },

  async addPoints(tx: Tx, id: string, points: number): Promise<void> {
    const [row] = await tx.update(guilds).set({ points: sql`${guilds.points} + ${points}` }).where(eq(guilds.id, id))
      .returning({ points: guilds.points, seq: guilds.seq })
    if (!row) return
    const before = row.points - points
    await tally(tx, before, row.seq, -1, bucketOf(before) === bucketOf(row.points) ? [0] : [0, 1])
    await tally(tx, row.points, row.seq, 1, bucketOf(before) === bucketOf(row.points) ? [0] : [0, 1])
  },

  /**
   * 1 for the most points; on a tie the older guild ranks first. Guilds ahead = those in higher
   * buckets + those in this bucket with more points + older ones with the same points in earlier
   * blocks (all from the tallies) + older ones with the same points in this block (counted, at
   * most RANK_BLOCK_GUILDS rows).
   */
  async rankOf(q: Queryable, g: { points: number; seq: number }): Promise<number> {
    const bucket = bucketOf(g.points)
    const block = blockOf(g.seq)
    const sumOf = (where: ReturnType<typeof and>) =>
      sql`(select coalesce(sum(${rankTallies.guilds}), 0) from ${rankTallies} where ${where})`
    const result = await q.execute(sql`select ${sumOf(and(eq(rankTallies.level, 1), gt(rankTallies.key, bucket)))}
        + ${sumOf(and(eq(rankTallies.level, 0), gt(rankTallies.key, g.points), lt(rankTallies.key, (bucket + 1) * RANK_BUCKET_POINTS)))}
        + ${sumOf(and(eq(rankTallies.level, 0), eq(rankTallies.key, g.points), lt(rankTallies.block, block)))}
        + (select count(*) from ${guilds} where ${and(eq(guilds.points, g.points), gte(guilds.seq, block * RANK_BLOCK_GUILDS), lt(guilds.seq, g.seq))}) as ahead`)
    const [row] = (result as unknown as { rows: { ahead: string | number }[] }).rows
    return Number(row?.ahead ?? 0) + 1
  },

  /** The first `limit` guilds in rank order. */
  async leaderboard(q: Queryable, limit: number): Promise<StoredGuild[]> {
    const rows = await q.select(guildColumns).from(guilds).orderBy(desc(guilds.points), asc(guilds.seq)).limit(limit)
    return rows.map(toGuild)
  },

  /**
   * A page of guilds in creation order, optionally those whose name holds `name` (any case) and
   * the one `memberId` belongs to.
   */
  async list(q: Queryable, s: { name?: string | undefined; memberId?: string | undefined; afterSeq?: number | undefined; limit: number }): Promise<StoredGuild[]> {
    const rows = await q.select(guildColumns).from(guilds)
      .where(and(
        s.name === undefined ? undefined : ilike(guilds.name, `%${likeEscape(s.name)}%`),
        s.memberId === undefined ? undefined
          : inArray(guilds.id, q.select({ id: members.guildId }).from(members).where(eq(members.avatarId, s.memberId))),
        s.afterSeq === undefined ? undefined : gt(guilds.seq, s.afterSeq),
      ))
      .orderBy(asc(guilds.seq)).limit(s.limit)
    return rows.map(toGuild)
  },

  async seqOf(q: Queryable, id: string): Promise<number | undefined> {
    const [row] = await q.select({ seq: guilds.seq }).from(guilds).where(eq(guilds.id, id))
    return row?.seq
  },
}

type InviteRow = typeof invites.$inferSelect
const toInvite = (r: InviteRow): Invite => r

export const inviteRepo = {
  async find(q: Queryable, guildId: string, id: string): Promise<Invite | undefined> {
    const [row] = await q.select().from(invites).where(and(eq(invites.id, id), eq(invites.guildId, guildId)))
    return row && toInvite(row)
  },

  async findFor(q: Queryable, guildId: string, targetAvatarId: string): Promise<Invite | undefined> {
    const [row] = await q.select().from(invites).where(and(eq(invites.guildId, guildId), eq(invites.targetAvatarId, targetAvatarId)))
    return row && toInvite(row)
  },

  /** A new invite; a pending one for the same target (made by a concurrent request) is refused. */
  async insert(tx: Tx, i: Invite): Promise<void> {
    await refusingDuplicates(tx.insert(invites).values(i), { invites_pending_key: () => new InvitePending(i.targetAvatarId) })
  },

  async delete(tx: Tx, id: string): Promise<void> {
    await tx.delete(invites).where(eq(invites.id, id))
  },

  async deleteOfTarget(tx: Tx, targetAvatarId: string): Promise<void> {
    await tx.delete(invites).where(eq(invites.targetAvatarId, targetAvatarId))
  },

  /** A guild's invites, oldest first, expired ones not yet removed included. */
  async ofGuild(q: Queryable, guildId: string): Promise<Invite[]> {
    const rows = await q.select().from(invites).where(eq(invites.guildId, guildId)).orderBy(asc(invites.createdAt))
    return rows.map(toInvite)
  },

  /** An avatar's invites, oldest first, expired ones not yet removed included. */
  async ofTarget(q: Queryable, targetAvatarId: string): Promise<Invite[]> {
    const rows = await q.select().from(invites).where(eq(invites.targetAvatarId, targetAvatarId)).orderBy(asc(invites.createdAt))
    return rows.map(toInvite)
  },

  /** Removes the invites not pending at `now` (`isPending`: expired at or before it); answers how many. */
  async deleteExpired(tx: Tx, now: Date): Promise<number> {
    const rows = await tx.delete(invites).where(lte(invites.expiresAt, now)).returning({ id: invites.id })
    return rows.length
  },
}
