/**
 * The port other contexts use to ask the marketplace for something: today, an avatar's trade for
 * its owner's export (DESIGN §9.4). In-process a direct read; split services, an HTTP call to the
 * marketplace service's export route with a service token.
 */
import type { TokenSource } from '../../platform/auth/service-token.js'
import type { Database } from '../../platform/db/database.js'
import { ServiceClient, type ServiceClientOptions } from '../../platform/http/service-client.js'
import type { TradeExport } from './http/export-schemas.js'
import { tradeExport } from './store/trade-export.js'

// The marketplace's part of a player's export: the edge composes the document's schema from it.
export { TradeExport } from './http/export-schemas.js'

export interface MarketplaceClient {
  /** The avatar's purchases and sales, as exported. */
  exportOf(avatarId: string): Promise<TradeExport>
}

/** The port as a direct call; never inside an open transaction (see inProcessAvatarClient). */
export function inProcessMarketplaceClient(database: Database): MarketplaceClient {
  return database.outsideTransactions<MarketplaceClient>('MarketplaceClient', {
    exportOf: (avatarId) => tradeExport(database.current(), avatarId),
  })
}

/** The same port over the marketplace service's API (split services), with a service token. */
export function httpMarketplaceClient(baseUrl: string | (() => string), token: TokenSource, opts: Partial<ServiceClientOptions> = {}): MarketplaceClient {
  const http = new ServiceClient(baseUrl, token, opts)
  return {
    exportOf: (avatarId) => http.call({ method: 'GET', path: `/api/v1/exports/marketplace/avatars/${encodeURIComponent(avatarId)}` }),
  }
}
