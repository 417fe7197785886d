/**
 * The routes the edge calls to export a player's avatars and their leagues when the avatar context
 * runs as its own process (the HTTP adapter of `AvatarClient.exportOwnedBy` and `exportLeague`). Services only.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { requireTrusted } from '../../../platform/auth/principal.js'
import { AvatarIdString, problemResponses } from '../../../platform/http/schemas.js'
import type { AvatarApp } from '../app/avatar-app.js'
import type { LeagueApp } from '../app/league-app.js'
import { avatarExport, AvatarExportList } from './export-schemas.js'
import { LeagueExport, leagueExport } from './league-schemas.js'

export const avatarExportRoutes: FastifyPluginAsyncTypebox<{ app: AvatarApp; leagues: LeagueApp }> = async (f, { app, leagues }) => {
  f.get('/exports/avatars', {
    schema: {
      tags: ['service'],
      operationId: 'serviceExportAvatars',
      summary: "A user's avatars, for their export (services only)",
      description: 'Every avatar the user owns, oldest first, as the export document holds them; the edge asks, having checked ' +
        'whose data it is. Refused with 403 `service-only` for a player token (players use GET /api/v1/me/export).',
      querystring: Type.Object({ ownerId: Type.String({ format: 'uuid' }) }), response: { 200: AvatarExportList, ...problemResponses(400, 401, 403) },
    },
  }, async (req) => {
    requireTrusted(req.principal, 'Only services read exports; players use GET /api/v1/me/export.')
    return { items: (await app.ownedBy(req.query.ownerId)).map(avatarExport) }
  })

  f.get('/exports/avatars/:id/league', {
    schema: {
      tags: ['service'], operationId: 'serviceExportAvatarLeague', summary: "Export an avatar's weekly leagues (services only)",
      description: "The tier the avatar's next season starts in, each season it scored in and each closed season's result, oldest " +
        "first, as the edge puts them in its owner's export. Nothing kept answers empty lists. Only service and admin tokens may " +
        'call it: 403 `service-only` for a player, who uses `GET /api/v1/me/export`.',
      params: Type.Object({ id: AvatarIdString() }),
      response: { 200: Type.Object({ league: LeagueExport }), ...problemResponses(400, 401, 403) },
    },
  }, async (req) => {
    requireTrusted(req.principal, 'Only services read exports; players use GET /api/v1/me/export.')
    return { league: leagueExport(await leagues.exportOf(req.params.id)) }
  })
}
