import { createHash } from 'node:crypto'
import { and, eq, isNull } from 'drizzle-orm'
import type { Role } from '../../../platform/auth/principal.js'
import type { Queryable, Tx } from '../../../platform/db/database.js'
import { refreshTokens, users } from './tables.js'

export type UserRow = typeof users.$inferSelect
export type RefreshTokenRow = typeof refreshTokens.$inferSelect

export const hashToken = (token: string) => createHash('sha256').update(token).digest('base64url')

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
    await tx.insert(refreshTokens).values({ ...rest, tokenHash: hashToken(token) })
  },
  async findForUpdate(tx: Tx, token: string): Promise<RefreshTokenRow | undefined> {
    const [row] = await tx.select().from(refreshTokens).where(eq(refreshTokens.tokenHash, hashToken(token))).for('update')
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
