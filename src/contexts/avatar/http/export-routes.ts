/**
 * The route the edge calls to export a player's avatars when the avatar context runs as its own
 * process (the HTTP adapter of `AvatarClient.exportOwnedBy`). Services only.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { requireTrusted } from '../../../platform/auth/principal.js'
import { problemResponses } from '../../../platform/http/schemas.js'
import type { AvatarApp } from '../app/avatar-app.js'
import { avatarExport, AvatarExportList } from './export-schemas.js'

export const avatarExportRoutes: FastifyPluginAsyncTypebox<{ app: AvatarApp }> = async (f, { app }) => {
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
}
