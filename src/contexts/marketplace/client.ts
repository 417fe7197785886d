/**
 * The port other contexts use to ask the marketplace for something: an avatar's trade for its
 * owner's export (DESIGN §9.4). In-process a direct call to its use cases; split services, an
 * HTTP call to the marketplace service's export route with a service token.
 */
import type { TokenSource } from '../../platform/auth/service-token.js'
import type { Database } from '../../platform/db/database.js'
import { ServiceClient, type ServiceClientOptions } from '../../platform/http/service-client.js'
import type { MarketplaceApp } from './app/marketplace-app.js'
import { tradeExport, type TradeExport } from './http/export-schemas.js'

// The marketplace's part of a player's export: the edge composes the document's schema from it.
export { TradeExport } from './http/export-schemas.js'

export interface MarketplaceClient {
  /** The avatar's purchases and sales, as exported. */
  exportOf(avatarId: string): Promise<TradeExport>
}

/** The port as a direct call; never inside an open transaction (see inProcessAvatarClient). */
export function inProcessMarketplaceClient(app: MarketplaceApp, database: Database): MarketplaceClient {
  return database.outsideTransactions<MarketplaceClient>('MarketplaceClient', {
    exportOf: async (avatarId) => tradeExport(await app.tradeOf(avatarId)),
  })
}

/** The same port over the marketplace service's internal routes (split services), with a service token. */
export function httpMarketplaceClient(baseUrl: string | (() => string), token: TokenSource, opts: Partial<ServiceClientOptions> = {}): MarketplaceClient {
  const http = new ServiceClient(baseUrl, token, opts)
  return {
    exportOf: (avatarId) => http.call({ method: 'GET', path: `/internal/v1/exports/marketplace/avatars/${encodeURIComponent(avatarId)}` }),
  }
}
