/** The route the edge calls for an avatar's quests in an export, when quests run apart (services only). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { requireTrusted } from '../../../platform/auth/principal.js'
import { AvatarIdString, problemResponses } from '../../../platform/http/schemas.js'
import type { QuestApp } from '../app/quest-app.js'
import { QuestsExport, questsExport } from './export-schemas.js'

export const questExportRoutes: FastifyPluginAsyncTypebox<{ app: QuestApp }> = async (f, { app }) => {
  f.get('/exports/quests/avatars/:id', {
    schema: {
      tags: ['service'], operationId: 'serviceExportQuests', summary: "Export an avatar's quests (services only)",
      description: 'The quests an avatar created (with their habit entries) and those it joined (its window, progress and payout), ' +
        "as the edge puts them in its owner's export when quests run apart. Only service and admin tokens may call it: " +
        '403 `service-only` for a player, who uses `GET /api/v1/me/export`. An avatar with none answers empty lists.',
      params: Type.Object({ id: AvatarIdString() }), response: { 200: QuestsExport, ...problemResponses(400, 401, 403) },
    },
  }, async (req) => {
    requireTrusted(req.principal, 'Only services read exports; players use GET /api/v1/me/export.')
    return questsExport(await app.exportOf(req.params.id))
  })
}
