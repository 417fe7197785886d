/** Events the marketplace publishes: its public event contract. Payloads are plain values. */
import type { DomainEvent } from '../../platform/events/outbox.js'

interface Trade {
  marketplaceId: string
  avatarId: string
  /** The saga run that made the trade. */
  sagaId: string
  item: { type: string; name: string; power: number }
  price: number
}

/** A purchase finished: the price was paid and the item is in the avatar's inventory. */
export type ItemBought = DomainEvent<'ItemBought', Trade>
/** A sale finished: the item left the inventory and the avatar was paid `price`. */
export type ItemSold = DomainEvent<'ItemSold', Trade>

export type MarketplaceEvent = ItemBought | ItemSold
