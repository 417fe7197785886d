import { createHash } from 'node:crypto'
import { and, eq, gt, inArray, isNull, lte } from 'drizzle-orm'
import type { Role } from '../../../platform/auth/principal.js'
import type { Queryable, Tx } from '../../../platform/db/database.js'
import { newId } from '../../../platform/ids.js'
import { loginFailures, refreshTokens, users } from './tables.js'

export type UserRow = typeof users.$inferSelect
export type RefreshTokenRow = typeof refreshTokens.$inferSelect

/** SHA-256 (base64url): what the tables keep instead of a secret, an email or an address. */
const digest = (text: string) => createHash('sha256').update(text).digest('base64url')

export const userRepo = {
  /** false when the email is taken. */
  async insert(tx: Tx, u: { id: string; email: string; name: string; passwordHash: string; role: Role; createdAt: Date }): Promise<boolean> {
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
  async revokeFamily(tx: Tx, familyId: string, at: Date) {
    await tx.update(refreshTokens).set({ revokedAt: at })
      .where(and(eq(refreshTokens.familyId, familyId), isNull(refreshTokens.revokedAt)))
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
}
