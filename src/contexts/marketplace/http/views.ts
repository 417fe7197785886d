import { links } from '../../../platform/http/links.js'
import { catalogOfType, type CatalogItem } from '../domain/catalog.js'
import type { Marketplace, SoldItem } from '../domain/marketplace.js'

export const marketplacePath = (id: string) => `/api/v1/marketplaces/${id}`
const itemPath = (id: string, name: string) => `${marketplacePath(id)}/items/${encodeURIComponent(name)}`
const soldItemPath = (id: string, name: string) => `${marketplacePath(id)}/sold-items/${encodeURIComponent(name)}`

export const shopItemView = (i: CatalogItem) => ({ ...i })

/** A marketplace with every item on sale. */
export function marketplaceView(m: Marketplace) {
  const self = marketplacePath(m.id)
  return {
    id: m.id,
    avatarId: m.avatarId,
    items: catalogOfType('ALL').map(shopItemView),
    _links: links({
      self,
      marketplace: self,
      items: `${self}/items`,
      soldItems: `${self}/sold-items`,
      avatar: `/api/v1/avatars/${encodeURIComponent(m.avatarId)}`,
    }),
  }
}

export function shopItemDetail(marketplaceId: string, i: CatalogItem) {
  const self = itemPath(marketplaceId, i.name)
  return { ...shopItemView(i), _links: links({ self, marketplace: marketplacePath(marketplaceId), buy: `${self}/buy` }) }
}

export const soldItemView = (s: SoldItem) => ({ ...s.item, price: s.price, soldAt: s.soldAt.toISOString() })

export function soldItemDetail(marketplaceId: string, s: SoldItem) {
  return {
    ...soldItemView(s),
    _links: links({
      self: soldItemPath(marketplaceId, s.item.name),
      marketplace: marketplacePath(marketplaceId),
      soldItems: `${marketplacePath(marketplaceId)}/sold-items`,
    }),
  }
}
