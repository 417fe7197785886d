/**
 * The marketplace's part of a player's export (DESIGN §9.4): what it knows of an avatar's trade:
 * its purchases (each buy run, with how it ended) and its sales (the sold items list). The edge
 * composes the export document's schema from it (through client.ts).
 */
import { Type, type Static } from 'typebox'
import { Nullable, StringEnum } from '../../../platform/http/schemas.js'
import type { Trade } from '../domain/marketplace.js'
import { SAGA_STATES } from '../domain/saga.js'
import { SoldItemView } from './schemas.js'

const { _links: _s, ...soldFields } = SoldItemView.properties

const PurchaseExport = Type.Object({
  id: Type.String(),
  itemName: Type.String(),
  price: Nullable(Type.Integer({ description: 'The catalog price charged; null when the run failed before pricing' })),
  state: StringEnum(SAGA_STATES, { description: 'DONE bought; COMPENSATED refunded; FAILED refused; RUNNING or COMPENSATING under way' }),
  failure: Nullable(Type.String()),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
}, { description: 'A buy run, kept for the retention period once settled' })

export const TradeExport = Type.Object({
  purchases: Type.Array(PurchaseExport, { description: 'Buy runs, oldest first' }),
  sales: Type.Array(Type.Object(soldFields), { description: 'Items sold, with the price paid, oldest first' }),
})
export type TradeExport = Static<typeof TradeExport>

export const tradeExport = (t: Trade): TradeExport => ({
  purchases: t.purchases.map((p) => ({ ...p, createdAt: p.createdAt.toISOString(), updatedAt: p.updatedAt.toISOString() })),
  sales: t.sales.map((s) => ({ ...s.item, price: s.price, soldAt: s.soldAt.toISOString() })),
})
