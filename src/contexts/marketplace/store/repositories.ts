import { and, asc, count, desc, eq, inArray, lt, sql } from 'drizzle-orm'
import { deleteSome } from '../../../platform/db/bounded-delete.js'
import type { Queryable, Tx } from '../../../platform/db/database.js'
import type { Item } from '../domain/catalog.js'
import type { Marketplace, SoldItem } from '../domain/marketplace.js'
import { OPEN_STATES, SETTLED_STATES, type Saga, type SagaState } from '../domain/saga.js'
import { closedAvatars, marketplaces, sagas, soldItems } from './tables.js'

const toMarketplace = (r: typeof marketplaces.$inferSelect): Marketplace => ({ id: r.id, avatarId: r.avatarId, ownerId: r.ownerId })

export const marketplaceRepo = {
  /** Makes the avatar's marketplace unless it has one; either way answers the one it has. */
  async open(tx: Tx, m: Marketplace, createdAt: Date): Promise<Marketplace> {
    await tx.insert(marketplaces).values({ ...m, createdAt }).onConflictDoNothing({ target: marketplaces.avatarId })
    const [row] = await tx.select().from(marketplaces).where(eq(marketplaces.avatarId, m.avatarId))
    return toMarketplace(row!)
  },

  async find(q: Queryable, id: string): Promise<Marketplace | undefined> {
    const [row] = await q.select().from(marketplaces).where(eq(marketplaces.id, id))
    return row && toMarketplace(row)
  },

  async findOfAvatar(q: Queryable, avatarId: string): Promise<Marketplace | undefined> {
    const [row] = await q.select().from(marketplaces).where(eq(marketplaces.avatarId, avatarId))
    return row && toMarketplace(row)
  },

  /** Its sold items go with it (foreign key, cascading); the deletion is remembered. */
  async deleteOfAvatar(tx: Tx, avatarId: string, deletedAt: Date): Promise<void> {
    await tx.delete(marketplaces).where(eq(marketplaces.avatarId, avatarId))
    await tx.insert(closedAvatars).values({ avatarId, deletedAt })
      .onConflictDoUpdate({ target: closedAvatars.avatarId, set: { deletedAt: sql`greatest(${closedAvatars.deletedAt}, excluded.deleted_at)` } })
  },

  /** When the avatar was last deleted, if ever (its id may be taken again later). */
  async deletedAt(q: Queryable, avatarId: string): Promise<Date | undefined> {
    const [row] = await q.select({ deletedAt: closedAvatars.deletedAt }).from(closedAvatars).where(eq(closedAvatars.avatarId, avatarId))
    return row?.deletedAt
  },
}

export const soldItemRepo = {
  /** Lists a sale once, and only while its marketplace exists. */
  async list(tx: Tx, sale: { sagaId: string; marketplaceId: string; item: Item; price: number; soldAt: Date }): Promise<void> {
    const [exists] = await tx.select({ id: marketplaces.id }).from(marketplaces).where(eq(marketplaces.id, sale.marketplaceId))
    if (!exists) return
    await tx.insert(soldItems).values({ ...sale, name: sale.item.name }).onConflictDoNothing()
  },

  /** One page of a marketplace's sold items, newest first, after the sale at position `beforeSeq`. */
  async page(q: Queryable, marketplaceId: string, limit: number, beforeSeq?: number): Promise<SoldItem[]> {
    return q.select({ sagaId: soldItems.sagaId, item: soldItems.item, price: soldItems.price, soldAt: soldItems.soldAt }).from(soldItems)
      .where(and(eq(soldItems.marketplaceId, marketplaceId), beforeSeq === undefined ? undefined : lt(soldItems.seq, beforeSeq)))
      .orderBy(desc(soldItems.seq)).limit(limit)
  },

  /** The paging position of a sale of this marketplace (cursors name the last sale of a page). */
  async positionOf(q: Queryable, marketplaceId: string, sagaId: string): Promise<number | undefined> {
    const [row] = await q.select({ seq: soldItems.seq }).from(soldItems)
      .where(and(eq(soldItems.sagaId, sagaId), eq(soldItems.marketplaceId, marketplaceId)))
    return row?.seq
  },

  /** The latest sale of an item of that name. */
  async latestNamed(q: Queryable, marketplaceId: string, name: string): Promise<SoldItem | undefined> {
    const [row] = await q.select({ sagaId: soldItems.sagaId, item: soldItems.item, price: soldItems.price, soldAt: soldItems.soldAt })
      .from(soldItems).where(and(eq(soldItems.marketplaceId, marketplaceId), eq(soldItems.name, name)))
      .orderBy(desc(soldItems.seq)).limit(1)
    return row
  },
}

type SagaRow = typeof sagas.$inferSelect

const toSaga = ({ updatedAt: _updatedAt, state, ...r }: SagaRow): Saga => ({ ...r, state: state as SagaState })

export const sagaRepo = {
  async insert(tx: Tx, s: Saga): Promise<void> {
    await tx.insert(sagas).values({ ...s, updatedAt: s.createdAt })
  },

  /** Saves a run's new state unless someone else changed it since `expectedVersion` (the recovery job took it over). */
  async update(tx: Tx, s: Saga, expectedVersion: number, now: Date): Promise<boolean> {
    const { id, createdAt: _createdAt, ...changes } = s
    const rows = await tx.update(sagas).set({ ...changes, updatedAt: now })
      .where(and(eq(sagas.id, id), eq(sagas.version, expectedVersion))).returning({ id: sagas.id })
    return rows.length === 1
  },

  /**
   * Takes over runs left unfinished whose lease has run out: leases them anew (SKIP LOCKED, so
   * replicas take different runs) and bumps their version, so a late original run stops.
   */
  async claimAbandoned(tx: Tx, now: Date, leaseUntil: Date, limit: number): Promise<Saga[]> {
    const rows = await tx.update(sagas)
      .set({ leaseUntil, version: sql`${sagas.version} + 1`, attempts: sql`${sagas.attempts} + 1`, updatedAt: now })
      .where(inArray(sagas.id, tx.select({ id: sagas.id }).from(sagas)
        .where(and(inArray(sagas.state, [...OPEN_STATES]), lt(sagas.leaseUntil, now)))
        .orderBy(asc(sagas.leaseUntil)).limit(limit).for('update', { skipLocked: true })))
      .returning()
    return rows.map(toSaga)
  },

  async countOpen(q: Queryable): Promise<{ state: string; n: number }[]> {
    return q.select({ state: sagas.state, n: count() }).from(sagas).where(inArray(sagas.state, [...OPEN_STATES])).groupBy(sagas.state)
  },

  /**
   * Deletes up to `limit` settled runs whose last lease ended before `before`: every write renews
   * the lease, so it ends a lease period after the run settled (the (state, lease_until) index).
   */
  deleteSettled(q: Queryable, before: Date, limit: number): Promise<number> {
    return deleteSome(q, sagas, sagas.id, and(inArray(sagas.state, [...SETTLED_STATES]), lt(sagas.leaseUntil, before)), limit)
  },
}
