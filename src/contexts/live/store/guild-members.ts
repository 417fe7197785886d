import { and, eq, inArray, sql } from 'drizzle-orm'
import type { Queryable } from '../../../platform/db/database.js'
import { guildMembers } from './tables.js'

/** The guilds' members as the live context follows them from the guild's events. */
export const guildMemberRepo = {
  async join(q: Queryable, rows: { avatarId: string; guildId: string }[]): Promise<void> {
    if (rows.length === 0) return
    await q.insert(guildMembers).values(rows).onConflictDoUpdate({ target: guildMembers.avatarId, set: { guildId: sql`excluded.guild_id` } })
  },

  /** The avatar leaves this guild (a late event of a guild it has since left does nothing). */
  async leave(q: Queryable, avatarId: string, guildId: string): Promise<void> {
    await q.delete(guildMembers).where(and(eq(guildMembers.avatarId, avatarId), eq(guildMembers.guildId, guildId)))
  },

  async disband(q: Queryable, guildId: string): Promise<void> {
    await q.delete(guildMembers).where(eq(guildMembers.guildId, guildId))
  },

  /** The members of each of these guilds. */
  async membersOf(q: Queryable, guildIds: string[]): Promise<Map<string, string[]>> {
    const members = new Map<string, string[]>(guildIds.map((g) => [g, []]))
    if (guildIds.length === 0) return members
    const rows = await q.select().from(guildMembers).where(inArray(guildMembers.guildId, [...new Set(guildIds)]))
    for (const r of rows) members.get(r.guildId)!.push(r.avatarId)
    return members
  },
}
