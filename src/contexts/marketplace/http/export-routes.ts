/** The route the edge calls for an avatar's trade in an export, when the marketplace runs apart (services only). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { requireTrusted } from '../../../platform/auth/principal.js'
import { AvatarIdString, problemResponses } from '../../../platform/http/schemas.js'
import type { MarketplaceApp } from '../app/marketplace-app.js'
import { TradeExport, tradeExport } from './export-schemas.js'

export const marketplaceExportRoutes: FastifyPluginAsyncTypebox<{ app: MarketplaceApp }> = async (f, { app }) => {
  f.get('/exports/marketplace/avatars/:id', {
    schema: {
      tags: ['service'], operationId: 'serviceExportTrades', summary: "Export an avatar's purchases and sales (services only)",
      description: "The avatar's buy runs (with how each ended) and the items it sold, oldest first, as the edge puts them in its " +
        "owner's export when the marketplace runs apart. Only service and admin tokens may call it: 403 `service-only` for a " +
        'player, who uses `GET /api/v1/me/export`.',
      params: Type.Object({ id: AvatarIdString() }), response: { 200: TradeExport, ...problemResponses(400, 401, 403) },
    },
  }, async (req) => {
    requireTrusted(req.principal, 'Only services read exports; players use GET /api/v1/me/export.')
    return tradeExport(await app.tradeOf(req.params.id))
  })
}
