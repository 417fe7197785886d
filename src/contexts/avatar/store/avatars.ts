import { and, asc, count, eq, gte, ilike, lt, lte, sql, type SQL } from 'drizzle-orm'
import { deleteSome } from '../../../platform/db/bounded-delete.js'
import type { Queryable, Tx } from '../../../platform/db/database.js'
import { NotFound } from '../../../platform/errors.js'
import type { Avatar } from '../domain/avatar.js'
import { leagueRepo } from './leagues.js'
import { appliedCalls, avatars, closedAccounts, earnings } from './tables.js'

type Row = typeof avatars.$inferSelect

const toAvatar = ({ createdAt: _createdAt, totalExperience: _total, experienceReachedAt: _reached, ...a }: Row): Avatar => a

export interface AvatarSearch {
  name?: string
  minLevel?: number
  maxLevel?: number
  limit: number
}

/** `%` and `_` in a searched name are letters, not wildcards. */
const likeEscape = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`)

/**
 * The hottest read (every avatar GET) as a prepared statement per database handle: building
 * the query with drizzle costs more than running it.
 */
const findPrepared = new WeakMap<Queryable, ReturnType<typeof prepareFind>>()
const prepareFind = (q: Queryable) =>
  q.select().from(avatars).where(eq(avatars.id, sql.placeholder('id'))).prepare('avatar_find_by_id')

/** Many at once (concurrent reads coalesced: `coalescedReads`), prepared likewise. */
const findManyPrepared = new WeakMap<Queryable, ReturnType<typeof prepareFindMany>>()
const prepareFindMany = (q: Queryable) =>
  q.select().from(avatars).where(sql`${avatars.id} = any(${sql.placeholder('ids')}::text[])`).prepare('avatar_find_many')

export const avatarRepo = {
  async find(q: Queryable, id: string): Promise<Avatar | undefined> {
    let statement = findPrepared.get(q)
    if (!statement) findPrepared.set(q, (statement = prepareFind(q)))
    const [row] = await statement.execute({ id })
    return row && toAvatar(row)
  },

  async findMany(q: Queryable, ids: string[]): Promise<Map<string, Avatar>> {
    let statement = findManyPrepared.get(q)
    if (!statement) findManyPrepared.set(q, (statement = prepareFindMany(q)))
    const rows = await statement.execute({ ids })
    return new Map(rows.map((r) => [r.id, toAvatar(r)]))
  },

  async get(q: Queryable, id: string): Promise<Avatar> {
    const a = await avatarRepo.find(q, id)
    if (!a) throw new NotFound('Avatar', id)
    return a
  },

  /** Loads and row-locks the avatar until the transaction ends, so concurrent changes queue. */
  async getForUpdate(tx: Tx, id: string): Promise<Avatar> {
    const [row] = await tx.select().from(avatars).where(eq(avatars.id, id)).for('update')
    if (!row) throw new NotFound('Avatar', id)
    return toAvatar(row)
  },

  /** What is kept of an avatar besides its row, deleted with it: a new avatar may take the id, and must not inherit them. */
  async deleteParts(tx: Tx, id: string): Promise<void> {
    await tx.delete(appliedCalls).where(eq(appliedCalls.avatarId, id))
    await tx.delete(earnings).where(eq(earnings.avatarId, id))
    await leagueRepo.deleteOf(tx, id)
  },

  /** Deletes up to `limit` remembered answers of keyed calls applied before `before` (the applied_at index). */
  deleteAppliedCallsBefore(q: Queryable, before: Date, limit: number): Promise<number> {
    return deleteSome(q, appliedCalls, appliedCalls.key, lt(appliedCalls.appliedAt, before), limit)
  },

  /**
   * How many avatars the player owns, counted after taking a lock on their creations that holds
   * until the transaction ends: two creations by one player are counted one after the other.
   */
  async countOwnedByLocked(tx: Tx, ownerId: string): Promise<number> {
    await lockCreationsOf(tx, ownerId)
    const [row] = await tx.select({ n: count() }).from(avatars).where(eq(avatars.ownerId, ownerId))
    return row?.n ?? 0
  },

  /** Whether the owner's account was deleted (the caller holds the lock on their creations). */
  async isClosed(tx: Tx, ownerId: string): Promise<boolean> {
    const [row] = await tx.select({ ownerId: closedAccounts.ownerId }).from(closedAccounts).where(eq(closedAccounts.ownerId, ownerId))
    return row !== undefined
  },

  /**
   * Records that the owner's account is gone, under the lock on their creations, and answers every
   * avatar they own, row-locked: a creation that took the lock first is among them, one after is
   * refused (`isClosed`).
   */
  async closeAccount(tx: Tx, ownerId: string, at: Date): Promise<Avatar[]> {
    await lockCreationsOf(tx, ownerId)
    await tx.insert(closedAccounts).values({ ownerId, closedAt: at }).onConflictDoNothing()
    const rows = await tx.select().from(avatars).where(eq(avatars.ownerId, ownerId)).orderBy(asc(avatars.id)).for('update')
    return rows.map(toAvatar)
  },

  /** Deletes up to `limit` records of accounts closed before `before` (no token of theirs lives that long). */
  deleteClosedAccountsBefore(q: Queryable, before: Date, limit: number): Promise<number> {
    return deleteSome(q, closedAccounts, closedAccounts.ownerId, lt(closedAccounts.closedAt, before), limit)
  },

  async search(q: Queryable, s: AvatarSearch): Promise<Avatar[]> {
    const where: SQL[] = []
    if (s.name !== undefined) where.push(ilike(avatars.name, `%${likeEscape(s.name)}%`))
    if (s.minLevel !== undefined) where.push(gte(avatars.level, s.minLevel))
    if (s.maxLevel !== undefined) where.push(lte(avatars.level, s.maxLevel))
    const rows = await q.select().from(avatars).where(and(...where)).orderBy(asc(avatars.name), asc(avatars.id)).limit(s.limit)
    return rows.map(toAvatar)
  },
}

/** A lock on the owner's avatar creations, held until the transaction ends. */
async function lockCreationsOf(tx: Tx, ownerId: string): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${ownerId}))`)
}

export interface AppliedCall {
  avatarId: string
  operation: string
  result: unknown
}
