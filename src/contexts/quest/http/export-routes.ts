/** The route the edge calls for an avatar's quests in an export, when quests run apart (services only). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { requireTrusted } from '../../../platform/auth/principal.js'
import type { Database } from '../../../platform/db/database.js'
import { AvatarIdString, problemResponses } from '../../../platform/http/schemas.js'
import { readQuestsExport } from '../client.js'
import { QuestsExport } from './export-schemas.js'

export const questExportRoutes: FastifyPluginAsyncTypebox<{ database: Database }> = async (f, { database }) => {
  f.get('/exports/quests/avatars/:id', {
    schema: { tags: ['exports'], summary: "The quests an avatar created and joined, for its owner's export (services only)",
      params: Type.Object({ id: AvatarIdString() }), response: { 200: QuestsExport, ...problemResponses(400, 401, 403) } },
  }, async (req) => {
    requireTrusted(req.principal, 'Only services read exports; players use GET /api/v1/me/export.')
    return readQuestsExport(database, req.params.id)
  })
}
