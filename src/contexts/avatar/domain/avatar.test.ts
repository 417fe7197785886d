import { describe, expect, test } from 'vitest'
import {
  addItem, earnMoney, effectiveAttack, effectiveDefense, equip, grantExperience, heal, increaseStat, newAvatar,
  receiveReward, removeItem, restoreMana, spendMana, spendMoney, takeDamage, unequip, useItem, type Avatar, type Item,
} from './avatar.js'
import {
  InsufficientFunds, InsufficientMana, InventoryFull, ItemNotEquipped, ItemNotInInventory, NoStatPoints, NotEquippable,
  NotUsable, WalletFull,
} from './errors.js'
import { experienceRequired } from './rules.js'

const fresh = (): Avatar => newAvatar({ id: 'a', ownerId: 'o', name: 'N', inventoryId: 'i', equipmentId: 'e' })
const sword: Item = { type: 'WEAPON', name: 'Sword', description: '', power: 5 }
const axe: Item = { type: 'WEAPON', name: 'Axe', description: '', power: 9 }
const mail: Item = { type: 'ARMOR', name: 'Mail', description: '', power: 4 }
const potion: Item = { type: 'CONSUMABLE', name: 'Potion', description: '', power: 30, effect: 'HEALTH' }
const ether: Item = { type: 'CONSUMABLE', name: 'Ether', description: '', power: 25, effect: 'MANA' }

describe('a new avatar', () => {
  test('starts at level 1 with the starting values', () => {
    expect(fresh()).toMatchObject({
      level: 1, experience: 0, health: 100, maxHealth: 100, mana: 50, maxMana: 50, money: 100,
      strength: 10, defense: 10, intelligence: 10, unspentPoints: 5, inventory: [], equipped: [],
    })
  })
})

describe('experience', () => {
  test('leaving a level needs 100, 150, 200, …', () => {
    expect([1, 2, 3, 10].map(experienceRequired)).toEqual([100, 150, 200, 550])
  })

  test('one grant can raise two levels and carries the rest over', () => {
    // leaving level 1 needs 100, level 2 needs 150: 260 = 100 + 150 + 10
    const g = grantExperience(fresh(), 260)
    expect(g.levelsGained).toBe(2)
    expect(g.avatar).toMatchObject({ level: 3, experience: 10, maxHealth: 120, health: 120, maxMana: 60, mana: 60, unspentPoints: 7, money: 140 })
  })

  test('a grant short of the next level changes only experience', () => {
    const g = grantExperience({ ...fresh(), health: 40 }, 99)
    expect(g).toMatchObject({ levelsGained: 0, spellsLearned: [] })
    expect(g.avatar).toMatchObject({ level: 1, experience: 99, health: 40 })
  })

  test('spells come at levels 5, 10 and 15, all at once on a big jump', () => {
    // to level 5: 100 + 150 + 200 + 250 = 700
    expect(grantExperience(fresh(), 700).spellsLearned).toEqual(['Fireball'])
    // to level 16: sum of 50L + 50 for L = 1…15 = 50·120 + 750 = 6750
    const big = grantExperience(fresh(), 6750)
    expect(big.avatar.level).toBe(16)
    expect(big.spellsLearned).toEqual(['Fireball', 'Blizzard', 'Thunder'])
    const again = grantExperience(big.avatar, 10)
    expect(again.spellsLearned).toEqual([])
  })

  test('a reward from play never fails, even with a full wallet', () => {
    const rich = { ...fresh(), money: 1_000_000_000_000 - 1 }
    expect(receiveReward(rich, { experience: 10, money: 2 }).avatar.money).toBe(1_000_000_000_000)
  })
})

describe('wallet', () => {
  test('earn and spend; spending more than held is refused', () => {
    expect(earnMoney(fresh(), 25).money).toBe(125)
    expect(spendMoney(fresh(), 100).money).toBe(0)
    expect(() => spendMoney(fresh(), 101)).toThrow(InsufficientFunds)
    expect(() => earnMoney({ ...fresh(), money: 1_000_000_000_000 }, 1)).toThrow(WalletFull)
  })
})

describe('health and mana', () => {
  test('damage short of death', () => {
    expect(takeDamage(fresh(), 30)).toMatchObject({ died: false, avatar: { health: 70 } })
    expect(takeDamage(fresh(), 0)).toMatchObject({ died: false, avatar: { health: 100 } })
  })

  test('death at exactly 0: level experience and a tenth of the money lost, then full again', () => {
    const a = { ...fresh(), level: 4, experience: 120, money: 155, health: 30, mana: 3, maxHealth: 130, maxMana: 65 }
    const hurt = takeDamage(a, 30)
    // 155 − floor(155 / 10) = 140
    expect(hurt).toMatchObject({ died: true, moneyLost: 15 })
    expect(hurt.avatar).toMatchObject({ level: 4, experience: 0, money: 140, health: 130, mana: 65 })
    expect(takeDamage(a, 500).died).toBe(true)
  })

  test('heal and restore stop at the maximum; mana cannot go below zero', () => {
    expect(heal({ ...fresh(), health: 90 }, 50).health).toBe(100)
    expect(restoreMana({ ...fresh(), mana: 45 }, 50).mana).toBe(50)
    expect(spendMana(fresh(), 50).mana).toBe(0)
    expect(() => spendMana(fresh(), 51)).toThrow(InsufficientMana)
  })
})

describe('stats', () => {
  test('a point raises a stat by one; with none left it is refused', () => {
    expect(increaseStat(fresh(), 'strength')).toMatchObject({ strength: 11, unspentPoints: 4 })
    expect(() => increaseStat({ ...fresh(), unspentPoints: 0 }, 'defense')).toThrow(NoStatPoints)
  })
})

describe('inventory and equipment', () => {
  test('the inventory holds 100 items', () => {
    let a = fresh()
    for (let i = 0; i < 100; i++) a = addItem(a, potion)
    expect(a.inventory).toHaveLength(100)
    expect(() => addItem(a, potion)).toThrow(InventoryFull)
  })

  test('removing matches type and name, and takes one of duplicates', () => {
    const a = addItem(addItem(addItem(fresh(), potion), potion), sword)
    expect(removeItem(a, { type: 'CONSUMABLE', name: 'Potion' }).avatar.inventory).toEqual([potion, sword])
    expect(removeItem(a, { name: 'Sword' }).item).toEqual(sword)
    expect(() => removeItem(a, { type: 'ARMOR', name: 'Sword' })).toThrow(ItemNotInInventory)
  })

  test('equipping fills the slot; a second weapon sends the first back', () => {
    let a = addItem(addItem(addItem(fresh(), sword), axe), mail)
    a = equip(equip(a, { type: 'WEAPON', name: 'Sword' }), { type: 'ARMOR', name: 'Mail' })
    expect(effectiveAttack(a)).toBe(15)
    expect(effectiveDefense(a)).toBe(14)
    a = equip(a, { type: 'WEAPON', name: 'Axe' })
    expect(a.equipped).toEqual([mail, axe])
    expect(a.inventory).toEqual([sword])
    expect(effectiveAttack(a)).toBe(19)
    expect(() => equip(addItem(fresh(), potion), { name: 'Potion' })).toThrow(NotEquippable)
  })

  test('unequipping moves the item back, unless it is not equipped or the inventory is full', () => {
    const a = equip(addItem(fresh(), sword), { name: 'Sword' })
    expect(unequip(a, { type: 'WEAPON', name: 'Sword' })).toMatchObject({ equipped: [], inventory: [sword] })
    expect(() => unequip(a, { type: 'ARMOR', name: 'Sword' })).toThrow(ItemNotEquipped)
    const full = { ...a, inventory: Array.from({ length: 100 }, () => potion) }
    expect(() => unequip(full, { type: 'WEAPON', name: 'Sword' })).toThrow(InventoryFull)
  })

  test('using a potion restores by its power and uses it up', () => {
    const hurt = { ...addItem(addItem(addItem(fresh(), potion), ether), sword), health: 50, mana: 10 }
    const drank = useItem(hurt, 'Potion').avatar
    expect(drank).toMatchObject({ health: 80, inventory: [ether, sword] })
    expect(useItem(drank, 'Ether').avatar).toMatchObject({ mana: 35, inventory: [sword] })
    expect(useItem({ ...hurt, health: 95 }, 'Potion').avatar.health).toBe(100)
    expect(() => useItem(hurt, 'Sword')).toThrow(NotUsable)
    expect(() => useItem(hurt, 'Elixir')).toThrow(ItemNotInInventory)
  })
})
