import type { AvatarItem } from '../../avatar/client.js'
import { LevelTooLow } from './errors.js'
import { CATALOG, MIN_SELL_PRICE, SELL_PRICE_DIVISOR, type CatalogItem, type ITEM_FILTERS } from './rules.js'

export type { CatalogItem }
export type ItemFilter = (typeof ITEM_FILTERS)[number]

/** An item as an avatar holds it: what is bought is added to the inventory in this shape. */
export type Item = AvatarItem

export const findInCatalog = (name: string): CatalogItem | undefined => CATALOG.find((i) => i.name === name)

export const catalogOfType = (filter: ItemFilter): readonly CatalogItem[] =>
  filter === 'ALL' ? CATALOG : CATALOG.filter((i) => i.type === filter)

/** The catalog entry without shop data: what lands in the inventory. */
export function asItem({ type, name, description, power, effect }: CatalogItem): Item {
  return { type, name, description, power, ...(effect ? { effect } : {}) }
}

/**
 * What the shop pays for an item: half its catalog price rounded down, or its power when the
 * catalog does not sell it (matched by name and type); at least 1 either way.
 */
export function sellPrice(item: Item): number {
  const listed = CATALOG.find((c) => c.name === item.name && c.type === item.type)
  return Math.max(MIN_SELL_PRICE, listed ? Math.floor(listed.price / SELL_PRICE_DIVISOR) : item.power)
}

/** A purchase needs the item's level: from the avatar's real level, and from a level the buyer states. */
export function checkLevel(item: CatalogItem, level: number, whose: 'avatar' | 'stated'): void {
  if (level < item.requiredLevel) throw new LevelTooLow(item.name, item.requiredLevel, level, whose)
}
