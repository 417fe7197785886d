import type { EconomyMode } from '../../../config.js'
import type { AvatarDraft } from '../../../contracts/events/avatar.js'
import { isTrusted, requireTrusted, SYSTEM, type Principal } from '../../../platform/auth/principal.js'
import type { Clock } from '../../../platform/clock.js'
import type { Database } from '../../../platform/db/database.js'
import { Forbidden, NotFound } from '../../../platform/errors.js'
import type { Outbox } from '../../../platform/events/outbox.js'
import type { Logger } from '../../../platform/log.js'
import { coalescedReads, Coalescer } from '../../../platform/writer/coalescer.js'
import type { KeyedCall } from '../../../platform/writer/decisions.js'
import { AggregateWriter, type Loaded } from '../../../platform/writer/writer.js'
import * as rules from '../domain/avatar.js'
import type { Avatar, Item, ItemRef, Stat } from '../domain/avatar.js'
import type { Earned } from '../domain/earnings.js'
import { rewardCompletion, settleMissedWindow, type Completion, type MissedOutcome } from '../domain/habit-effects.js'
import { AccountClosed, AvatarIdTaken } from '../domain/errors.js'
import { MISSED_DAMAGE_DAILY_CAP } from '../domain/rules.js'
import { newId } from '../../../platform/ids.js'
import { avatarAggregate } from '../store/avatar-aggregate.js'
import { avatarRepo, type AvatarSearch } from '../store/avatars.js'
import { earningsRepo } from '../store/earnings.js'
import { avatarsOwnedBy } from '../store/owned-avatars.js'
import { experienceBoardPage, type BoardPage } from './experience-board.js'
import { profileOf, type AvatarProfile, type MissedWindow } from './avatar-profile.js'
import { authorizeChange, avatarCommand, grown, type AvatarDecision } from './avatar-command.js'

export interface AvatarDeps {
  database: Database
  outbox: Outbox<AvatarDraft>
  clock: Clock
  economyMode: EconomyMode
  log?: Logger
}

const changed = (avatar: Avatar): AvatarDecision<void> => ({ state: avatar, result: undefined })

const keyed = (key: string | undefined, operation: string): KeyedCall | undefined => (key === undefined ? undefined : { key, operation })

/** How many avatars a process remembers as it last wrote them. */
const REMEMBERED_AVATARS = 10_000

export type { AvatarProfile, MissedWindow }

/**
 * The avatar context's use cases. Every change of an existing avatar is a batched command of the
 * platform writer: decided by the pure rules in its avatar's batch, written with the other avatars'
 * batches of the moment. Creation and deletion are transactional.
 */
export class AvatarApp {
  private readonly writer: AggregateWriter<Avatar, AvatarDraft>
  /** Concurrent reads of avatars (by players, or by other contexts through the port) in one statement. */
  private readonly read: (id: string) => Promise<Avatar | undefined>
  /** Concurrent profile reads with keys (a battle's attackers) in one statement, gathered apart from the players' reads. */
  private readonly profiles: Coalescer<{ id: string; keys: string[] }, Loaded<Avatar> | undefined>

  constructor(private readonly d: AvatarDeps) {
    this.writer = new AggregateWriter<Avatar, AvatarDraft>(avatarAggregate(d.outbox), {
      database: d.database, clock: d.clock, missing: (id) => new NotFound('Avatar', id), remember: REMEMBERED_AVATARS,
      summary: (a) => ({ type: 'AvatarChanged', payload: rules.changedPayload(a) }), ...(d.log ? { log: d.log } : {}),
    })
    this.read = coalescedReads((ids) => avatarRepo.findMany(d.database.db, ids), d.database.statementsInFlight)
    this.profiles = new Coalescer(async (asked) => {
      // A plain read by ids when no key is asked about; else the writer's load, answers and all.
      if (asked.every((a) => a.keys.length === 0)) {
        const found = await avatarRepo.findMany(d.database.db, [...new Set(asked.map((a) => a.id))])
        return asked.map((a) => { const state = found.get(a.id); return state && { state, answers: new Map() } })
      }
      const loaded = await this.writer.loadMany(asked)
      return asked.map((a) => loaded.get(a.id))
    }, d.database.statementsInFlight, 'tick')
  }

  /** How the avatar's changes were batched so far (for /metrics). */
  get batchStats() {
    return this.writer.batchStats
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

  /** The experience board: the top `limit`, or the `limit` ranks around an avatar. Any signed-in player reads it. */
  experienceBoard(limit: number, around?: string): Promise<BoardPage> {
    return experienceBoardPage(this.d.database.current(), limit, around)
  }

  async isOwner(avatarId: string, userId: string): Promise<boolean> {
    return (await this.read(avatarId))?.ownerId === userId
  }

  async ownerOf(avatarId: string): Promise<string | undefined> {
    return (await this.read(avatarId))?.ownerId
  }

  // ---- lifecycle: transactional ----

  async create(p: Principal, input: { id: string; name: string }): Promise<Avatar> {
    rules.checkNewAvatar(input.id, 0) // a reserved id is refused before any database work
    return this.d.database.transaction(async (tx) => {
      // Counted under a lock on the owner's creations, so the per-player cap holds under concurrency,
      // and an account deleted meanwhile is seen (deleteAllOf takes the same lock).
      const owned = await avatarRepo.countOwnedByLocked(tx, p.userId)
      if (await avatarRepo.isClosed(tx, p.userId)) throw new AccountClosed()
      rules.checkNewAvatar(input.id, owned)
      const avatar = await this.insertNew({ id: input.id, ownerId: p.userId, name: input.name.trim() })
      if (!avatar) throw new AvatarIdTaken(input.id)
      return avatar
    })
  }

  /** The registration avatar; idempotent, so a retried registration step makes it once. */
  async provision(input: { avatarId: string; ownerId: string; name: string }): Promise<void> {
    await this.d.database.transaction(async (tx) => {
      if (await this.insertNew({ id: input.avatarId, ownerId: input.ownerId, name: input.name.trim() })) return
      const existing = await avatarRepo.get(tx, input.avatarId)
      if (existing.ownerId !== input.ownerId) throw new AvatarIdTaken(input.avatarId)
    })
  }

  private insertNew(a: { id: string; ownerId: string; name: string }): Promise<Avatar | undefined> {
    const avatar = rules.newAvatar({ ...a, inventoryId: newId(), equipmentId: newId() })
    return this.d.database.transaction((tx) => this.writer.insert(tx, avatar, [
      { type: 'AvatarCreated', payload: { avatarId: a.id, ownerId: a.ownerId, name: a.name } },
    ], { createdAt: this.d.clock.now() }))
  }

  async delete(p: Principal, id: string): Promise<void> {
    await this.d.database.transaction(async (tx) => {
      const a = await avatarRepo.getForUpdate(tx, id)
      authorizeChange(p, a)
      await this.remove(a)
    })
  }

  /**
   * The owner's account was deleted (AccountDeleted): every avatar it owns is deleted as `delete`
   * deletes one (each `AvatarDeleted` cascades), and none may be made for it any more. A creation
   * under way is either among them or refused after: both take the lock on the owner's creations.
   */
  async deleteAllOf(ownerId: string): Promise<void> {
    await this.d.database.transaction(async (tx) => {
      for (const a of await avatarRepo.closeAccount(tx, ownerId, this.d.clock.now())) await this.remove(a)
    })
  }

  private remove(a: Avatar): Promise<void> {
    return this.d.database.transaction(async (tx) => {
      await avatarRepo.deleteParts(tx, a.id)
      await this.writer.remove(tx, a, [{ type: 'AvatarDeleted', payload: { avatarId: a.id, ownerId: a.ownerId } }])
    })
  }

  // ---- changes: batched ----

  rename(p: Principal, id: string, name: string): Promise<void> {
    const trimmed = name.trim()
    return this.change(p, id, (a) => ({ state: { ...a, name: trimmed }, events: [{ type: 'AvatarRenamed', payload: { avatarId: id, name: trimmed } }], result: undefined }))
  }

  // A change given an idempotency key (a header, or a call from another context) is applied at
  // most once per key: a retry answers as the first call did.

  earnMoney(p: Principal, id: string, amount: number, key?: string): Promise<void> {
    return this.change(p, id, (a) => changed(rules.earnMoney(a, amount)), { mints: true, call: keyed(key, 'earn') })
  }

  spendMoney(p: Principal, id: string, amount: number, key?: string): Promise<void> {
    return this.change(p, id, (a) => changed(rules.spendMoney(a, amount)), { call: keyed(key, 'spend') })
  }

  grantExperience(p: Principal, id: string, amount: number, key?: string): Promise<void> {
    return this.change(p, id, (a) => grown(rules.grantExperience(a, amount)), { mints: true, call: keyed(key, 'grant-experience') })
  }

  /** A reward earned by play (events from other contexts); never refused; applied once per key. */
  rewardFromPlay(id: string, reward: { experience: number; money: number }, key: string): Promise<void> {
    return this.change(SYSTEM, id, (a) => grown(rules.receiveReward(a, reward)), { call: keyed(key, 'reward'), scored: true })
  }

  /** A league season's reward (LeagueResult): money, never refused, applied once per key; it scores nothing. */
  payLeagueReward(id: string, money: number, key: string): Promise<void> {
    return this.change(SYSTEM, id, (a) => grown(rules.receiveReward(a, { experience: 0, money })), { call: keyed(key, 'reward') })
  }

  /** A habit completion (HabitAttended): its reward, and the streak freeze its streak may earn, in one change; applied once per key. */
  rewardCompletion(id: string, completion: Completion, key: string): Promise<void> {
    return this.change(SYSTEM, id, (a) => grown(rewardCompletion(a, completion)), { call: keyed(key, 'reward'), scored: true })
  }

  /**
   * A habit's missed window (HabitMissed): paid with a streak freeze, or with damage within the day's
   * cap, and told as MissedWindowSettled in the same change. Applied once per key (its operation is
   * `damage`, as for any damage an event causes), so a redelivery neither takes a second freeze nor
   * damages twice.
   */
  settleMissedWindow(id: string, missed: MissedWindow, key: string): Promise<{ outcome: MissedOutcome; damage: number }> {
    return this.change(SYSTEM, id, (a) => {
      const settled = settleMissedWindow(a, { day: missed.windowEnd, damage: missed.damage })
      const events: AvatarDraft[] = [{
        type: 'MissedWindowSettled',
        payload: {
          avatarId: id, habitId: missed.habitId, questId: missed.questId, windowStart: missed.windowStart, windowEnd: missed.windowEnd,
          outcome: settled.outcome, damage: settled.damage, penalty: missed.damage, dailyCap: MISSED_DAMAGE_DAILY_CAP,
          freezesHeld: settled.avatar.streakFreezes,
        },
      }]
      if (settled.died) events.push({ type: 'AvatarDied', payload: { avatarId: id, moneyLost: settled.moneyLost } })
      return { state: settled.avatar, events, result: { outcome: settled.outcome, damage: settled.damage } }
    }, { call: keyed(key, 'damage') })
  }

  damage(p: Principal, id: string, amount: number, key?: string): Promise<{ died: boolean; health: number }> {
    return this.change(p, id, (a) => {
      const hurt = rules.takeDamage(a, amount)
      const events: AvatarDraft[] = hurt.died ? [{ type: 'AvatarDied', payload: { avatarId: id, moneyLost: hurt.moneyLost } }] : []
      return { state: hurt.avatar, events, result: { died: hurt.died, health: hurt.avatar.health } }
    }, { call: keyed(key, 'damage') })
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
      return { state: avatar, result: item }
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
      return { state: avatar, result: avatar }
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
  profileFor(p: Principal, id: string, keys: string[]): Promise<AvatarProfile> {
    requireTrusted(p, 'Only services read an avatar\'s profile; a player reads its avatar and stats.')
    return this.profile(id, keys)
  }

  /** Profiles asked over HTTP by a service running apart: those of the avatars that exist, in the order asked. */
  async profilesFor(p: Principal, ids: string[]): Promise<(AvatarProfile & { avatarId: string })[]> {
    requireTrusted(p, 'Only services read avatars\' profiles; a player reads its avatar and stats.')
    return [...(await this.profilesOf(ids))].map(([avatarId, profile]) => ({ avatarId, ...profile }))
  }

  /** The profiles of those of the avatars that exist, by id (a guild's members), read in one statement. */
  async profilesOf(ids: readonly string[]): Promise<Map<string, AvatarProfile>> {
    const unique = [...new Set(ids)]
    const found = unique.length === 0 ? new Map<string, Avatar>() : await avatarRepo.findMany(this.d.database.db, unique)
    return new Map(unique.flatMap((id) => { const a = found.get(id); return a ? [[id, profileOf(a, [])] as const] : [] }))
  }

  /**
   * What other contexts may read to judge a purchase or a fight, as the avatar is now; with `keys`,
   * also which of those keyed calls it has taken (`taken`), read with it from the database.
   */
  async profile(id: string, keys?: string[]): Promise<AvatarProfile> {
    if (keys === undefined) return profileOf(await this.get(id), [])
    const loaded = await this.profiles.submit({ id, keys })
    if (!loaded) throw new NotFound('Avatar', id)
    return profileOf(loaded.state, [...loaded.answers].filter(([, a]) => a.of === id).map(([key]) => key))
  }

  /** What the avatar earned in [from, to) (to the bucket: EARNINGS_BUCKET_MINUTES); services only, for reports. */
  earnings(p: Principal, id: string, from: Date, to: Date): Promise<Earned> {
    requireTrusted(p, 'Only services read what an avatar earned; a player reads it in the report.')
    return earningsRepo.sumBetween(this.d.database.current(), id, from, to)
  }

  // ---- the one way an existing avatar changes ----

  /** `scored`: a change from play, whose experience counts in the week's league (DESIGN §9.5). */
  private change<R>(
    p: Principal, id: string, decide: (a: Avatar) => AvatarDecision<R>, opts: { mints?: boolean; scored?: boolean; call?: KeyedCall | undefined } = {},
  ): Promise<R> {
    if (opts.mints && this.d.economyMode === 'authoritative' && !isTrusted(p)) {
      return Promise.reject(new Forbidden('This server runs an authoritative economy: value comes only from play.', 'economy-authoritative'))
    }
    return this.writer.submit(id, avatarCommand(p, decide, opts.call, this.d.clock, opts.scored))
  }
}
