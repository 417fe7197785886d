/**
 * The marketplace API (contract: /api/v1/marketplaces). Collections are read by readItems alone,
 * so a change of the collection's shape is one function to adjust.
 */
import { ApiError, api, completed, dataOf } from './client'
import type { ItemType, MarketItem } from './types'

/** The sold items shown: one page, the size the API gives by default. */
const SOLD_ITEMS_SHOWN = 50
/** The path parameter of the marketplace's calls. */
const market = (marketplaceId: string) => ({ marketplaceId })

interface Marketplace {
  id: string
  items: MarketItem[]
}

/** A collection of items: a plain array, `{items}` or HAL `{_embedded: {items}}` (any one embedded list). */
function readItems(body: unknown): MarketItem[] {
  if (Array.isArray(body)) return body as MarketItem[]
  if (body && typeof body === 'object') {
    const b = body as { items?: unknown; _embedded?: Record<string, unknown> }
    if (Array.isArray(b.items)) return b.items as MarketItem[]
    const embedded = b._embedded && Object.values(b._embedded).find(Array.isArray)
    if (embedded) return embedded as MarketItem[]
  }
  return []
}

/** The avatar's marketplace: found by the listing extension, else provisioned (idempotent). */
export async function marketplaceOf(avatarId: string): Promise<Marketplace> {
  try {
    const found: unknown = await dataOf(api.GET('/api/v1/marketplaces', { params: { query: { avatarId } } }))
    const first = Array.isArray(found) ? found[0] : readAny(found)
    if (first && typeof first === 'object' && 'id' in first) return toMarketplace(first)
  } catch (err) {
    if (!(err instanceof ApiError) || (err.status !== 404 && err.status !== 405)) throw err
  }
  return toMarketplace(await dataOf(api.POST('/api/v1/marketplaces', { body: { avatarId } })))
}

/** A lookup may answer the marketplace itself or a collection holding it. */
function readAny(body: unknown): unknown {
  if (body && typeof body === 'object' && 'id' in body) return body
  const b = body as { items?: unknown[]; _embedded?: Record<string, unknown> } | null
  if (Array.isArray(b?.items)) return b.items[0]
  const embedded = b?._embedded && Object.values(b._embedded).find(Array.isArray)
  return embedded?.[0]
}

function toMarketplace(body: unknown): Marketplace {
  const m = body as { id: string; items?: unknown }
  return { id: m.id, items: readItems(m.items ?? []) }
}

export const catalog = (marketplaceId: string, type: ItemType | 'ALL') =>
  dataOf(api.GET('/api/v1/marketplaces/{marketplaceId}/items', { params: { path: market(marketplaceId), query: { type } } })).then(readItems)

export const soldItems = (marketplaceId: string) =>
  dataOf(api.GET('/api/v1/marketplaces/{marketplaceId}/sold-items', { params: { path: market(marketplaceId), query: { limit: SOLD_ITEMS_SHOWN } } })).then(readItems)

export const buy = (marketplaceId: string, itemName: string, currentLevel: number) =>
  completed(api.POST('/api/v1/marketplaces/{marketplaceId}/items/{itemName}/buy', {
    params: { path: { ...market(marketplaceId), itemName }, query: { currentLevel } },
  }))

export const sell = (marketplaceId: string, itemName: string) =>
  completed(api.POST('/api/v1/marketplaces/{marketplaceId}/sold-items/{itemName}/sell', { params: { path: { ...market(marketplaceId), itemName } } }))

/** What a refused buy or sell means to the player. */
export function tradeProblem(err: unknown, itemName: string): string {
  if (!(err instanceof ApiError)) return `Could not reach the marketplace: ${String((err as Error).message ?? err)}`
  switch (err.slug) {
    case 'insufficient-funds': return `Not enough money for ${itemName}. ${err.message}`
    case 'level-too-low': return `Your level is too low for ${itemName}. ${err.message}`
    case 'item-not-in-inventory': return `${itemName} is not in your inventory.`
    case 'item-equipped': return `${itemName} is equipped: unequip it first to sell it.`
  }
  if (err.status === 502) return 'The avatar service failed during the trade; nothing was lost. Try again in a moment.'
  return err.message
}
