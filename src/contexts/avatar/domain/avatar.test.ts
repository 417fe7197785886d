import { describe, expect, test } from 'vitest'
import {
  addItem, changedPayload, checkNewAvatar, earnMoney, effectiveAttack, effectiveDefense, equip, grantExperience, heal, increaseStat,
  newAvatar, receiveReward, removeItem, restoreMana, rewardCompletion, settleMissedWindow, spellsKnownAt, spendMana, spendMoney,
  takeDamage, unequip, useItem, type Avatar, type Item,
} from './avatar.js'
import {
  FreezesFull, InsufficientFunds, InsufficientMana, InventoryFull, ItemNotEquipped, ItemNotInInventory, NoStatPoints, NotEquippable,
  NotUsable, ReservedAvatarId, TooManyAvatars, WalletFull,
} from './errors.js'
import { experienceRequired } from './rules.js'

// Every expected number below is worked out by hand from DESIGN §6; none is read from rules.ts.

const fresh = (): Avatar => newAvatar({ id: 'a', ownerId: 'o', name: 'N', inventoryId: 'i', equipmentId: 'e' })
/** An avatar at the given level with no experience in it (max health and mana as if it had grown there). */
const atLevel = (level: number, maxHealth: number, maxMana: number): Avatar =>
  ({ ...fresh(), level, experience: 0, maxHealth, health: maxHealth, maxMana, mana: maxMana })
const withItems = (a: Avatar, ...items: Item[]): Avatar => items.reduce(addItem, a)
const potions = (n: number): Item[] => Array.from({ length: n }, (_, i) => ({ ...potion, name: `Potion ${i}` }))

const sword: Item = { type: 'WEAPON', name: 'Sword', description: 'Sharp.', power: 5 }
const axe: Item = { type: 'WEAPON', name: 'Axe', description: 'Heavy.', power: 9 }
const mail: Item = { type: 'ARMOR', name: 'Mail', description: 'Rings.', power: 4 }
const plate: Item = { type: 'ARMOR', name: 'Plate', description: 'Solid.', power: 7 }
const potion: Item = { type: 'CONSUMABLE', name: 'Potion', description: 'Red.', power: 30, effect: 'HEALTH' }
const ether: Item = { type: 'CONSUMABLE', name: 'Ether', description: 'Blue.', power: 25, effect: 'MANA' }
const herb: Item = { type: 'CONSUMABLE', name: 'Herb', description: 'No effect named: heals.', power: 12 }
const crystal: Item = { type: 'CONSUMABLE', name: 'Ice Crystal', description: 'Cold.', power: 1, effect: 'FREEZE' }

describe('a new avatar', () => {
  test('starts at level 1 with the starting values and nothing owned', () => {
    expect(fresh()).toEqual({
      id: 'a', ownerId: 'o', name: 'N', inventoryId: 'i', equipmentId: 'e',
      level: 1, experience: 0, health: 100, maxHealth: 100, mana: 50, maxMana: 50, money: 100,
      strength: 10, defense: 10, intelligence: 10, unspentPoints: 5, inventory: [], equipped: [],
      streakFreezes: 0, missedDamage: {}, deaths: 0, timeZone: 'UTC', version: 0,
    })
  })

  test('knows no spells', () => {
    expect(spellsKnownAt(fresh().level)).toEqual([])
  })
})

describe('experience and levels', () => {
  test('leaving a level needs 100, 150, 200, … (50·L + 50)', () => {
    expect(experienceRequired(1)).toBe(100)
    expect(experienceRequired(2)).toBe(150)
    expect(experienceRequired(3)).toBe(200)
    expect(experienceRequired(4)).toBe(250)
    expect(experienceRequired(10)).toBe(550) // 500 + 50
    expect(experienceRequired(15)).toBe(800) // 750 + 50
  })

  test('a grant short of the next level changes only experience', () => {
    const hurt = { ...fresh(), health: 40, mana: 5 }
    const g = grantExperience(hurt, 99)
    expect(g).toEqual({ avatar: { ...hurt, experience: 99 }, levelsGained: 0, spellsLearned: [] })
  })

  test('experience already held counts towards the next level', () => {
    // level 2 needs 150: 140 + 9 = 149 stays, 140 + 10 = 150 leaves it with 0 over
    const a = { ...atLevel(2, 110, 55), experience: 140 }
    expect(grantExperience(a, 9).avatar).toMatchObject({ level: 2, experience: 149 })
    expect(grantExperience(a, 10).avatar).toMatchObject({ level: 3, experience: 0 })
  })

  test('exactly enough for one level: level 2 with its reward', () => {
    const hurt = { ...fresh(), health: 40, mana: 5 }
    const g = grantExperience(hurt, 100)
    expect(g.levelsGained).toBe(1)
    expect(g.spellsLearned).toEqual([])
    // max health 100 + 10, max mana 50 + 5, both refilled; points 5 + 1; money 100 + 20
    expect(g.avatar).toEqual({
      ...hurt, level: 2, experience: 0, maxHealth: 110, health: 110, maxMana: 55, mana: 55, unspentPoints: 6, money: 120,
    })
  })

  test('one grant can raise two levels and carries the rest over', () => {
    // leaving level 1 needs 100, level 2 needs 150: 260 = 100 + 150 + 10
    const g = grantExperience({ ...fresh(), health: 1, mana: 0 }, 260)
    expect(g.levelsGained).toBe(2)
    // two rewards: max health 100 + 20, max mana 50 + 10, points 5 + 2, money 100 + 40
    expect(g.avatar).toMatchObject({
      level: 3, experience: 10, maxHealth: 120, health: 120, maxMana: 60, mana: 60, unspentPoints: 7, money: 140,
    })
  })

  test('three levels: one short of the third stays two, exactly the third is three', () => {
    // 100 + 150 + 200 = 450 to reach level 4
    expect(grantExperience(fresh(), 449)).toMatchObject({ levelsGained: 2, avatar: { level: 3, experience: 199 } }) // 449 − 250
    const g = grantExperience(fresh(), 450)
    expect(g.levelsGained).toBe(3)
    // max health 100 + 30, max mana 50 + 15, points 5 + 3, money 100 + 60
    expect(g.avatar).toMatchObject({
      level: 4, experience: 0, maxHealth: 130, health: 130, maxMana: 65, mana: 65, unspentPoints: 8, money: 160,
    })
  })

  test('levelling up leaves stats, inventory and equipment alone', () => {
    const a = { ...equip(withItems(fresh(), sword, potion), { name: 'Sword' }), strength: 14 }
    const g = grantExperience(a, 100)
    expect(g.avatar).toMatchObject({ strength: 14, defense: 10, intelligence: 10, inventory: [potion], equipped: [sword] })
  })

  test('the level-up money stops at the wallet limit', () => {
    // 1,000,000,000,000 − 5 + 20 would pass the limit
    const g = grantExperience({ ...fresh(), money: 999_999_999_995 }, 100)
    expect(g.avatar.money).toBe(1_000_000_000_000)
  })

  test('the avatar given is not changed', () => {
    const a = fresh()
    grantExperience(a, 260)
    expect(a).toEqual(fresh())
  })
})

describe('spells', () => {
  test('Fireball is learned on reaching level 5, not before', () => {
    // leaving level 4 needs 250
    const four = atLevel(4, 130, 65)
    expect(grantExperience(four, 249).spellsLearned).toEqual([])
    expect(grantExperience(four, 250)).toMatchObject({ levelsGained: 1, spellsLearned: ['Fireball'], avatar: { level: 5 } })
  })

  test('from level 1, 700 experience reaches level 5 and Fireball', () => {
    // 100 + 150 + 200 + 250 = 700
    expect(grantExperience(fresh(), 700)).toMatchObject({ levelsGained: 4, spellsLearned: ['Fireball'], avatar: { level: 5 } })
  })

  test('Blizzard at level 10 and Thunder at level 15, without learning Fireball again', () => {
    // leaving level 9 needs 500; leaving level 14 needs 750
    expect(grantExperience(atLevel(9, 180, 90), 500).spellsLearned).toEqual(['Blizzard'])
    expect(grantExperience(atLevel(14, 230, 115), 750).spellsLearned).toEqual(['Thunder'])
    // level 5 → 10 leaves levels 5…9: 300 + 350 + 400 + 450 + 500 = 2000; Fireball is already known
    expect(grantExperience(atLevel(5, 140, 70), 2000)).toMatchObject({ levelsGained: 5, spellsLearned: ['Blizzard'] })
  })

  test('a jump from level 4 to 16 learns all three, with twelve rewards', () => {
    // leaving levels 4…15 needs 250 + 300 + 350 + 400 + 450 + 500 + 550 + 600 + 650 + 700 + 750 + 800 = 6300
    const g = grantExperience(atLevel(4, 130, 65), 6300)
    expect(g.levelsGained).toBe(12)
    expect(g.spellsLearned).toEqual(['Fireball', 'Blizzard', 'Thunder'])
    // max health 130 + 120, max mana 65 + 60, points 5 + 12, money 100 + 240
    expect(g.avatar).toMatchObject({
      level: 16, experience: 0, maxHealth: 250, health: 250, maxMana: 125, mana: 125, unspentPoints: 17, money: 340,
    })
  })

  test('the spellbook: Fireball 5 mana, power 10; Blizzard 7, 15; Thunder 10, 20', () => {
    const brief = (level: number) => spellsKnownAt(level).map(({ name, manaCost, power, requiredLevel }) => ({ name, manaCost, power, requiredLevel }))
    expect(brief(4)).toEqual([])
    expect(brief(9)).toEqual([{ name: 'Fireball', manaCost: 5, power: 10, requiredLevel: 5 }])
    expect(brief(15)).toEqual([
      { name: 'Fireball', manaCost: 5, power: 10, requiredLevel: 5 },
      { name: 'Blizzard', manaCost: 7, power: 15, requiredLevel: 10 },
      { name: 'Thunder', manaCost: 10, power: 20, requiredLevel: 15 },
    ])
    for (const s of spellsKnownAt(15)) expect(s.description).not.toBe('')
  })

  test('past level 15 there is nothing more to learn', () => {
    // leaving level 16 needs 850
    expect(grantExperience(atLevel(16, 250, 125), 850)).toMatchObject({ levelsGained: 1, spellsLearned: [] })
  })
})

describe('rewards from play', () => {
  test('pay money and experience together', () => {
    // 100 + 30 money, then level 2 brings 20 more: 150
    const g = receiveReward(fresh(), { experience: 100, money: 30 })
    expect(g).toMatchObject({ levelsGained: 1, avatar: { level: 2, experience: 0, money: 150 } })
  })

  test('a reward without experience pays only money', () => {
    expect(receiveReward(fresh(), { experience: 0, money: 7 })).toEqual({
      avatar: { ...fresh(), money: 107 }, levelsGained: 0, spellsLearned: [],
    })
  })

  test('never fail, even with a full wallet', () => {
    const rich = { ...fresh(), money: 999_999_999_999 }
    expect(receiveReward(rich, { experience: 10, money: 2 }).avatar).toMatchObject({ money: 1_000_000_000_000, experience: 10 })
  })
})

describe('wallet', () => {
  test('earning adds to the money held', () => {
    expect(earnMoney(fresh(), 25).money).toBe(125)
    expect(earnMoney(earnMoney(fresh(), 1), 1_000_000).money).toBe(1_000_101)
  })

  test('spending takes from it, down to exactly nothing', () => {
    expect(spendMoney(fresh(), 40).money).toBe(60)
    expect(spendMoney(fresh(), 100).money).toBe(0)
  })

  test('spending more than held is refused and changes nothing', () => {
    const a = fresh()
    expect(() => spendMoney(a, 101)).toThrow(InsufficientFunds)
    expect(() => spendMoney({ ...a, money: 0 }, 1)).toThrow(InsufficientFunds)
    expect(a.money).toBe(100)
  })

  test('the wallet holds up to 1,000,000,000,000 and no more', () => {
    const nearlyFull = { ...fresh(), money: 999_999_999_990 }
    expect(earnMoney(nearlyFull, 10).money).toBe(1_000_000_000_000)
    expect(() => earnMoney(nearlyFull, 11)).toThrow(WalletFull)
    expect(() => earnMoney({ ...fresh(), money: 1_000_000_000_000 }, 1)).toThrow(WalletFull)
    expect(nearlyFull.money).toBe(999_999_999_990)
  })

  test('earning and spending do not change the avatar given', () => {
    const a = fresh()
    earnMoney(a, 5)
    spendMoney(a, 5)
    expect(a).toEqual(fresh())
  })
})

describe('damage and death', () => {
  test('damage short of death lowers health only', () => {
    expect(takeDamage(fresh(), 30)).toEqual({ avatar: { ...fresh(), health: 70 }, died: false, moneyLost: 0 })
    expect(takeDamage(fresh(), 99)).toMatchObject({ died: false, avatar: { health: 1 } })
  })

  test('damage 0 changes nothing', () => {
    expect(takeDamage(fresh(), 0)).toEqual({ avatar: fresh(), died: false, moneyLost: 0 })
  })

  const wounded: Avatar = {
    ...fresh(), level: 4, experience: 120, money: 155, health: 30, maxHealth: 130, mana: 3, maxMana: 65,
    strength: 13, unspentPoints: 2,
  }

  test('health exactly 0 is death: level experience and a tenth of the money lost, then full again, one more death counted', () => {
    const hurt = takeDamage(wounded, 30)
    // 155 − floor(155 / 10) = 155 − 15 = 140
    expect(hurt).toEqual({
      died: true,
      moneyLost: 15,
      avatar: { ...wounded, level: 4, experience: 0, money: 140, health: 130, mana: 65, deaths: wounded.deaths + 1 },
    })
  })

  test('damage beyond the health left is the same death', () => {
    const hurt = takeDamage(wounded, 1_000_000)
    expect(hurt).toMatchObject({ died: true, moneyLost: 15, avatar: { level: 4, experience: 0, money: 140, health: 130, mana: 65 } })
  })

  test('one short of death is not death', () => {
    expect(takeDamage(wounded, 29)).toMatchObject({ died: false, moneyLost: 0, avatar: { health: 1, experience: 120, money: 155, mana: 3 } })
  })

  test('the money lost rounds down', () => {
    const die = (money: number) => takeDamage({ ...fresh(), health: 1, money }, 1)
    expect(die(100)).toMatchObject({ moneyLost: 10, avatar: { money: 90 } })
    expect(die(19)).toMatchObject({ moneyLost: 1, avatar: { money: 18 } }) // floor(1.9) = 1
    expect(die(9)).toMatchObject({ moneyLost: 0, avatar: { money: 9 } }) // floor(0.9) = 0
    expect(die(0)).toMatchObject({ moneyLost: 0, avatar: { money: 0 } })
  })
})

describe('healing and mana', () => {
  test('heal adds health and stops at the maximum', () => {
    expect(heal({ ...fresh(), health: 60 }, 30).health).toBe(90)
    expect(heal({ ...fresh(), health: 90 }, 10).health).toBe(100)
    expect(heal({ ...fresh(), health: 90 }, 50).health).toBe(100)
    expect(heal({ ...fresh(), health: 90, maxHealth: 120 }, 50).health).toBe(120)
  })

  test('restore adds mana and stops at the maximum', () => {
    expect(restoreMana({ ...fresh(), mana: 20 }, 15).mana).toBe(35)
    expect(restoreMana({ ...fresh(), mana: 45 }, 50).mana).toBe(50)
    expect(restoreMana({ ...fresh(), mana: 45, maxMana: 60 }, 50).mana).toBe(60)
  })

  test('mana is spent down to zero and no further', () => {
    expect(spendMana(fresh(), 20).mana).toBe(30)
    expect(spendMana(fresh(), 50).mana).toBe(0)
    const a = { ...fresh(), mana: 4 }
    expect(() => spendMana(a, 5)).toThrow(InsufficientMana)
    expect(a.mana).toBe(4)
  })
})

describe('stats', () => {
  test('a point raises the chosen stat by one', () => {
    expect(increaseStat(fresh(), 'strength')).toEqual({ ...fresh(), strength: 11, unspentPoints: 4 })
    expect(increaseStat(fresh(), 'defense')).toEqual({ ...fresh(), defense: 11, unspentPoints: 4 })
    expect(increaseStat(fresh(), 'intelligence')).toEqual({ ...fresh(), intelligence: 11, unspentPoints: 4 })
  })

  test('the five starting points raise a stat five times, then none is left', () => {
    let a = fresh()
    for (let i = 0; i < 5; i++) a = increaseStat(a, 'strength')
    expect(a).toMatchObject({ strength: 15, unspentPoints: 0 })
    expect(() => increaseStat(a, 'defense')).toThrow(NoStatPoints)
    expect(a.defense).toBe(10)
  })
})

describe('effective attack and defense', () => {
  test('with nothing equipped they are strength and defense', () => {
    const a = { ...fresh(), strength: 12, defense: 8 }
    expect(effectiveAttack(a)).toBe(12)
    expect(effectiveDefense(a)).toBe(8)
  })

  test('a weapon adds to attack only, armor to defense only', () => {
    const armed = equip(withItems({ ...fresh(), strength: 12, defense: 8 }, sword), { name: 'Sword' })
    expect(effectiveAttack(armed)).toBe(17) // 12 + 5
    expect(effectiveDefense(armed)).toBe(8)
    const both = equip(addItem(armed, mail), { name: 'Mail' })
    expect(effectiveAttack(both)).toBe(17)
    expect(effectiveDefense(both)).toBe(12) // 8 + 4
  })

  test('a raised stat counts too', () => {
    const armed = equip(withItems(fresh(), sword), { name: 'Sword' })
    expect(effectiveAttack(increaseStat(armed, 'strength'))).toBe(16) // 11 + 5
  })
})

describe('inventory', () => {
  test('adding appends, keeping what was there', () => {
    expect(withItems(fresh(), sword, potion, sword).inventory).toEqual([sword, potion, sword])
  })

  test('holds 100 items; the 101st is refused', () => {
    const ninetyNine = withItems(fresh(), ...potions(99))
    const full = addItem(ninetyNine, sword)
    expect(full.inventory).toHaveLength(100)
    expect(full.inventory[99]).toEqual(sword)
    expect(() => addItem(full, axe)).toThrow(InventoryFull)
    expect(full.inventory).toHaveLength(100)
  })

  test('adding does not change the avatar given', () => {
    const a = fresh()
    addItem(a, sword)
    expect(a.inventory).toEqual([])
  })

  test('removing matches type and name', () => {
    const a = withItems(fresh(), sword, potion, mail)
    const r = removeItem(a, { type: 'CONSUMABLE', name: 'Potion' })
    expect(r.item).toEqual(potion)
    expect(r.avatar.inventory).toEqual([sword, mail])
  })

  test('a name of the wrong type is not a match', () => {
    const a = withItems(fresh(), sword)
    expect(() => removeItem(a, { type: 'ARMOR', name: 'Sword' })).toThrow(ItemNotInInventory)
    expect(() => removeItem(a, { name: 'Shield' })).toThrow(ItemNotInInventory)
    expect(() => removeItem(fresh(), { name: 'Sword' })).toThrow(ItemNotInInventory)
  })

  test('without a type the name alone matches, the first one held', () => {
    const dagger: Item = { type: 'WEAPON', name: 'Twin', description: '', power: 1 }
    const cloak: Item = { type: 'ARMOR', name: 'Twin', description: '', power: 2 }
    const a = withItems(fresh(), potion, dagger, cloak)
    const r = removeItem(a, { name: 'Twin' })
    expect(r.item).toEqual(dagger)
    expect(r.avatar.inventory).toEqual([potion, cloak])
    expect(removeItem(a, { type: 'ARMOR', name: 'Twin' }).avatar.inventory).toEqual([potion, dagger])
  })

  test('of duplicates only one is removed', () => {
    const a = withItems(fresh(), potion, sword, potion, potion)
    expect(removeItem(a, { type: 'CONSUMABLE', name: 'Potion' }).avatar.inventory).toEqual([sword, potion, potion])
  })

  test('names match exactly', () => {
    expect(() => removeItem(withItems(fresh(), sword), { name: 'sword' })).toThrow(ItemNotInInventory)
  })
})

describe('equipment', () => {
  test('equipping moves the item from the inventory to its slot', () => {
    const a = equip(withItems(fresh(), potion, sword), { type: 'WEAPON', name: 'Sword' })
    expect(a.inventory).toEqual([potion])
    expect(a.equipped).toEqual([sword])
  })

  test('a weapon and an armor fill their own slots', () => {
    const a = equip(equip(withItems(fresh(), sword, mail), { name: 'Sword' }), { name: 'Mail' })
    expect(a.inventory).toEqual([])
    expect(a.equipped).toEqual([sword, mail])
  })

  test('equipping a second weapon puts the first back in the inventory', () => {
    const first = equip(withItems(fresh(), sword, axe, mail), { name: 'Sword' })
    const a = equip(equip(first, { name: 'Mail' }), { type: 'WEAPON', name: 'Axe' })
    expect(a.equipped).toEqual([mail, axe])
    expect(a.inventory).toEqual([sword])
    expect(effectiveAttack(a)).toBe(19) // 10 + 9
  })

  test('a second armor likewise swaps with the first', () => {
    const a = equip(equip(withItems(fresh(), mail, plate), { name: 'Mail' }), { name: 'Plate' })
    expect(a.equipped).toEqual([plate])
    expect(a.inventory).toEqual([mail])
    expect(effectiveDefense(a)).toBe(17) // 10 + 7
  })

  test('a swap works with a full inventory: one leaves, one comes back', () => {
    const armed = equip(withItems(fresh(), sword), { name: 'Sword' })
    const full = withItems(armed, ...potions(99), axe)
    const a = equip(full, { name: 'Axe' })
    expect(a.inventory).toHaveLength(100)
    expect(a.inventory[99]).toEqual(sword)
    expect(a.equipped).toEqual([axe])
  })

  test('consumables cannot be equipped', () => {
    const a = withItems(fresh(), potion)
    expect(() => equip(a, { name: 'Potion' })).toThrow(NotEquippable)
    expect(() => equip(a, { type: 'CONSUMABLE', name: 'Potion' })).toThrow(NotEquippable)
    expect(a.inventory).toEqual([potion])
    expect(a.equipped).toEqual([])
  })

  test('an item not held cannot be equipped', () => {
    expect(() => equip(fresh(), { name: 'Sword' })).toThrow(ItemNotInInventory)
    expect(() => equip(withItems(fresh(), sword), { type: 'ARMOR', name: 'Sword' })).toThrow(ItemNotInInventory)
  })

  test('unequipping moves the item back to the end of the inventory', () => {
    const a = equip(withItems(fresh(), sword, mail, potion), { name: 'Sword' })
    const b = unequip(a, { type: 'WEAPON', name: 'Sword' })
    expect(b.equipped).toEqual([])
    expect(b.inventory).toEqual([mail, potion, sword])
    expect(effectiveAttack(b)).toBe(10)
  })

  test('unequipping one slot leaves the other', () => {
    const a = equip(equip(withItems(fresh(), sword, mail), { name: 'Sword' }), { name: 'Mail' })
    const b = unequip(a, { type: 'ARMOR', name: 'Mail' })
    expect(b.equipped).toEqual([sword])
    expect(b.inventory).toEqual([mail])
  })

  test('what is not equipped cannot be unequipped', () => {
    const a = equip(withItems(fresh(), sword, axe), { name: 'Sword' })
    expect(() => unequip(a, { type: 'ARMOR', name: 'Sword' })).toThrow(ItemNotEquipped)
    expect(() => unequip(a, { type: 'WEAPON', name: 'Axe' })).toThrow(ItemNotEquipped) // held, not equipped
    expect(() => unequip(fresh(), { type: 'WEAPON', name: 'Sword' })).toThrow(ItemNotEquipped)
  })

  test('with a full inventory unequipping is refused and nothing moves', () => {
    const armed = equip(withItems(fresh(), sword), { name: 'Sword' })
    const full = withItems(armed, ...potions(100))
    expect(() => unequip(full, { type: 'WEAPON', name: 'Sword' })).toThrow(InventoryFull)
    expect(full.equipped).toEqual([sword])
    expect(full.inventory).toHaveLength(100)
  })
})

describe('using consumables', () => {
  test('a health potion heals by its power and is used up', () => {
    const a = { ...withItems(fresh(), potion, ether, sword), health: 50, mana: 10 }
    const r = useItem(a, 'Potion')
    expect(r.item).toEqual(potion)
    expect(r.avatar).toEqual({ ...a, health: 80, inventory: [ether, sword] }) // 50 + 30
  })

  test('a mana potion restores mana by its power, not health', () => {
    const a = { ...withItems(fresh(), potion, ether), health: 50, mana: 10 }
    expect(useItem(a, 'Ether').avatar).toEqual({ ...a, mana: 35, inventory: [potion] }) // 10 + 25
  })

  test('a consumable with no effect named heals', () => {
    const a = { ...withItems(fresh(), herb), health: 50, mana: 10 }
    expect(useItem(a, 'Herb').avatar).toMatchObject({ health: 62, mana: 10, inventory: [] }) // 50 + 12
  })

  test('both stop at the maximum', () => {
    expect(useItem({ ...withItems(fresh(), potion), health: 95 }, 'Potion').avatar.health).toBe(100)
    expect(useItem({ ...withItems(fresh(), ether), mana: 40 }, 'Ether').avatar.mana).toBe(50)
  })

  test('of several potions only one is used', () => {
    const a = { ...withItems(fresh(), potion, potion), health: 10 }
    const once = useItem(a, 'Potion').avatar
    expect(once).toMatchObject({ health: 40, inventory: [potion] })
    expect(useItem(once, 'Potion').avatar).toMatchObject({ health: 70, inventory: [] })
  })

  test('a weapon or armor is not usable', () => {
    const a = withItems(fresh(), sword, mail)
    expect(() => useItem(a, 'Sword')).toThrow(NotUsable)
    expect(() => useItem(a, 'Mail')).toThrow(NotUsable)
    expect(a.inventory).toEqual([sword, mail])
  })

  test('an item not held cannot be used', () => {
    expect(() => useItem(withItems(fresh(), potion), 'Elixir')).toThrow(ItemNotInInventory)
    expect(() => useItem(fresh(), 'Potion')).toThrow(ItemNotInInventory)
  })

  test('an equipped item is not in the inventory', () => {
    const a = equip(withItems(fresh(), sword), { name: 'Sword' })
    expect(() => useItem(a, 'Sword')).toThrow(ItemNotInInventory)
  })
})

describe('a new avatar', () => {
  test('a reserved word is no avatar id', () => {
    expect(() => checkNewAvatar('search', 0)).toThrow(ReservedAvatarId)
  })
  test('a player has the registration avatar and at most 10 more', () => {
    expect(() => checkNewAvatar('hero-2', 10)).not.toThrow()
    expect(() => checkNewAvatar('hero-12', 11)).toThrow(TooManyAvatars)
  })
})

describe('streak freezes earned by completions', () => {
  const completion = (streak: number, windowCompleted = true) => ({ reward: { experience: 10, money: 2 }, streak, windowCompleted })

  test('a streak of 7 pays its reward and earns one freeze; 6 and 8 earn none', () => {
    const r = rewardCompletion(fresh(), completion(7))
    expect(r).toEqual({ avatar: { ...fresh(), experience: 10, money: 102, streakFreezes: 1 }, levelsGained: 0, spellsLearned: [], freezeEarned: true })
    expect(rewardCompletion(fresh(), completion(6))).toMatchObject({ avatar: { streakFreezes: 0 }, freezeEarned: false })
    expect(rewardCompletion(fresh(), completion(8))).toMatchObject({ avatar: { streakFreezes: 0 }, freezeEarned: false })
  })

  test('14 and 21 earn one each time, up to 2 held; at 2 the reward is still paid and no third is earned', () => {
    const one = rewardCompletion(fresh(), completion(7)).avatar
    const two = rewardCompletion(one, completion(14)).avatar
    expect(two.streakFreezes).toBe(2)
    const three = rewardCompletion(two, completion(21))
    expect(three).toMatchObject({ avatar: { streakFreezes: 2, experience: 30, money: 106 }, freezeEarned: false })
  })

  test('a TIMES_PER_WEEK week still short earns none, whatever its streak', () => {
    expect(rewardCompletion(fresh(), completion(7, false))).toMatchObject({ avatar: { streakFreezes: 0, experience: 10 }, freezeEarned: false })
  })

  test('the freeze survives a level-up in the same reward', () => {
    const r = rewardCompletion({ ...fresh(), experience: 95 }, completion(14))
    expect(r).toMatchObject({ levelsGained: 1, avatar: { level: 2, experience: 5, streakFreezes: 1 }, freezeEarned: true })
  })
})

describe('missed windows', () => {
  const missed = (day: string, damage = 5) => ({ day, damage })

  test('with a freeze held, one is used up instead of the damage', () => {
    const a = { ...fresh(), health: 60, streakFreezes: 2 }
    expect(settleMissedWindow(a, missed('2026-03-02'))).toEqual({
      avatar: { ...a, streakFreezes: 1 }, outcome: 'FROZEN', damage: 0, died: false, moneyLost: 0,
    })
  })

  test('a freeze is used even when the day is already at its cap: it keeps the streak', () => {
    const a = { ...fresh(), streakFreezes: 1, missedDamage: { '2026-03-02': 25 } }
    expect(settleMissedWindow(a, missed('2026-03-02'))).toMatchObject({ outcome: 'FROZEN', avatar: { streakFreezes: 0, health: 100 } })
  })

  test('without one, the window costs its damage, recorded on its day', () => {
    const r = settleMissedWindow(fresh(), missed('2026-03-02'))
    expect(r).toEqual({ avatar: { ...fresh(), health: 95, missedDamage: { '2026-03-02': 5 } }, outcome: 'DAMAGED', damage: 5, died: false, moneyLost: 0 })
  })

  test('six windows missed on one day cost 25 in all: the sixth costs nothing', () => {
    let a = fresh()
    const taken: number[] = []
    for (let i = 0; i < 6; i++) {
      const r = settleMissedWindow(a, missed('2026-03-02'))
      taken.push(r.damage)
      a = r.avatar
    }
    expect(taken).toEqual([5, 5, 5, 5, 5, 0])
    expect(a).toMatchObject({ health: 75, missedDamage: { '2026-03-02': 25 } })
  })

  test('a penalty that would pass the cap is cut to what the day has left', () => {
    const a = { ...fresh(), missedDamage: { '2026-03-02': 22 } }
    expect(settleMissedWindow(a, missed('2026-03-02'))).toMatchObject({ damage: 3, avatar: { health: 97, missedDamage: { '2026-03-02': 25 } } })
  })

  test('each day has its own cap', () => {
    const a = { ...fresh(), missedDamage: { '2026-03-02': 25 } }
    const next = settleMissedWindow(a, missed('2026-03-03'))
    expect(next).toMatchObject({ damage: 5, avatar: { health: 95, missedDamage: { '2026-03-02': 25, '2026-03-03': 5 } } })
    // A window of the capped day judged late still costs nothing.
    expect(settleMissedWindow(next.avatar, missed('2026-03-02'))).toMatchObject({ damage: 0, avatar: { health: 95 } })
  })

  test('only the latest 14 days are remembered', () => {
    // 1 to 14 March, 5 each: the 15th pushes 1 March out.
    const days = Array.from({ length: 14 }, (_, i) => `2026-03-${String(i + 1).padStart(2, '0')}`)
    const a = { ...fresh(), missedDamage: Object.fromEntries(days.map((d) => [d, 5])) }
    const r = settleMissedWindow(a, missed('2026-03-15'))
    expect(Object.keys(r.avatar.missedDamage)).toEqual([...days.slice(1), '2026-03-15'])
    // A day older than a full record cannot be told from one that took its cap: no damage.
    expect(settleMissedWindow(r.avatar, missed('2026-03-01'))).toMatchObject({ damage: 0, avatar: { health: 95 } })
  })

  test('the damage may kill: then the avatar dies as from any blow', () => {
    const a = { ...fresh(), health: 5, money: 50 }
    expect(settleMissedWindow(a, missed('2026-03-02'))).toMatchObject({
      outcome: 'DAMAGED', damage: 5, died: true, moneyLost: 5, avatar: { health: 100, money: 45, missedDamage: { '2026-03-02': 5 } },
    })
  })
})

describe('the Ice Crystal', () => {
  test('using it adds one freeze and uses it up, leaving health and mana alone', () => {
    const a = { ...withItems(fresh(), crystal, potion), health: 50 }
    expect(useItem(a, 'Ice Crystal')).toEqual({ avatar: { ...a, streakFreezes: 1, inventory: [potion] }, item: crystal })
  })

  test('with 2 held it is refused and kept', () => {
    const a = { ...withItems(fresh(), crystal), streakFreezes: 2 }
    expect(() => useItem(a, 'Ice Crystal')).toThrow(FreezesFull)
    expect(() => useItem(a, 'Ice Crystal')).toThrow('holds 2 streak freezes')
    expect(a.inventory).toEqual([crystal])
  })

  test('the avatar\'s live state shows the freezes held and the most it may hold', () => {
    expect(changedPayload({ ...fresh(), streakFreezes: 1 }).streakFreezes).toEqual({ held: 1, max: 2 })
  })
})
