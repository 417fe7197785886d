import { and, asc, eq } from 'drizzle-orm'
import type { Queryable } from '../../../platform/db/database.js'
import type { Trade } from '../domain/marketplace.js'
import type { SagaState } from '../domain/saga.js'
import { marketplaces, sagas, soldItems } from './tables.js'

/** An avatar's purchases (its buy runs) and sales (its marketplace's sold items), oldest first (its owner's export). */
export async function tradeOf(q: Queryable, avatarId: string): Promise<Trade> {
  const [buys, sales] = await Promise.all([
    q.select({
      id: sagas.id, itemName: sagas.itemName, price: sagas.price, state: sagas.state, failure: sagas.failure, createdAt: sagas.createdAt, updatedAt: sagas.updatedAt,
    }).from(sagas).where(and(eq(sagas.avatarId, avatarId), eq(sagas.kind, 'BUY'))).orderBy(asc(sagas.createdAt), asc(sagas.id)),
    q.select({ item: soldItems.item, price: soldItems.price, soldAt: soldItems.soldAt }).from(soldItems)
      .innerJoin(marketplaces, eq(marketplaces.id, soldItems.marketplaceId))
      .where(eq(marketplaces.avatarId, avatarId)).orderBy(asc(soldItems.seq)),
  ])
  return { purchases: buys.map((s) => ({ ...s, state: s.state as SagaState })), sales }
}
