import { DEFAULT_TIME_ZONE } from '../../../platform/time/index.js'
import {
  FreezesFull, InsufficientFunds, InsufficientMana, InventoryFull, ItemEquipped, ItemNotEquipped, ItemNotInInventory, NoStatPoints,
  NotEquippable, NotUsable, ReservedAvatarId, TooManyAvatars, WalletFull,
} from './errors.js'
import {
  DEATH_MONEY_LOSS_DIVISOR, INVENTORY_CAPACITY, LEVEL_UP_REWARD, MAX_AVATARS_PER_USER,
  MONEY_MAX, RESERVED_AVATAR_IDS, SPELLBOOK, STARTING_AVATAR, STREAK_FREEZES_MAX, experienceRequired,
  type CONSUMABLE_EFFECTS, type ITEM_TYPES, type STATS,
} from './rules.js'

type ItemType = (typeof ITEM_TYPES)[number]
export type Stat = (typeof STATS)[number]

export interface Item {
  type: ItemType
  name: string
  description: string
  power: number
  /** For consumables: what using it does (restores HEALTH unless said; MANA; FREEZE adds a streak freeze). */
  effect?: (typeof CONSUMABLE_EFFECTS)[number]
}

export interface Avatar {
  id: string
  ownerId: string
  name: string
  level: number
  /** Experience within the current level. */
  experience: number
  health: number
  maxHealth: number
  mana: number
  maxMana: number
  money: number
  strength: number
  defense: number
  intelligence: number
  unspentPoints: number
  inventoryId: string
  equipmentId: string
  inventory: Item[]
  /** At most one item per equippable type. */
  equipped: Item[]
  /** Streak freezes held, at most STREAK_FREEZES_MAX: each takes the penalty of one missed window. */
  streakFreezes: number
  /**
   * Damage taken from missed habits, by local day (`YYYY-MM-DD`, the day a window ended): what the
   * daily cap is measured against. Only the latest MISSED_DAMAGE_DAYS_KEPT days with any are kept.
   */
  missedDamage: Record<string, number>
  timeZone: string
  /** How many times it has died: a battle knows a fighter fell, wherever the blow came from, when this moved on since it entered. */
  deaths: number
  version: number
}

/**
 * Whether a player who owns `owned` avatars (their registration avatar included) may make one more
 * with this id: not a reserved word (a path segment of the API), and within the per-player cap.
 */
export function checkNewAvatar(id: string, owned: number): void {
  if ((RESERVED_AVATAR_IDS as readonly string[]).includes(id)) throw new ReservedAvatarId(id)
  if (owned >= 1 + MAX_AVATARS_PER_USER) throw new TooManyAvatars(MAX_AVATARS_PER_USER)
}

export function newAvatar(a: { id: string; ownerId: string; name: string; inventoryId: string; equipmentId: string }): Avatar {
  const s = STARTING_AVATAR
  return {
    ...a,
    level: s.level,
    experience: s.experience,
    health: s.health,
    maxHealth: s.health,
    mana: s.mana,
    maxMana: s.mana,
    money: s.money,
    strength: s.strength,
    defense: s.defense,
    intelligence: s.intelligence,
    unspentPoints: s.unspentPoints,
    inventory: [],
    equipped: [],
    streakFreezes: 0,
    missedDamage: {},
    deaths: 0,
    timeZone: DEFAULT_TIME_ZONE,
    version: 0,
  }
}

// ---- wallet ----

export function earnMoney(a: Avatar, amount: number): Avatar {
  if (a.money + amount > MONEY_MAX) throw new WalletFull(MONEY_MAX)
  return { ...a, money: a.money + amount }
}

export function spendMoney(a: Avatar, amount: number): Avatar {
  if (amount > a.money) throw new InsufficientFunds(a.money, amount)
  return { ...a, money: a.money - amount }
}

// ---- experience and levels ----

export const spellsKnownAt = (level: number) => SPELLBOOK.filter((s) => s.requiredLevel <= level)

export interface Growth {
  avatar: Avatar
  levelsGained: number
  spellsLearned: string[]
}

/** Adds experience; each level left brings its reward, the rest carries over. */
export function grantExperience(a: Avatar, amount: number): Growth {
  let { level, experience } = a
  experience += amount
  while (experience >= experienceRequired(level)) {
    experience -= experienceRequired(level)
    level += 1
  }
  const levelsGained = level - a.level
  if (levelsGained === 0) return { avatar: { ...a, experience }, levelsGained, spellsLearned: [] }
  const maxHealth = a.maxHealth + levelsGained * LEVEL_UP_REWARD.maxHealth
  const maxMana = a.maxMana + levelsGained * LEVEL_UP_REWARD.maxMana
  const grown: Avatar = {
    ...a,
    level,
    experience,
    maxHealth,
    health: maxHealth,
    maxMana,
    mana: maxMana,
    unspentPoints: a.unspentPoints + levelsGained * LEVEL_UP_REWARD.statPoints,
    money: Math.min(MONEY_MAX, a.money + levelsGained * LEVEL_UP_REWARD.money),
  }
  const known = new Set(spellsKnownAt(a.level).map((s) => s.name))
  const spellsLearned = spellsKnownAt(level).filter((s) => !known.has(s.name)).map((s) => s.name)
  return { avatar: grown, levelsGained, spellsLearned }
}

/**
 * What play earns (a completed habit, a won battle): experience, and money up to the wallet's
 * limit. It never fails, so an event's reward can always be applied.
 */
export function receiveReward(a: Avatar, reward: { experience: number; money: number }): Growth {
  const paid = { ...a, money: Math.min(MONEY_MAX, a.money + reward.money) }
  return reward.experience > 0 ? grantExperience(paid, reward.experience) : { avatar: paid, levelsGained: 0, spellsLearned: [] }
}

// ---- health and mana ----

export interface Hurt {
  avatar: Avatar
  died: boolean
  moneyLost: number
}

/** Damage; at 0 health the avatar dies: level experience and a tenth of the money are lost, then it revives full. */
export function takeDamage(a: Avatar, amount: number): Hurt {
  const health = a.health - amount
  if (health > 0) return { avatar: { ...a, health }, died: false, moneyLost: 0 }
  const moneyLost = Math.floor(a.money / DEATH_MONEY_LOSS_DIVISOR)
  return {
    avatar: { ...a, experience: 0, money: a.money - moneyLost, health: a.maxHealth, mana: a.maxMana, deaths: a.deaths + 1 },
    died: true,
    moneyLost,
  }
}

export const heal = (a: Avatar, amount: number): Avatar => ({ ...a, health: Math.min(a.maxHealth, a.health + amount) })

export function spendMana(a: Avatar, amount: number): Avatar {
  if (amount > a.mana) throw new InsufficientMana(a.mana, amount)
  return { ...a, mana: a.mana - amount }
}

export const restoreMana = (a: Avatar, amount: number): Avatar => ({ ...a, mana: Math.min(a.maxMana, a.mana + amount) })

// ---- stats ----

export function increaseStat(a: Avatar, stat: Stat): Avatar {
  if (a.unspentPoints < 1) throw new NoStatPoints()
  return { ...a, [stat]: a[stat] + 1, unspentPoints: a.unspentPoints - 1 }
}

const equippedPower = (a: Avatar, type: ItemType): number => a.equipped.find((i) => i.type === type)?.power ?? 0

/** Strength plus the equipped weapon's power. */
export const effectiveAttack = (a: Avatar): number => a.strength + equippedPower(a, 'WEAPON')
/** Defense plus the equipped armor's power. */
export const effectiveDefense = (a: Avatar): number => a.defense + equippedPower(a, 'ARMOR')

// ---- inventory and equipment ----

/** An item named in a request: matched by type (when given) and name. */
export interface ItemRef {
  type?: ItemType
  name: string
}

const matches = (ref: ItemRef) => (i: Item) => i.name === ref.name && (ref.type === undefined || i.type === ref.type)

function without(items: Item[], index: number): Item[] {
  return [...items.slice(0, index), ...items.slice(index + 1)]
}

export function addItem(a: Avatar, item: Item): Avatar {
  if (a.inventory.length >= INVENTORY_CAPACITY) throw new InventoryFull(INVENTORY_CAPACITY)
  return { ...a, inventory: [...a.inventory, item] }
}

export function removeItem(a: Avatar, ref: ItemRef): { avatar: Avatar; item: Item } {
  const index = a.inventory.findIndex(matches(ref))
  const item = a.inventory[index]
  if (!item) throw new ItemNotInInventory(ref.type, ref.name)
  return { avatar: { ...a, inventory: without(a.inventory, index) }, item }
}

/** Takes an item out of the inventory by name (to sell it); an equipped one must be unequipped first. */
export function takeItem(a: Avatar, name: string): { avatar: Avatar; item: Item } {
  const inInventory = a.inventory.some((i) => i.name === name)
  if (!inInventory && a.equipped.some((i) => i.name === name)) throw new ItemEquipped(name)
  return removeItem(a, { name })
}

/** Moves the item to its slot; whatever held the slot goes back to the inventory. */
export function equip(a: Avatar, ref: ItemRef): Avatar {
  const { avatar, item } = removeItem(a, ref)
  if (item.type === 'CONSUMABLE') throw new NotEquippable(item.name)
  const previous = avatar.equipped.find((i) => i.type === item.type)
  return {
    ...avatar,
    inventory: previous ? [...avatar.inventory, previous] : avatar.inventory,
    equipped: [...avatar.equipped.filter((i) => i.type !== item.type), item],
  }
}

export function unequip(a: Avatar, ref: Required<ItemRef>): Avatar {
  const index = a.equipped.findIndex(matches(ref))
  const item = a.equipped[index]
  if (!item) throw new ItemNotEquipped(ref.type, ref.name)
  if (a.inventory.length >= INVENTORY_CAPACITY) throw new InventoryFull(INVENTORY_CAPACITY)
  return { ...a, equipped: without(a.equipped, index), inventory: [...a.inventory, item] }
}

/**
 * Uses up a consumable: it restores health, or mana for a MANA potion, by its power; a FREEZE item
 * (an Ice Crystal) adds one streak freeze whatever its power, and is refused, kept, at the most held.
 */
export function useItem(a: Avatar, name: string): { avatar: Avatar; item: Item } {
  const index = a.inventory.findIndex((i) => i.name === name && i.type === 'CONSUMABLE')
  const item = a.inventory[index]
  if (!item) {
    if (a.inventory.some((i) => i.name === name)) throw new NotUsable(name)
    throw new ItemNotInInventory('CONSUMABLE', name)
  }
  const rest = { ...a, inventory: without(a.inventory, index) }
  switch (item.effect) {
    case 'MANA': return { avatar: restoreMana(rest, item.power), item }
    case 'FREEZE': return { avatar: addStreakFreeze(rest), item }
    default: return { avatar: heal(rest, item.power), item }
  }
}

// ---- streak freezes (DESIGN §9.3; what habits do to the avatar: habit-effects.ts) ----

/** One more streak freeze; refused at the most an avatar may hold. */
export function addStreakFreeze(a: Avatar): Avatar {
  if (a.streakFreezes >= STREAK_FREEZES_MAX) throw new FreezesFull(STREAK_FREEZES_MAX)
  return { ...a, streakFreezes: a.streakFreezes + 1 }
}

/** The avatar's streak freezes as its views show them. */
export const freezesOf = (a: Avatar) => ({ held: a.streakFreezes, max: STREAK_FREEZES_MAX })

/** The avatar's state as its AvatarChanged event carries it (what a live view shows). */
export const changedPayload = (a: Avatar) => ({
  avatarId: a.id, level: a.level, experience: a.experience, experienceRequired: experienceRequired(a.level),
  health: a.health, maxHealth: a.maxHealth, mana: a.mana, maxMana: a.maxMana, money: a.money,
  strength: a.strength, defense: a.defense, intelligence: a.intelligence, unspentPoints: a.unspentPoints,
  inventory: a.inventory, equipped: a.equipped, streakFreezes: freezesOf(a),
})
