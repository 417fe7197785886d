import type { EconomyMode } from '../../../config.js'
import type { AvatarDraft } from '../../../contracts/events/avatar.js'
import { isTrusted, requireTrusted, SYSTEM, type Principal } from '../../../platform/auth/principal.js'
import { failed, KeyedBatcher, type Outcome } from '../../../platform/batcher.js'
import { BoundedMap } from '../../../platform/bounded-map.js'
import type { Clock } from '../../../platform/clock.js'
import { coalescedReads, Coalescer } from '../../../platform/db/coalescer.js'
import type { Database, Tx } from '../../../platform/db/database.js'
import { RACE_LOST, untilWritten } from '../../../platform/db/optimistic.js'
import { Forbidden, NotFound } from '../../../platform/errors.js'
import { writtenEvents, type Outbox } from '../../../platform/events/outbox.js'
import { newId } from '../../../platform/ids.js'
import * as rules from '../domain/avatar.js'
import type { Avatar, Item, ItemRef, Stat } from '../domain/avatar.js'
import type { Earned } from '../domain/earnings.js'
import { AccountClosed, AvatarIdTaken } from '../domain/errors.js'
import { MISSED_DAMAGE_DAILY_CAP } from '../domain/rules.js'
import { avatarCommandStore, type AvatarWrite, type LoadedAvatar } from '../store/avatar-commands.js'
import { avatarRepo, type AvatarSearch } from '../store/avatars.js'
import { earningsRepo } from '../store/earnings.js'
import { avatarsOwnedBy } from '../store/owned-avatars.js'
import { authorizeChange, decideBatch, type AvatarCommand, type Decision, type Draft, type KeyedCall } from './avatar-batch.js'

/**
 * A habit's window that ended without its completion, as tracking reports it: local dates, the end
 * exclusive, so `windowEnd` is the day the window ended and its penalty falls on.
 */
export interface MissedWindow {
  habitId: string
  questId: string | null
  windowStart: string
  windowEnd: string
  /** The window's nominal penalty. */
  damage: number
}

export interface AvatarDeps {
  database: Database
  outbox: Outbox<AvatarDraft>
  clock: Clock
  economyMode: EconomyMode
}

const changed = (avatar: Avatar): Decision<void> => ({ avatar, result: undefined })

const keyed = (key: string | undefined, operation: string): KeyedCall | undefined => (key === undefined ? undefined : { key, operation })

function grown(g: rules.Growth): Decision<void> {
  const events: Draft[] = g.levelsGained === 0 ? [] : [{
    type: 'AvatarLeveledUp',
    payload: { avatarId: g.avatar.id, level: g.avatar.level, levelsGained: g.levelsGained, spellsLearned: g.spellsLearned },
  }]
  return { avatar: g.avatar, events, result: undefined }
}

export type { KeyedCall }

/** How many avatars a process remembers as it last wrote them. */
const REMEMBERED_AVATARS = 10_000

/**
 * The avatar context's use cases. Each change of an avatar is decided by the pure rules and
 * written, with its events, in one statement (see `applyBatch`).
 */
export class AvatarApp {
  private readonly commands = new KeyedBatcher<AvatarCommand, unknown>((id, batch) => this.applyBatch(id, batch))
  /** Avatars as this process last wrote them: a batch on one of them needs no read. */
  private readonly lastWritten = new BoundedMap<string, Avatar>(REMEMBERED_AVATARS)
  /** Concurrent reads of avatars (by players, or by other contexts through the port) in one statement. */
  private readonly read: (id: string) => Promise<Avatar | undefined>
  /** The batches of all avatars at a moment: their reads in one statement, their writes in another. */
  private readonly loads: Coalescer<{ id: string; keys: string[] }, LoadedAvatar | undefined>
  private readonly writes: Coalescer<AvatarWrite, boolean>

  constructor(private readonly d: AvatarDeps) {
    const db = d.database
    this.read = coalescedReads((ids) => avatarCommandStore.findMany(db, ids), db.statementsInFlight)
    this.loads = new Coalescer(async (asked) => {
      const loaded = await avatarCommandStore.loadMany(db, asked)
      return asked.map((a) => loaded.get(a.id))
    }, db.statementsInFlight, 'tick')
    this.writes = new Coalescer(async (writes) => {
      const written = await avatarCommandStore.writeMany(db, writes)
      return writes.map((w) => written.has(w.avatar.id))
    }, db.statementsInFlight, 'tick')
  }

  /** How the avatar's changes were batched so far (for /metrics). */
  get batchStats() {
    return this.commands.stats
  }

  // ---- reads: any signed-in player may look at any avatar ----

  async get(id: string): Promise<Avatar> {
    const a = await this.read(id)
    if (!a) throw new NotFound('Avatar', id)
    return a
  }

  search(criteria: AvatarSearch): Promise<Avatar[]> {
    return avatarRepo.search(this.d.database.current(), criteria)
  }

  /** Every avatar the user owns, oldest first (their export, DESIGN §9.4). */
  ownedBy(ownerId: string): Promise<Avatar[]> {
    return avatarsOwnedBy(this.d.database.current(), ownerId)
  }

  async isOwner(avatarId: string, userId: string): Promise<boolean> {
    return (await this.read(avatarId))?.ownerId === userId
  }

  // ---- lifecycle ----

  async create(p: Principal, input: { id: string; name: string }): Promise<Avatar> {
    rules.checkNewAvatar(input.id, 0) // a reserved id is refused before any database work
    return this.d.database.transaction(async (tx) => {
      // Counted under a lock on the owner's creations, so the per-player cap holds under concurrency,
      // and an account deleted meanwhile is seen (deleteAllOf takes the same lock).
      const owned = await avatarRepo.countOwnedByLocked(tx, p.userId)
      if (await avatarRepo.isClosed(tx, p.userId)) throw new AccountClosed()
      rules.checkNewAvatar(input.id, owned)
      const avatar = await this.insertNew(tx, { id: input.id, ownerId: p.userId, name: input.name.trim() })
      if (!avatar) throw new AvatarIdTaken(input.id)
      return avatar
    })
  }

  /** The registration avatar; idempotent, so a retried registration step makes it once. */
  async provision(input: { avatarId: string; ownerId: string; name: string }): Promise<void> {
    await this.d.database.transaction(async (tx) => {
      const created = await this.insertNew(tx, { id: input.avatarId, ownerId: input.ownerId, name: input.name.trim() })
      if (created) return
      const existing = await avatarRepo.get(tx, input.avatarId)
      if (existing.ownerId !== input.ownerId) throw new AvatarIdTaken(input.avatarId)
    })
  }

  private async insertNew(tx: Tx, a: { id: string; ownerId: string; name: string }): Promise<Avatar | undefined> {
    const avatar = rules.newAvatar({ ...a, inventoryId: newId(), equipmentId: newId() })
    const inserted = await avatarRepo.insert(tx, { ...avatar, version: 1 }, this.d.clock.now())
    if (!inserted) return undefined
    await this.d.outbox.add(tx, [
      { type: 'AvatarCreated', aggregateId: a.id, version: 1, payload: { avatarId: a.id, ownerId: a.ownerId, name: a.name } },
    ])
    const created = { ...avatar, version: 1 }
    // Its first change then needs no read (a change that came first only makes this memory stale,
    // which the guarded write finds out).
    this.d.database.afterCommit(() => this.lastWritten.set(a.id, created))
    return created
  }

  async delete(p: Principal, id: string): Promise<void> {
    await this.d.database.transaction(async (tx) => {
      const a = await avatarRepo.getForUpdate(tx, id)
      authorizeChange(p, a)
      await this.remove(tx, a)
    })
  }

  /**
   * The owner's account was deleted (AccountDeleted): every avatar it owns is deleted as `delete`
   * deletes one (each `AvatarDeleted` cascades), and none may be made for it any more. A creation
   * under way is either among them or refused after: both take the lock on the owner's creations.
   */
  async deleteAllOf(ownerId: string): Promise<void> {
    await this.d.database.transaction(async (tx) => {
      for (const a of await avatarRepo.closeAccount(tx, ownerId, this.d.clock.now())) await this.remove(tx, a)
    })
  }

  private async remove(tx: Tx, a: Avatar): Promise<void> {
    await avatarRepo.delete(tx, a.id)
    await this.d.outbox.add(tx, [
      { type: 'AvatarDeleted', aggregateId: a.id, version: a.version + 1, payload: { avatarId: a.id, ownerId: a.ownerId } },
    ])
  }

  rename(p: Principal, id: string, name: string): Promise<void> {
    const trimmed = name.trim()
    return this.change(p, id, (a) => ({
      avatar: { ...a, name: trimmed },
      events: [{ type: 'AvatarRenamed', payload: { avatarId: id, name: trimmed } }],
      result: undefined,
    }))
  }

  // ---- wallet ----
  // A change given an idempotency key (a header, or a call from another context) is applied at
  // most once per key: a retry answers as the first call did.

  earnMoney(p: Principal, id: string, amount: number, key?: string): Promise<void> {
    return this.change(p, id, (a) => changed(rules.earnMoney(a, amount)), { mints: true, call: keyed(key, 'earn') })
  }

  spendMoney(p: Principal, id: string, amount: number, key?: string): Promise<void> {
    return this.change(p, id, (a) => changed(rules.spendMoney(a, amount)), { call: keyed(key, 'spend') })
  }

  // ---- experience, health, mana, stats ----

  grantExperience(p: Principal, id: string, amount: number, key?: string): Promise<void> {
    return this.change(p, id, (a) => grown(rules.grantExperience(a, amount)), { mints: true, call: keyed(key, 'grant-experience') })
  }

  /** A reward earned by play (events from other contexts); never refused; applied once per key. */
  rewardFromPlay(id: string, reward: { experience: number; money: number }, key: string): Promise<void> {
    return this.change(SYSTEM, id, (a) => grown(rules.receiveReward(a, reward)), { call: keyed(key, 'reward') })
  }

  /**
   * A habit completion (HabitAttended): its reward, and the streak freeze its streak may earn, in one
   * change; never refused; applied once per key.
   */
  rewardCompletion(id: string, completion: rules.Completion, key: string): Promise<void> {
    return this.change(SYSTEM, id, (a) => grown(rules.rewardCompletion(a, completion)), { call: keyed(key, 'reward') })
  }

  /**
   * A habit's missed window (HabitMissed): paid with a streak freeze, or with damage within the day's
   * cap, and told as MissedWindowSettled in the same change. Applied once per key, so a redelivery
   * neither takes a second freeze nor damages twice. Keyed as the plain damage a HabitMissed was
   * before freezes, so one applied then and delivered again now still answers as applied.
   */
  settleMissedWindow(id: string, missed: MissedWindow, key: string): Promise<{ outcome: rules.MissedOutcome; damage: number }> {
    return this.change(SYSTEM, id, (a) => {
      const settled = rules.settleMissedWindow(a, { day: missed.windowEnd, damage: missed.damage })
      const events: Draft[] = [{
        type: 'MissedWindowSettled',
        payload: {
          avatarId: id, habitId: missed.habitId, questId: missed.questId, windowStart: missed.windowStart, windowEnd: missed.windowEnd,
          outcome: settled.outcome, damage: settled.damage, penalty: missed.damage, dailyCap: MISSED_DAMAGE_DAILY_CAP,
          freezesHeld: settled.avatar.streakFreezes,
        },
      }]
      if (settled.died) events.push({ type: 'AvatarDied', payload: { avatarId: id, moneyLost: settled.moneyLost } })
      return { avatar: settled.avatar, events, result: { outcome: settled.outcome, damage: settled.damage } }
    }, { call: keyed(key, 'damage') })
  }

  damage(p: Principal, id: string, amount: number, key?: string): Promise<{ died: boolean; health: number }> {
    return this.change(p, id, (a) => {
      const hurt = rules.takeDamage(a, amount)
      const events: Draft[] = hurt.died ? [{ type: 'AvatarDied', payload: { avatarId: id, moneyLost: hurt.moneyLost } }] : []
      return { avatar: hurt.avatar, events, result: { died: hurt.died, health: hurt.avatar.health } }
    }, { call: keyed(key, 'damage') })
  }

  async ownerOf(avatarId: string): Promise<string | undefined> {
    return (await this.read(avatarId))?.ownerId
  }

  heal(p: Principal, id: string, amount: number, key?: string): Promise<void> {
    return this.change(p, id, (a) => changed(rules.heal(a, amount)), { mints: true, call: keyed(key, 'heal') })
  }

  spendMana(p: Principal, id: string, amount: number, key?: string): Promise<void> {
    return this.change(p, id, (a) => changed(rules.spendMana(a, amount)), { call: keyed(key, 'spend-mana') })
  }

  restoreMana(p: Principal, id: string, amount: number, key?: string): Promise<void> {
    return this.change(p, id, (a) => changed(rules.restoreMana(a, amount)), { mints: true, call: keyed(key, 'restore-mana') })
  }

  increaseStat(p: Principal, id: string, stat: Stat): Promise<void> {
    return this.change(p, id, (a) => changed(rules.increaseStat(a, stat)))
  }

  // ---- inventory and equipment ----

  addItem(p: Principal, id: string, item: Item, key?: string): Promise<void> {
    return this.change(p, id, (a) => changed(rules.addItem(a, item)), { mints: true, call: keyed(key, 'add-item') })
  }

  removeItem(p: Principal, id: string, ref: ItemRef, key?: string): Promise<void> {
    return this.change(p, id, (a) => changed(rules.removeItem(a, ref).avatar), { call: keyed(key, 'remove-item') })
  }

  /** Takes an item out of the inventory by name and answers what was taken (an equipped one is refused). */
  takeItem(p: Principal, id: string, name: string, key?: string): Promise<Item> {
    return this.change(p, id, (a) => {
      const { avatar, item } = rules.takeItem(a, name)
      return { avatar, result: item }
    }, { call: keyed(key, 'take-item') })
  }

  equip(p: Principal, id: string, ref: ItemRef): Promise<void> {
    return this.change(p, id, (a) => changed(rules.equip(a, ref)))
  }

  unequip(p: Principal, id: string, ref: Required<ItemRef>): Promise<void> {
    return this.change(p, id, (a) => changed(rules.unequip(a, ref)))
  }

  useItem(p: Principal, id: string, name: string): Promise<Avatar> {
    return this.change(p, id, (a) => {
      const { avatar } = rules.useItem(a, name)
      return { avatar, result: avatar }
    })
  }

  // ---- for services (service and admin tokens) ----

  /** The registration avatar, made by a service over HTTP; idempotent like `provision`. */
  provisionFor(p: Principal, input: { avatarId: string; ownerId: string; name: string }): Promise<void> {
    requireTrusted(p, 'Only services provision avatars for other users.')
    return this.provision(input)
  }

  /** The user owning an avatar; services only, since owners are not part of the public avatar. */
  async ownerFor(p: Principal, id: string): Promise<string> {
    requireTrusted(p, 'Only services may ask who owns an avatar.')
    return (await this.get(id)).ownerId
  }

  /** The profile, asked over HTTP by a service running apart. */
  profileFor(p: Principal, id: string): ReturnType<AvatarApp['profile']> {
    requireTrusted(p, 'Only services read an avatar\'s profile; a player reads its avatar and stats.')
    return this.profile(id)
  }

  // ---- calls from other contexts (client.ts): trusted, each under an idempotency key ----

  /** What other contexts may read to judge a purchase or a fight. */
  async profile(id: string): Promise<{ ownerId: string; level: number; attack: number; defense: number; health: number; maxHealth: number }> {
    const a = await this.get(id)
    return { ownerId: a.ownerId, level: a.level, attack: rules.effectiveAttack(a), defense: rules.effectiveDefense(a), health: a.health, maxHealth: a.maxHealth }
  }

  /** What the avatar earned in [from, to) (to the bucket: EARNINGS_BUCKET_MINUTES); services only, for reports. */
  earnings(p: Principal, id: string, from: Date, to: Date): Promise<Earned> {
    requireTrusted(p, 'Only services read what an avatar earned; a player reads it in the report.')
    return earningsRepo.sumBetween(this.d.database.current(), id, from, to)
  }

  // ---- the one way an avatar changes ----

  /**
   * Every change of an existing avatar goes through the avatar's batcher: concurrent changes of one
   * avatar are decided one after another on the same in-memory state and written together.
   */
  private change<R>(
    p: Principal, id: string, decide: (a: Avatar) => Decision<R>, opts: { mints?: boolean; call?: KeyedCall | undefined } = {},
  ): Promise<R> {
    if (opts.mints && this.d.economyMode === 'authoritative' && !isTrusted(p)) {
      return Promise.reject(new Forbidden('This server runs an authoritative economy: value comes only from play.', 'economy-authoritative'))
    }
    // Its write is a statement of its own: inside a caller's transaction it would not join it.
    this.d.database.assertNoOpenTransaction(`A change of avatar '${id}'`)
    return this.commands.submit(id, { principal: p, decide, call: opts.call }) as Promise<R>
  }

  /**
   * Applies one batch of commands on one avatar: one read (none when this process wrote the
   * avatar last), the decisions in arrival order, one write; the reads and the writes of the
   * batches of other avatars at that moment go in the same statements. A write that lost a race with another
   * process (the version moved on, or a key it records was recorded before) is decided again on
   * fresh state; a database failure is retried, then every caller of the batch is answered 503 and
   * nothing of it is applied.
   */
  private applyBatch(id: string, commands: AvatarCommand[]): Promise<Outcome<unknown>[]> {
    const keys = commands.flatMap((c) => (c.call ? [c.call.key] : []))
    return untilWritten(`avatar '${id}'`, async () => {
      // The state this process last wrote serves without a read: the guarded write proves it
      // current, and a key answered before fails the write on its unique index. Taken, not just
      // looked at: after a lost or failed attempt the next one reads, and answers that write
      // nothing are given only on state just read. (One batch per avatar runs at a time.)
      const remembered = this.lastWritten.get(id)
      this.lastWritten.delete(id)
      const loaded = remembered ? { avatar: remembered, applied: new Map() } : await this.loads.submit({ id, keys })
      if (!loaded) return commands.map(() => failed(new NotFound('Avatar', id)))
      const { outcomes, write } = decideBatch(loaded, commands, this.d.clock.now())
      if (write && (await this.writes.submit(write))) {
        this.lastWritten.set(id, write.avatar)
        this.d.outbox.committed(writtenEvents(id, write.at, write.events))
        return outcomes
      }
      return write || remembered ? RACE_LOST : outcomes
    })
  }


}
