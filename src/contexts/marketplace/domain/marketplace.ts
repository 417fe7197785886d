/** What the marketplace keeps of an avatar's trade: its marketplace, its sales, its buy runs. Plain data. */
import type { Item } from './catalog.js'
import type { SagaState } from './saga.js'

/** An avatar's marketplace, private to the avatar's owner. */
export interface Marketplace {
  id: string
  avatarId: string
  ownerId: string
}

/** An item the avatar sold: what the shop paid, and when. */
export interface SoldItem {
  sagaId: string
  item: Item
  price: number
  soldAt: Date
}

/** A buy run as its avatar's trade shows it: the item asked for, the price charged, how it ended (or stands). */
interface Purchase {
  id: string
  itemName: string
  price: number | null
  state: SagaState
  failure: string | null
  createdAt: Date
  updatedAt: Date
}

/** An avatar's purchases (its buy runs) and sales, each oldest first. */
export interface Trade {
  purchases: Purchase[]
  sales: Omit<SoldItem, 'sagaId'>[]
}
