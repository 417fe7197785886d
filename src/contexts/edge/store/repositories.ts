import { createHash } from 'node:crypto'
import { and, asc, eq, gt, inArray, isNull, lt, lte, sql } from 'drizzle-orm'
import type { Role } from '../../../platform/auth/principal.js'
import { deleteSome } from '../../../platform/db/bounded-delete.js'
import type { Queryable, Tx } from '../../../platform/db/database.js'
import { newId } from '../../../platform/ids.js'
import { OPEN_REGISTRATION_STATES, SETTLED_REGISTRATION_STATES, type RegistrationState, type UserStatus } from '../domain/registration.js'
import { loginFailures, refreshTokens, registrations, users } from './tables.js'

type UserRow = typeof users.$inferSelect
type RefreshTokenRow = typeof refreshTokens.$inferSelect

/** SHA-256 (base64url): what the tables keep instead of a secret, an email or an address. */
const digest = (text: string) => createHash('sha256').update(text).digest('base64url')

export const userRepo = {
  /** false when the email is taken. */
  async insert(tx: Tx, u: { id: string; email: string; name: string; passwordHash: string; role: Role; createdAt: Date; status: UserStatus }): Promise<boolean> {
    const rows = await tx.insert(users).values(u).onConflictDoNothing({ target: users.email }).returning({ id: users.id })
    return rows.length === 1
  },
  async findByEmail(q: Queryable, email: string): Promise<UserRow | undefined> {
    const [row] = await q.select().from(users).where(eq(users.email, email))
    return row
  },
  async findById(q: Queryable, id: string): Promise<UserRow | undefined> {
    const [row] = await q.select().from(users).where(eq(users.id, id))
    return row
  },
  async activate(tx: Tx, id: string): Promise<void> {
    await tx.update(users).set({ status: 'ACTIVE' }).where(eq(users.id, id))
  },
  /** Sets the role of the user with this (normalised) email: its id, or undefined when there is none. */
  async setRole(tx: Tx, email: string, role: Role): Promise<string | undefined> {
    const [row] = await tx.update(users).set({ role }).where(eq(users.email, email)).returning({ id: users.id })
    return row?.id
  },
  /** Deletes an active user (the account deleted): false when there is none (deleted already). Its email is free again. */
  async deleteActive(tx: Tx, id: string): Promise<boolean> {
    const rows = await tx.delete(users).where(and(eq(users.id, id), eq(users.status, 'ACTIVE'))).returning({ id: users.id })
    return rows.length === 1
  },
  /** Deletes a user whose registration is being undone (never an active one): its email is free again. */
  async deletePending(tx: Tx, id: string): Promise<void> {
    await tx.delete(users).where(and(eq(users.id, id), eq(users.status, 'PENDING')))
  },
}

/**
 * The registration saga's log. Each change of state is conditional on the state it leaves, so the
 * request that began a registration and the recovery job never both act on it.
 */
export const registrationRepo = {
  async begin(tx: Tx, userId: string, now: Date, leaseUntil: Date): Promise<void> {
    await tx.insert(registrations).values({ userId, state: 'PENDING', leaseUntil, createdAt: now, updatedAt: now })
  },
  /** PENDING → DONE; false when the recovery job has taken the registration over. */
  complete(tx: Tx, userId: string, now: Date): Promise<boolean> {
    return move(tx, userId, 'PENDING', { state: 'DONE', updatedAt: now })
  },
  /** PENDING → COMPENSATING, leased to the caller; false when the recovery job has it already. */
  turnAround(tx: Tx, userId: string, failure: string, now: Date, leaseUntil: Date): Promise<boolean> {
    return move(tx, userId, 'PENDING', { state: 'COMPENSATING', failure, leaseUntil, updatedAt: now })
  },
  /** COMPENSATING → COMPENSATED. */
  compensated(tx: Tx, userId: string, now: Date): Promise<boolean> {
    return move(tx, userId, 'COMPENSATING', { state: 'COMPENSATED', updatedAt: now })
  },
  /** The compensation failed: why is kept, and the row waits for its lease to run out. */
  async compensationFailed(tx: Tx, userId: string, failure: string, now: Date): Promise<void> {
    await tx.update(registrations)
      .set({ failure, failedAttempts: sql`${registrations.failedAttempts} + 1`, updatedAt: now })
      .where(and(eq(registrations.userId, userId), eq(registrations.state, 'COMPENSATING')))
  },
  /**
   * Open registrations whose lease ran out (their request died, or an attempt at undoing them
   * failed), turned COMPENSATING and leased to the caller. SKIP LOCKED: replicas share the work.
   */
  async claimAbandoned(tx: Tx, now: Date, leaseUntil: Date, limit: number): Promise<string[]> {
    const rows = await tx.select({ userId: registrations.userId }).from(registrations)
      .where(and(inArray(registrations.state, [...OPEN_REGISTRATION_STATES]), lte(registrations.leaseUntil, now)))
      .orderBy(asc(registrations.leaseUntil)).limit(limit).for('update', { skipLocked: true })
    const ids = rows.map((r) => r.userId)
    if (ids.length > 0) {
      await tx.update(registrations).set({ state: 'COMPENSATING', leaseUntil, updatedAt: now }).where(inArray(registrations.userId, ids))
    }
    return ids
  },
  /** Deletes the user's registration log row once settled (its account deleted); an open one is left to its saga. */
  async deleteSettledOf(tx: Tx, userId: string): Promise<void> {
    await tx.delete(registrations).where(and(eq(registrations.userId, userId), inArray(registrations.state, [...SETTLED_REGISTRATION_STATES])))
  },
  /** Deletes up to `limit` settled registrations last changed before `before`. */
  deleteSettledBefore(q: Queryable, before: Date, limit: number): Promise<number> {
    return deleteSome(q, registrations, registrations.userId,
      and(inArray(registrations.state, [...SETTLED_REGISTRATION_STATES]), lt(registrations.updatedAt, before)), limit)
  },
}

async function move(tx: Tx, userId: string, from: RegistrationState, to: Partial<typeof registrations.$inferInsert>): Promise<boolean> {
  const rows = await tx.update(registrations).set(to)
    .where(and(eq(registrations.userId, userId), eq(registrations.state, from))).returning({ userId: registrations.userId })
  return rows.length === 1
}

export const refreshTokenRepo = {
  async insert(tx: Tx, t: { id: string; familyId: string; userId: string; token: string; expiresAt: Date; createdAt: Date }) {
    const { token, ...rest } = t
    await tx.insert(refreshTokens).values({ ...rest, tokenHash: digest(token) })
  },
  async findForUpdate(tx: Tx, token: string): Promise<RefreshTokenRow | undefined> {
    const [row] = await tx.select().from(refreshTokens).where(eq(refreshTokens.tokenHash, digest(token))).for('update')
    return row
  },
  async markSpent(tx: Tx, id: string, at: Date) {
    await tx.update(refreshTokens).set({ spentAt: at }).where(eq(refreshTokens.id, id))
  },
  /** Deletes up to `limit` tokens that expired before `before` (the expires_at index). */
  deleteExpiredBefore(q: Queryable, before: Date, limit: number): Promise<number> {
    return deleteSome(q, refreshTokens, refreshTokens.id, lt(refreshTokens.expiresAt, before), limit)
  },
  async revokeFamily(tx: Tx, familyId: string, at: Date) {
    await tx.update(refreshTokens).set({ revokedAt: at })
      .where(and(eq(refreshTokens.familyId, familyId), isNull(refreshTokens.revokedAt)))
  },
  /** Every refresh token of the user, whatever its state (the account deleted). */
  async deleteAllOf(tx: Tx, userId: string) {
    await tx.delete(refreshTokens).where(eq(refreshTokens.userId, userId))
  },
  /** Every session of the user: each must log in again. */
  async revokeAllOf(tx: Tx, userId: string, at: Date) {
    await tx.update(refreshTokens).set({ revokedAt: at })
      .where(and(eq(refreshTokens.userId, userId), isNull(refreshTokens.revokedAt)))
  },
}

export const loginFailureRepo = {
  /** The times (ms) of each key's failures after `since`; a key without any is absent. */
  async timesSince(q: Queryable, keys: string[], since: Date): Promise<Map<string, number[]>> {
    const byHash = new Map(keys.map((k) => [digest(k), k]))
    const rows = await q.select({ keyHash: loginFailures.keyHash, failedAt: loginFailures.failedAt }).from(loginFailures)
      .where(and(inArray(loginFailures.keyHash, [...byHash.keys()]), gt(loginFailures.failedAt, since)))
    const times = new Map<string, number[]>()
    for (const r of rows) {
      const key = byHash.get(r.keyHash)!
      times.set(key, [...(times.get(key) ?? []), r.failedAt.getTime()])
    }
    return times
  },
  /** Counts one failure against each key, and deletes every failure at or before `forgetUpTo` (too old to count). */
  async record(q: Queryable, keys: string[], at: Date, forgetUpTo: Date): Promise<void> {
    await q.insert(loginFailures).values(keys.map((k) => ({ id: newId(), keyHash: digest(k), failedAt: at })))
    await q.delete(loginFailures).where(lte(loginFailures.failedAt, forgetUpTo))
  },
  async forget(q: Queryable, key: string): Promise<void> {
    await q.delete(loginFailures).where(eq(loginFailures.keyHash, digest(key)))
  },
  /** Deletes up to `limit` failures at or before `upTo` (too old to count), of every key. */
  deleteUpTo(q: Queryable, upTo: Date, limit: number): Promise<number> {
    return deleteSome(q, loginFailures, loginFailures.id, lte(loginFailures.failedAt, upTo), limit)
  },
}
