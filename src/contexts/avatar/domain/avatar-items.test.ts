/** The avatar's gear (DESIGN §6): effective attack and defense, the inventory, equipment slots, consumables. */
import { describe, expect, test } from 'vitest'
import { addItem, effectiveAttack, effectiveDefense, equip, increaseStat, removeItem, unequip, useItem, type Item } from './avatar.js'
import { InventoryFull, ItemNotEquipped, ItemNotInInventory, NotEquippable, NotUsable } from './errors.js'
import { fresh, potion, sword, withItems } from './test-avatars.js'

// Every expected number below is worked out by hand from DESIGN §6; none is read from rules.ts.

const potions = (n: number): Item[] => Array.from({ length: n }, (_, i) => ({ ...potion, name: `Potion ${i}` }))
const axe: Item = { type: 'WEAPON', name: 'Axe', description: 'Heavy.', power: 9 }
const mail: Item = { type: 'ARMOR', name: 'Mail', description: 'Rings.', power: 4 }
const plate: Item = { type: 'ARMOR', name: 'Plate', description: 'Solid.', power: 7 }
const ether: Item = { type: 'CONSUMABLE', name: 'Ether', description: 'Blue.', power: 25, effect: 'MANA' }
const herb: Item = { type: 'CONSUMABLE', name: 'Herb', description: 'No effect named: heals.', power: 12 }

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
