/**
 * The guild's part of a player's export (DESIGN §9.4): the avatar's membership, or null, and its chat messages. The edge
 * composes the export document's schema from it (through client.ts).
 */
import { Type, type Static } from 'typebox'
import { Nullable, StringEnum } from '../../../platform/http/schemas.js'
import type { Membership } from '../app/guild-app.js'
import type { ChatMessage } from '../domain/chat.js'
import { ROLES } from '../domain/rules.js'

export const GuildMembershipExport = Nullable(Type.Object({
  guildId: Type.String(),
  name: Type.String(),
  points: Type.Integer(),
  role: StringEnum(ROLES),
  nickname: Type.String(),
  joinedAt: Type.String({ format: 'date-time' }),
}, { description: "The avatar's guild and its place in it; null when it is in none" }))
export type GuildMembershipExport = Static<typeof GuildMembershipExport>

export const membershipExport = (m: Membership | null): GuildMembershipExport => m && {
  guildId: m.guild.id, name: m.guild.name, points: m.guild.points, role: m.member.role, nickname: m.member.nickname, joinedAt: m.member.joinedAt.toISOString(),
}

/** The avatar's own guild chat messages, oldest first (tombstones with text null). */
export const ChatMessagesExport = Type.Array(Type.Object({
  id: Type.String(),
  guildId: Type.String(),
  text: Nullable(Type.String({ description: 'null once deleted' })),
  sentAt: Type.String({ format: 'date-time' }),
  deletedAt: Nullable(Type.String({ format: 'date-time' })),
}), { description: "The avatar's guild chat messages still kept, oldest first" })
export type ChatMessagesExport = Static<typeof ChatMessagesExport>

export const chatMessagesExport = (messages: ChatMessage[]): ChatMessagesExport => messages.map((m) => ({
  id: m.id, guildId: m.guildId, text: m.text, sentAt: m.sentAt.toISOString(), deletedAt: m.deletedAt?.toISOString() ?? null,
}))
