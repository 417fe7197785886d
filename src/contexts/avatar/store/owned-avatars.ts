import { asc, eq } from 'drizzle-orm'
import type { Queryable } from '../../../platform/db/database.js'
import type { Avatar } from '../domain/avatar.js'
import { avatars } from './tables.js'

/** The avatars a user owns, oldest first (a player's export). */
export async function avatarsOwnedBy(q: Queryable, ownerId: string): Promise<Avatar[]> {
  const rows = await q.select().from(avatars).where(eq(avatars.ownerId, ownerId)).orderBy(asc(avatars.createdAt), asc(avatars.id))
  return rows.map(({ createdAt: _createdAt, ...a }) => a)
}
