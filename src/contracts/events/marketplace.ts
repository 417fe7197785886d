/**
 * Events the marketplace publishes: its public event contract. Payloads are plain values,
 * checked against these schemas when a consumer receives them. `version` is the saga run's
 * version after the change.
 */
import { Type } from 'typebox'
import { eventsOf, type DraftsOf, type EventOf } from '../../platform/events/contract.js'

const event = eventsOf('marketplace')

const Trade = Type.Object({
  marketplaceId: Type.String(),
  avatarId: Type.String(),
  /** The saga run that made the trade. */
  sagaId: Type.String(),
  item: Type.Object({ type: Type.String(), name: Type.String(), power: Type.Integer({ minimum: 0 }) }),
  price: Type.Integer({ minimum: 0 }),
})

/** A purchase finished: the price was paid and the item is in the avatar's inventory. */
export const ItemBought = event('ItemBought', Trade)
/** A sale finished: the item left the inventory and the avatar was paid `price`. */
export const ItemSold = event('ItemSold', Trade)

export type ItemBought = EventOf<typeof ItemBought>
export type ItemSold = EventOf<typeof ItemSold>

export type MarketplaceDraft = DraftsOf<[typeof ItemBought, typeof ItemSold]>
