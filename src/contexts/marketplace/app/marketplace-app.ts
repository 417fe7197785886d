import { isTrusted, type Principal } from '../../../platform/auth/principal.js'
import type { Clock } from '../../../platform/clock.js'
import type { Database } from '../../../platform/db/database.js'
import { AppError, NotOwner } from '../../../platform/errors.js'
import { newId } from '../../../platform/ids.js'
import { readPage, type Page, type PageRequest } from '../../../platform/paging.js'
import { requireOwnedAvatar, type AvatarClient } from '../../avatar/client.js'
import { catalogOfType, checkLevel, findInCatalog, type CatalogItem, type ItemFilter } from '../domain/catalog.js'
import { ItemNotSold, MarketplaceNotFound, NoMarketplaceForAvatar, UnknownItem } from '../domain/errors.js'
import type { Marketplace, SoldItem, Trade } from '../domain/marketplace.js'
import { marketplaceRepo, soldItemRepo } from '../store/repositories.js'
import { tradeOf } from '../store/trade-export.js'
import type { SagaRunner } from './saga-runner.js'

interface MarketplaceDeps {
  database: Database
  clock: Clock
  avatars: AvatarClient
  sagas: SagaRunner
}

/** The marketplace's use cases. A marketplace, with its sold items, is private to its avatar's owner. */
export class MarketplaceApp {
  constructor(private readonly d: MarketplaceDeps) {}

  /** Idempotent: an avatar that has a marketplace gets that one. */
  async open(p: Principal, avatarId: string): Promise<Marketplace> {
    return this.openFor(avatarId, await requireOwnedAvatar(this.d.avatars, p, avatarId, '/avatarId'))
  }

  /**
   * Every avatar gets its marketplace when it is made (AvatarCreated). Events are not delivered
   * in order: a creation older than the avatar's deletion is stale and makes none.
   */
  async onAvatarCreated(avatarId: string, ownerId: string, createdAt: Date): Promise<void> {
    await this.d.database.transaction(async (tx) => {
      const deletedAt = await marketplaceRepo.deletedAt(tx, avatarId)
      if (deletedAt && deletedAt >= createdAt) return
      await marketplaceRepo.open(tx, { id: newId(), avatarId, ownerId }, this.d.clock.now())
    })
  }

  private openFor(avatarId: string, ownerId: string): Promise<Marketplace> {
    return this.d.database.transaction((tx) => marketplaceRepo.open(tx, { id: newId(), avatarId, ownerId }, this.d.clock.now()))
  }

  /** An avatar deleted takes its marketplace and sold items with it (AvatarDeleted). */
  onAvatarDeleted(avatarId: string, deletedAt: Date): Promise<void> {
    return this.d.database.transaction((tx) => marketplaceRepo.deleteOfAvatar(tx, avatarId, deletedAt))
  }

  async ofAvatar(p: Principal, avatarId: string): Promise<Marketplace> {
    const m = await marketplaceRepo.findOfAvatar(this.d.database.current(), avatarId)
    if (!m) throw new NoMarketplaceForAvatar(avatarId)
    return this.authorize(p, m)
  }

  async get(p: Principal, id: string): Promise<Marketplace> {
    const m = await marketplaceRepo.find(this.d.database.current(), id)
    if (!m) throw new MarketplaceNotFound(id)
    return this.authorize(p, m)
  }

  async items(p: Principal, id: string, filter: ItemFilter): Promise<readonly CatalogItem[]> {
    await this.get(p, id)
    return catalogOfType(filter)
  }

  async item(p: Principal, id: string, name: string): Promise<CatalogItem> {
    await this.get(p, id)
    return catalogItem(name)
  }

  /** The avatar's purchases and sales, for its owner's export (DESIGN §9.4; the edge has checked whose data it is). */
  tradeOf(avatarId: string): Promise<Trade> {
    return tradeOf(this.d.database.current(), avatarId)
  }

  async soldItems(p: Principal, id: string, asked: PageRequest): Promise<Page<SoldItem>> {
    await this.get(p, id)
    const q = this.d.database.current()
    return readPage(asked, {
      names: 'a sale of this marketplace',
      positionOf: (cursor) => soldItemRepo.positionOf(q, id, cursor),
      fetch: (before, count) => soldItemRepo.page(q, id, count, before),
      keyOf: (sale) => sale.sagaId,
    })
  }

  async soldItem(p: Principal, id: string, name: string): Promise<SoldItem> {
    await this.get(p, id)
    const sold = await soldItemRepo.latestNamed(this.d.database.current(), id, name)
    if (!sold) throw new ItemNotSold(name)
    return sold
  }

  /** Price and item come from the catalog; a stated `currentLevel` below the item's level is refused too. */
  async buy(p: Principal, id: string, name: string, currentLevel?: number): Promise<void> {
    const m = await this.get(p, id)
    const item = catalogItem(name)
    if (currentLevel !== undefined) checkLevel(item, currentLevel, 'stated')
    await this.d.sagas.buy(m, item)
  }

  /** Sells one inventory item of that name; a name that is neither owned nor in the catalog is unknown (404). */
  async sell(p: Principal, id: string, name: string): Promise<void> {
    const m = await this.get(p, id)
    try {
      await this.d.sagas.sell(m, name)
    } catch (e) {
      if (e instanceof AppError && e.slug === 'item-not-in-inventory' && !findInCatalog(name)) throw new UnknownItem(name)
      throw e
    }
  }

  private authorize(p: Principal, m: Marketplace): Marketplace {
    if (isTrusted(p) || m.ownerId === p.userId) return m
    throw new NotOwner(`The marketplace of avatar '${m.avatarId}' is private to its owner.`)
  }
}

function catalogItem(name: string): CatalogItem {
  const item = findInCatalog(name)
  if (!item) throw new UnknownItem(name)
  return item
}
