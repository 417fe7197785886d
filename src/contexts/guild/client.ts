/**
 * The port other contexts use to ask the guild context about membership. The adapter is picked
 * at start-up: in-process (a direct call), or HTTP to the guild service's public API when
 * contexts run as separate services.
 */
import type { TokenSource } from '../../platform/auth/service-token.js'
import type { Database } from '../../platform/db/database.js'
import { ServiceClient, type ServiceClientOptions } from '../../platform/http/service-client.js'
import { isId } from '../../platform/ids.js'
import type { ChatApp } from './app/chat-app.js'
import type { GuildApp } from './app/guild-app.js'
import { chatMessagesExport, membershipExport, type ChatMessagesExport, type GuildMembershipExport } from './http/export-schemas.js'

// The guild's part of a player's export (DESIGN §9.4): the edge composes the document's schema from it.
export { ChatMessagesExport, GuildMembershipExport } from './http/export-schemas.js'

export interface GuildClient {
  /** The id of the guild the avatar belongs to, or null. */
  guildOf(avatarId: string): Promise<string | null>
  /** Whether a guild has this id; any string may be asked (one that is no guild id answers false). */
  exists(guildId: string): Promise<boolean>
  /** The avatar's guild membership as exported (DESIGN §9.4), or null. */
  exportMembership(avatarId: string): Promise<GuildMembershipExport>
  /** The guild chat messages the avatar wrote, as exported (DESIGN §9.4). */
  exportChatMessages(avatarId: string): Promise<ChatMessagesExport>
}

/** The port as a direct call; never inside an open transaction (see inProcessAvatarClient). */
export function inProcessGuildClient(app: GuildApp, chat: ChatApp, database: Database): GuildClient {
  return database.outsideTransactions<GuildClient>('GuildClient', {
    guildOf: async (avatarId) => (await app.guildOf(avatarId)) ?? null,
    exists: (guildId) => app.exists(guildId),
    exportMembership: async (avatarId) => membershipExport(await app.membershipOf(avatarId)),
    exportChatMessages: async (avatarId) => chatMessagesExport(await chat.messagesOf(avatarId)),
  })
}

/**
 * The same port over the guild service's public API (split services), with a service token:
 * `GET /api/v1/guilds?memberId=` (a list of none or one) and `GET /api/v1/guilds/{id}` (404: no
 * such guild), and the export route under /internal/v1. Other refusals and failures arrive as platform errors, never as "no guild".
 */
export function httpGuildClient(baseUrl: string | (() => string), token: TokenSource, opts: Partial<ServiceClientOptions> = {}): GuildClient {
  const http = new ServiceClient(baseUrl, token, opts)
  return {
    guildOf: async (avatarId) => {
      const page = await http.call<{ items: { id: string }[] }>({ method: 'GET', path: `/api/v1/guilds?memberId=${encodeURIComponent(avatarId)}&limit=1` })
      return page.items[0]?.id ?? null
    },
    exists: async (guildId) => {
      // The API refuses a malformed id (400); no guild has one.
      if (!isId(guildId)) return false
      return (await http.callOrUndefined({ method: 'GET', path: `/api/v1/guilds/${guildId}` })) !== undefined
    },
    exportMembership: async (avatarId) =>
      (await http.call<{ membership: GuildMembershipExport }>({ method: 'GET', path: `/internal/v1/exports/guilds/avatars/${encodeURIComponent(avatarId)}` })).membership,
    exportChatMessages: async (avatarId) =>
      (await http.call<{ messages: ChatMessagesExport }>({ method: 'GET', path: `/internal/v1/exports/guilds/avatars/${encodeURIComponent(avatarId)}/messages` })).messages,
  }
}
