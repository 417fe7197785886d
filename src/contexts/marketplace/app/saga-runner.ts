import type { MarketplaceDraft } from '../../../contracts/events/marketplace.js'
import type { Clock } from '../../../platform/clock.js'
import type { Database, Tx } from '../../../platform/db/database.js'
import { AppError } from '../../../platform/errors.js'
import type { Outbox } from '../../../platform/events/outbox.js'
import { newId } from '../../../platform/ids.js'
import { inBatches } from '../../../platform/jobs/batches.js'
import type { AvatarClient } from '../../avatar/client.js'
import { asItem, checkLevel, sellPrice, type CatalogItem, type Item } from '../domain/catalog.js'
import { AvatarUnavailable } from '../domain/errors.js'
import type { Marketplace } from '../domain/marketplace.js'
import { RECOVERY_BATCH, SAGA_LEASE_MS } from '../domain/rules.js'
import {
  abandoned, applied, compensated, finished, inDoubt, newSaga, nextCompensation, nextStep, OPEN_STATES, refused, sagaKey,
  undone, undoRefusalMeans, UNDO, type Saga, type SagaKind, type SagaState, type Step,
} from '../domain/saga.js'
import { soldItemRepo, sagaRepo } from '../store/repositories.js'

interface SagaDeps {
  database: Database
  clock: Clock
  avatars: AvatarClient
  outbox: Outbox<MarketplaceDraft>
  /** Told of every run that reaches a final state (metrics). */
  onSettled?: (kind: SagaKind, state: SagaState) => void
}

/**
 * The avatar's answer settles a step: it refused (400, or 404 for an avatar that is gone), so the
 * step was not applied. Anything else (unreachable, timed out, 5xx, a misconfigured token)
 * leaves the step in doubt.
 */
const isRefusal = (e: unknown): e is AppError => e instanceof AppError && (e.status === 400 || e.status === 404)
const isGone = (e: unknown) => e instanceof AppError && e.status === 404
/** The saga log keeps this much of why a run turned around. */
const FAILURE_TEXT_MAX = 500
const describe = (e: unknown) =>
  (e instanceof AppError ? `${e.slug}: ${e.message}` : e instanceof Error ? e.message : String(e)).slice(0, FAILURE_TEXT_MAX)
const tradeOf = (kind: SagaKind) => (kind === 'BUY' ? 'purchase' : 'sale')

/**
 * Runs buy and sell sagas against the avatar port and keeps their log. Each call to the avatar
 * carries a key made of the run's id and the step, so a retried call is applied once; each
 * step known to be applied is written to the log before the next call. A refusal after a step
 * was applied, or a lost answer, turns the run around: what was applied is undone (a step in
 * doubt is first sent again to learn whether it was applied). What cannot be finished now is
 * left, leased, to the recovery job. Never runs inside a database transaction: each avatar call
 * is its own unit of work, as it would be over HTTP.
 */
export class SagaRunner {
  constructor(private readonly d: SagaDeps) {}

  /** Spends the catalog price, then adds the item; the avatar's real level must reach the item's. */
  async buy(m: Marketplace, item: CatalogItem): Promise<void> {
    const s = await this.start(m, 'BUY', item.name, asItem(item), item.price)
    let level: number
    try {
      level = (await this.d.avatars.profile(m.avatarId)).level
    } catch (e) {
      await this.save(refused(s, describe(e)))
      if (isRefusal(e)) throw e
      throw new AvatarUnavailable('purchase', s.id, true)
    }
    try {
      checkLevel(item, level, 'avatar')
    } catch (e) {
      await this.save(refused(s, describe(e)))
      throw e
    }
    await this.forward(s)
  }

  /** Takes the item (by name) from the inventory, pays for it, and lists it as sold. */
  async sell(m: Marketplace, itemName: string): Promise<void> {
    await this.forward(await this.start(m, 'SELL', itemName, null, null))
  }

  /**
   * The recovery job: takes over runs whose lease ran out (a crash, or an avatar that could not be
   * reached) and finishes or undoes them. Answers how many it took over.
   */
  async recover(): Promise<number> {
    const failures: unknown[] = []
    let taken = 0
    await inBatches(RECOVERY_BATCH, async () => {
      const now = this.d.clock.now()
      const claimed = await this.d.database.transaction((tx) => sagaRepo.claimAbandoned(tx, now, this.leaseFrom(now), RECOVERY_BATCH))
      for (const s of claimed) {
        taken++
        await this.resume(s).catch((e: unknown) => failures.push(e))
      }
      return claimed.length
    })
    if (failures.length > 0) throw new AggregateError(failures, `${failures.length} of ${taken} abandoned sagas could not be resumed`)
    return taken
  }

  private async resume(s: Saga): Promise<Saga> {
    if (s.state === 'RUNNING' && !nextStep(s)) return this.finish(s)
    return this.compensate(s.state === 'RUNNING' ? await this.save(abandoned(s)) : s)
  }

  private async start(m: Marketplace, kind: SagaKind, itemName: string, item: Item | null, price: number | null): Promise<Saga> {
    const now = this.d.clock.now()
    const s = newSaga({ id: newId(), kind, marketplaceId: m.id, avatarId: m.avatarId, itemName, item, price, leaseUntil: this.leaseFrom(now), createdAt: now })
    await this.d.database.transaction((tx) => sagaRepo.insert(tx, s))
    return s
  }

  private async forward(s: Saga): Promise<void> {
    for (let step = nextStep(s); step; step = nextStep(s)) {
      try {
        s = await this.perform(s, step)
      } catch (e) {
        if (isRefusal(e)) {
          s = await this.save(refused(s, describe(e)))
          if (s.state === 'FAILED') throw e
          s = await this.compensate(s)
          if (s.state === 'COMPENSATED') throw e
        } else {
          s = await this.compensate(await this.save(inDoubt(s, step, describe(e))))
        }
        if (s.state === 'DONE') return
        throw new AvatarUnavailable(tradeOf(s.kind), s.id, s.state === 'COMPENSATED')
      }
      if (nextStep(s)) s = await this.save(s)
    }
    await this.finish(s)
  }

  /** Sends a forward step; answers the run with the step applied. */
  private async perform(s: Saga, step: Step): Promise<Saga> {
    const key = sagaKey(s.id, step)
    const { avatars } = this.d
    switch (step) {
      case 'spend':
        await avatars.spend(s.avatarId, s.price!, key)
        return applied(s, step)
      case 'add-item':
        await avatars.addItem(s.avatarId, s.item!, key)
        return applied(s, step)
      case 'take-item': {
        const item = await avatars.takeItem(s.avatarId, s.itemName, key)
        return applied({ ...s, item, price: sellPrice(item) }, step)
      }
      case 'earn':
        await avatars.earn(s.avatarId, s.price!, key)
        return applied(s, step)
    }
  }

  /** Sends the call that undoes an applied step. */
  private async undo(s: Saga, step: Step): Promise<void> {
    const key = sagaKey(s.id, UNDO[step])
    const { avatars } = this.d
    switch (step) {
      case 'spend':
        return avatars.earn(s.avatarId, s.price!, key)
      case 'add-item':
        await avatars.takeItem(s.avatarId, s.item!.name, key)
        return
      case 'take-item':
        return avatars.addItem(s.avatarId, s.item!, key)
      case 'earn':
        return avatars.spend(s.avatarId, s.price!, key)
    }
  }

  /**
   * Undoes what the run applied, as far as the avatar lets it now. Answers the run COMPENSATED,
   * DONE (the player already had the goods: the trade stands), or still COMPENSATING with the
   * reason, for the recovery job to take up after the lease.
   */
  private async compensate(s: Saga): Promise<Saga> {
    for (let next = nextCompensation(s); next; next = nextCompensation(s)) {
      let after: Saga
      try {
        if ('redrive' in next) after = await this.perform(s, next.redrive)
        else {
          await this.undo(s, next.undo)
          after = undone(s, next.undo)
        }
      } catch (e) {
        if (!isRefusal(e)) return this.save({ ...s, failure: describe(e) })
        const step = 'redrive' in next ? next.redrive : next.undo
        // Refused when sent again: it was never applied. Gone: nothing is left to balance.
        if ('redrive' in next || isGone(e)) after = undone(s, step)
        else if (undoRefusalMeans(s, step) === 'stands') return this.finish({ ...s, failure: describe(e) })
        else return this.save({ ...s, failure: describe(e) })
      }
      s = await this.save(after)
    }
    return this.save(compensated(s))
  }

  /** Marks the run DONE; a sale is listed among the sold items; the trade is announced. */
  private async finish(s: Saga): Promise<Saga> {
    const now = this.d.clock.now()
    const saved = await this.d.database.transaction(async (tx) => {
      const next = await this.write(tx, finished(s), now)
      if (s.kind === 'SELL') await soldItemRepo.list(tx, { sagaId: s.id, marketplaceId: s.marketplaceId, item: s.item!, price: s.price!, soldAt: now })
      const { type, name, power } = s.item!
      const trade = { marketplaceId: s.marketplaceId, avatarId: s.avatarId, sagaId: s.id, item: { type, name, power }, price: s.price! }
      const event: MarketplaceDraft = { type: s.kind === 'BUY' ? 'ItemBought' : 'ItemSold', payload: trade }
      await this.d.outbox.add(tx, [{ ...event, aggregateId: s.id, version: next.version }])
      return next
    })
    this.d.onSettled?.(saved.kind, saved.state)
    return saved
  }

  /** Writes the run's new state and renews its lease. */
  private async save(s: Saga): Promise<Saga> {
    const saved = await this.d.database.transaction((tx) => this.write(tx, s, this.d.clock.now()))
    if (!(OPEN_STATES as readonly string[]).includes(saved.state)) this.d.onSettled?.(saved.kind, saved.state)
    return saved
  }

  private async write(tx: Tx, s: Saga, now: Date): Promise<Saga> {
    const next = { ...s, version: s.version + 1, leaseUntil: this.leaseFrom(now) }
    // Taken over by the recovery job (this run outlived its lease): that run decides now.
    if (!(await sagaRepo.update(tx, next, s.version, now))) throw new AvatarUnavailable(tradeOf(s.kind), s.id, false)
    return next
  }

  private leaseFrom(now: Date): Date {
    return new Date(now.getTime() + SAGA_LEASE_MS)
  }
}
