import { describe, expect, test } from 'vitest'
import { asItem, catalogOfType, checkLevel, findInCatalog, sellPrice } from './catalog.js'
import { CATALOG } from './rules.js'

describe('the catalog', () => {
  test('at least 15 items, names unique, every type, levels 1 to 20, consumables with an effect', () => {
    expect(CATALOG.length).toBeGreaterThanOrEqual(15)
    expect(new Set(CATALOG.map((i) => i.name)).size).toBe(CATALOG.length)
    expect(new Set(CATALOG.map((i) => i.type))).toEqual(new Set(['WEAPON', 'ARMOR', 'CONSUMABLE']))
    for (const i of CATALOG) {
      expect(i.requiredLevel, i.name).toBeGreaterThanOrEqual(1)
      expect(i.requiredLevel, i.name).toBeLessThanOrEqual(20)
      expect(i.name.length, i.name).toBeLessThanOrEqual(64)
      expect(i.description.length, i.name).toBeLessThanOrEqual(500)
      expect(i.effect !== undefined, i.name).toBe(i.type === 'CONSUMABLE')
    }
  })

  test('filters by type; ALL is everything', () => {
    expect(catalogOfType('ALL')).toBe(CATALOG)
    expect(catalogOfType('ARMOR').map((i) => i.type)).toEqual(Array(catalogOfType('ARMOR').length).fill('ARMOR'))
    expect(catalogOfType('WEAPON').length + catalogOfType('ARMOR').length + catalogOfType('CONSUMABLE').length).toBe(CATALOG.length)
  })

  test('finds by exact name only', () => {
    expect(findInCatalog('Rusty Shortsword')?.price).toBe(30)
    expect(findInCatalog('rusty shortsword')).toBeUndefined()
  })
})

test('the Ice Crystal is a level 3 consumable for 60 that adds a streak freeze (DESIGN §9.3)', () => {
  expect(findInCatalog('Ice Crystal')).toMatchObject({ type: 'CONSUMABLE', requiredLevel: 3, price: 60, effect: 'FREEZE' })
  expect(sellPrice(asItem(findInCatalog('Ice Crystal')!))).toBe(30)
})

describe('sell prices', () => {
  test.each([
    ['a catalog item: half its price', { type: 'WEAPON', name: 'Rusty Shortsword', description: '', power: 4 }, 15],
    ['rounded down', { type: 'ARMOR', name: 'Padded Pajamas', description: '', power: 2 }, 7],
    ['at least 1', { type: 'CONSUMABLE', name: 'Questionable Mushroom', description: '', power: 1 }, 1],
    ['not in the catalog: its power', { type: 'WEAPON', name: 'Grandpa’s Cane', description: '', power: 9 }, 9],
    ['not in the catalog, no power: 1', { type: 'ARMOR', name: 'Paper Hat', description: '', power: 0 }, 1],
    ['a catalog name of another type is not the catalog item', { type: 'ARMOR', name: 'Rusty Shortsword', description: '', power: 3 }, 3],
  ] as const)('%s', (_case, item, price) => {
    expect(sellPrice(item)).toBe(price)
  })
})

test('a level below the required one is refused, naming whose level it was', () => {
  const staff = findInCatalog('Oakheart Quarterstaff')!
  expect(() => checkLevel(staff, 3, 'avatar')).not.toThrow()
  expect(() => checkLevel(staff, 2, 'avatar')).toThrow(/needs level 3; the avatar is level 2/)
  expect(() => checkLevel(staff, 1, 'stated')).toThrow(/stated currentLevel is 1/)
})
