/** The route the edge calls for an avatar's trade in an export, when the marketplace runs apart (services only). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { requireTrusted } from '../../../platform/auth/principal.js'
import type { Database } from '../../../platform/db/database.js'
import { AvatarIdString, problemResponses } from '../../../platform/http/schemas.js'
import { tradeExport } from '../store/trade-export.js'
import { TradeExport } from './export-schemas.js'

export const marketplaceExportRoutes: FastifyPluginAsyncTypebox<{ database: Database }> = async (f, { database }) => {
  f.get('/exports/marketplace/avatars/:id', {
    schema: { tags: ['exports'], summary: "An avatar's purchases and sales, for its owner's export (services only)",
      params: Type.Object({ id: AvatarIdString() }), response: { 200: TradeExport, ...problemResponses(400, 401, 403) } },
  }, async (req) => {
    requireTrusted(req.principal, 'Only services read exports; players use GET /api/v1/me/export.')
    return tradeExport(database.current(), req.params.id)
  })
}
