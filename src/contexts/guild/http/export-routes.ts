/** The routes the edge calls for an avatar's guild membership and chat messages in an export, when guilds run apart (services only). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { requireTrusted } from '../../../platform/auth/principal.js'
import { AvatarIdString, problemResponses } from '../../../platform/http/schemas.js'
import type { ChatApp } from '../app/chat-app.js'
import type { GuildApp } from '../app/guild-app.js'
import { ChatMessagesExport, chatMessagesExport, GuildMembershipExport, membershipExport } from './export-schemas.js'

export const guildExportRoutes: FastifyPluginAsyncTypebox<{ app: GuildApp; chat: ChatApp }> = async (f, { app, chat }) => {
  f.get('/exports/guilds/avatars/:id', {
    schema: {
      tags: ['service'], operationId: 'serviceExportGuildMembership', summary: "Export an avatar's guild membership (services only)",
      description: "The avatar's guild, role, nickname and join date (null when it is in none), as the edge puts them in its " +
        "owner's export when guilds run apart. Only service and admin tokens may call it: 403 `service-only` for a player, " +
        'who uses `GET /api/v1/me/export`.',
      params: Type.Object({ id: AvatarIdString() }),
      response: { 200: Type.Object({ membership: GuildMembershipExport }), ...problemResponses(400, 401, 403) },
    },
  }, async (req) => {
    requireTrusted(req.principal, 'Only services read exports; players use GET /api/v1/me/export.')
    return { membership: membershipExport(await app.membershipOf(req.params.id)) }
  })

  f.get('/exports/guilds/avatars/:id/messages', {
    schema: {
      tags: ['service'], operationId: 'serviceExportGuildMessages', summary: "Export an avatar's guild chat messages (services only)",
      description: "The messages the avatar wrote, oldest first, as the edge puts them in its owner's export when guilds run apart. " +
        "Only service and admin tokens may call it: 403 `service-only` for a player, who uses `GET /api/v1/me/export`.",
      params: Type.Object({ id: AvatarIdString() }),
      response: { 200: Type.Object({ messages: ChatMessagesExport }), ...problemResponses(400, 401, 403) },
    },
  }, async (req) => {
    requireTrusted(req.principal, 'Only services read exports; players use GET /api/v1/me/export.')
    return { messages: chatMessagesExport(await chat.messagesOf(req.params.id)) }
  })
}
