import { sql } from 'drizzle-orm'
import type { EconomyMode } from '../../../config.js'
import { isTrusted, requireTrusted, SYSTEM, type Principal } from '../../../platform/auth/principal.js'
import type { Clock } from '../../../platform/clock.js'
import type { Database, Tx } from '../../../platform/db/database.js'
import { BadRequest, Forbidden } from '../../../platform/errors.js'
import type { Outbox } from '../../../platform/events/outbox.js'
import { newId } from '../../../platform/ids.js'
import * as rules from '../domain/avatar.js'
import type { Avatar, Item, ItemRef, Stat } from '../domain/avatar.js'
import { AvatarIdTaken, IdempotencyKeyReused, TooManyAvatars } from '../domain/errors.js'
import { MAX_AVATARS_PER_USER, RESERVED_AVATAR_IDS } from '../domain/rules.js'
import type { AvatarEvent } from '../events.js'
import { appliedCallRepo, avatarRepo, type AvatarSearch } from '../store/avatars.js'

export interface AvatarDeps {
  database: Database
  outbox: Outbox
  clock: Clock
  economyMode: EconomyMode
}

type Draft = { [E in AvatarEvent as E['type']]: Pick<E, 'type' | 'payload'> }[AvatarEvent['type']]

/** A call from another context, applied at most once per key. */
export interface KeyedCall {
  key: string
  operation: string
}

/** What a use case decided: the changed avatar, the events it caused, and its answer. */
interface Decision<R> {
  avatar: Avatar
  events?: Draft[]
  result: R
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

/** The avatar context's use cases. Each change is one transaction: load, decide, save, outbox. */
export class AvatarApp {
  constructor(private readonly d: AvatarDeps) {}

  // ---- reads: any signed-in player may look at any avatar ----

  get(id: string): Promise<Avatar> {
    return avatarRepo.get(this.d.database.current(), id)
  }

  search(criteria: AvatarSearch): Promise<Avatar[]> {
    return avatarRepo.search(this.d.database.current(), criteria)
  }

  async isOwner(avatarId: string, userId: string): Promise<boolean> {
    const a = await avatarRepo.find(this.d.database.current(), avatarId)
    return a?.ownerId === userId
  }

  // ---- lifecycle ----

  async create(p: Principal, input: { id: string; name: string }): Promise<Avatar> {
    if ((RESERVED_AVATAR_IDS as readonly string[]).includes(input.id)) {
      throw new BadRequest(`'${input.id}' is a reserved word and cannot be an avatar id.`, 'reserved-avatar-id')
    }
    return this.d.database.transaction(async (tx) => {
      // Serialises one owner's creations so the per-player cap holds under concurrency.
      await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${p.userId}))`)
      if ((await avatarRepo.countOwnedBy(tx, p.userId)) >= 1 + MAX_AVATARS_PER_USER) {
        throw new TooManyAvatars(MAX_AVATARS_PER_USER)
      }
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
    return { ...avatar, version: 1 }
  }

  async delete(p: Principal, id: string): Promise<void> {
    await this.d.database.transaction(async (tx) => {
      const a = await avatarRepo.getForUpdate(tx, id)
      this.authorizeChange(p, a)
      await avatarRepo.delete(tx, id)
      await this.d.outbox.add(tx, [
        { type: 'AvatarDeleted', aggregateId: id, version: a.version + 1, payload: { avatarId: id, ownerId: a.ownerId } },
      ])
    })
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

  /** A reward earned by play (events from other contexts); never refused. */
  rewardFromPlay(id: string, reward: { experience: number; money: number }): Promise<void> {
    return this.change(SYSTEM, id, (a) => grown(rules.receiveReward(a, reward)))
  }

  damage(p: Principal, id: string, amount: number, key?: string): Promise<{ died: boolean; health: number }> {
    return this.change(p, id, (a) => {
      const hurt = rules.takeDamage(a, amount)
      const events: Draft[] = hurt.died ? [{ type: 'AvatarDied', payload: { avatarId: id, moneyLost: hurt.moneyLost } }] : []
      return { avatar: hurt.avatar, events, result: { died: hurt.died, health: hurt.avatar.health } }
    }, { call: keyed(key, 'damage') })
  }

  async ownerOf(avatarId: string): Promise<string | undefined> {
    return (await avatarRepo.find(this.d.database.current(), avatarId))?.ownerId
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

  // ---- calls from other contexts (client.ts): trusted, each under an idempotency key ----

  /** What other contexts may read to judge a purchase or a fight. */
  async profile(id: string): Promise<{ level: number; attack: number; defense: number; health: number; maxHealth: number }> {
    const a = await this.get(id)
    return { level: a.level, attack: rules.effectiveAttack(a), defense: rules.effectiveDefense(a), health: a.health, maxHealth: a.maxHealth }
  }

  // ---- the one way an avatar changes ----

  private async change<R>(
    p: Principal, id: string, decide: (a: Avatar) => Decision<R>, opts: { mints?: boolean; call?: KeyedCall | undefined } = {},
  ): Promise<R> {
    if (opts.mints && this.d.economyMode === 'authoritative' && !isTrusted(p)) {
      throw new Forbidden('This server runs an authoritative economy: value comes only from play.', 'economy-authoritative')
    }
    const { call } = opts
    return this.d.database.transaction(async (tx) => {
      const before = await avatarRepo.getForUpdate(tx, id)
      this.authorizeChange(p, before)
      // Looked up under the avatar's row lock, so two deliveries of one call cannot both apply.
      const applied = call && (await appliedCallRepo.find(tx, call.key))
      if (applied) {
        if (applied.avatarId !== id || applied.operation !== call.operation) throw new IdempotencyKeyReused(call.key)
        return applied.result as R
      }
      const { avatar, events = [], result } = decide(before)
      const version = before.version + 1
      await avatarRepo.save(tx, { ...avatar, version })
      await this.d.outbox.add(tx, events.map((e) => ({ ...e, aggregateId: id, version })))
      if (call) await appliedCallRepo.record(tx, call.key, { avatarId: id, operation: call.operation, result }, this.d.clock.now())
      return result
    })
  }

  private authorizeChange(p: Principal, a: Avatar): void {
    if (isTrusted(p) || a.ownerId === p.userId) return
    throw new Forbidden(`Avatar '${a.id}' belongs to another player.`, 'not-owner')
  }
}
