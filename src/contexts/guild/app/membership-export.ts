import type { Queryable } from '../../../platform/db/database.js'
import type { GuildMembershipExport } from '../http/export-schemas.js'
import { guildRepo } from '../store/guilds.js'

/** The avatar's guild membership as exported (DESIGN §9.4), or null when it belongs to none. */
export async function membershipExport(q: Queryable, avatarId: string): Promise<GuildMembershipExport> {
  const guildId = await guildRepo.guildOf(q, avatarId)
  const guild = guildId === undefined ? undefined : await guildRepo.find(q, guildId)
  const member = guild?.members.find((m) => m.avatarId === avatarId)
  if (!guild || !member) return null
  return { guildId: guild.id, name: guild.name, points: guild.points, role: member.role, nickname: member.nickname, joinedAt: member.joinedAt.toISOString() }
}
