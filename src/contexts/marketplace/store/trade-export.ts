import { and, asc, eq } from 'drizzle-orm'
import type { Queryable } from '../../../platform/db/database.js'
import type { TradeExport } from '../http/export-schemas.js'
import { marketplaces, sagas, soldItems } from './tables.js'

/** An avatar's purchases (its buy runs) and sales (its marketplace's sold items), oldest first, as exported. */
export async function tradeExport(q: Queryable, avatarId: string): Promise<TradeExport> {
  const [buys, sold] = await Promise.all([
    q.select().from(sagas).where(and(eq(sagas.avatarId, avatarId), eq(sagas.kind, 'BUY'))).orderBy(asc(sagas.createdAt), asc(sagas.id)),
    q.select({ item: soldItems.item, price: soldItems.price, soldAt: soldItems.soldAt }).from(soldItems)
      .innerJoin(marketplaces, eq(marketplaces.id, soldItems.marketplaceId))
      .where(eq(marketplaces.avatarId, avatarId)).orderBy(asc(soldItems.seq)),
  ])
  return {
    purchases: buys.map((s) => ({
      id: s.id, itemName: s.itemName, price: s.price, state: s.state as TradeExport['purchases'][number]['state'], failure: s.failure,
      createdAt: s.createdAt.toISOString(), updatedAt: s.updatedAt.toISOString(),
    })),
    sales: sold.map((s) => ({ ...s.item, price: s.price, soldAt: s.soldAt.toISOString() })),
  }
}
