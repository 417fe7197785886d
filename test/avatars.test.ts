import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { buildTestApp, type TestApp } from './support/app.js'
import { newPlayer, type Player } from './support/players.js'

let app: TestApp
beforeAll(async () => {
  app = await buildTestApp()
})
afterAll(() => app.close())

const url = (p: Player, rest = '') => `/api/v1/avatars/${p.avatarId}${rest}`
const get = (p: Player, rest = '', as: Player = p) => app.inject({ url: url(p, rest), headers: as.auth })
const post = (p: Player, rest: string, payload?: object, as: Player = p) =>
  app.inject({ method: 'POST', url: url(p, rest), headers: as.auth, ...(payload ? { payload } : {}) })
const sword = { type: 'WEAPON', name: 'Iron Sword', description: 'Plain but sharp.', power: 5 }
const axe = { type: 'WEAPON', name: 'War Axe', description: 'Heavy.', power: 9 }
const mail = { type: 'ARMOR', name: 'Chain Mail', description: 'Rings of steel.', power: 4 }
const potion = { type: 'CONSUMABLE', name: 'Red Potion', description: 'Tastes of cherries.', power: 30 }

describe('creating and deleting avatars', () => {
  test('POST creates an avatar owned by the caller and answers its id with self, avatar, level and health links', async () => {
    const p = await newPlayer(app)
    const res = await app.inject({ method: 'POST', url: '/api/v1/avatars', headers: p.auth, payload: { id: `alt-${p.userId}`, name: 'Alt' } })
    expect(res.statusCode).toBe(200)
    const id = `alt-${p.userId}`
    expect(res.json()).toEqual({
      id,
      _links: {
        self: { href: `/api/v1/avatars/${id}` },
        avatar: { href: `/api/v1/avatars/${id}` },
        level: { href: `/api/v1/avatars/${id}/level` },
        health: { href: `/api/v1/avatars/${id}/health` },
      },
    })
    const earn = await app.inject({ method: 'POST', url: `/api/v1/avatars/${id}/money/earn`, headers: p.auth, payload: { amount: 1 } })
    expect(earn.statusCode).toBe(204)
  })

  test('a taken id is 409; a malformed or reserved id is 400', async () => {
    const p = await newPlayer(app)
    const create = (id: string) => app.inject({ method: 'POST', url: '/api/v1/avatars', headers: p.auth, payload: { id, name: 'X' } })
    expect((await create(p.avatarId)).statusCode).toBe(409)
    expect((await create('has space')).statusCode).toBe(400)
    expect((await create('x'.repeat(65))).statusCode).toBe(400)
    const reserved = await create('search')
    expect(reserved.statusCode).toBe(400)
    expect(reserved.json().type).toBe('/problems/reserved-avatar-id')
  })

  test('GET shows the whole avatar with the contract links', async () => {
    const p = await newPlayer(app, 'Brienne')
    const res = await get(p)
    expect(res.statusCode).toBe(200)
    const a = res.json()
    expect(a).toMatchObject({
      id: p.avatarId,
      name: 'Brienne',
      money: { amount: 100 },
      level: { levelNumber: 1, currentExperience: 0, experienceRequired: 100 },
      health: { current: 100, max: 100 },
      mana: { amount: 50, max: 50 },
      stats: { strength: 10, defense: 10, intelligence: 10 },
      inventory: { id: expect.any(String), items: [] },
      equippedItems: { id: expect.any(String), items: [] },
      spells: [],
      streakFreezes: { held: 0, max: 2 },
    })
    for (const rel of ['self', 'inventory', 'equippedItems', 'stats', 'level', 'health', 'mana', 'money', 'delete']) {
      expect(a._links[rel].href, rel).toMatch(new RegExp(`^/api/v1/avatars/${p.avatarId}`))
    }
  })

  test('DELETE removes the avatar permanently; others may not delete it', async () => {
    const owner = await newPlayer(app)
    const other = await newPlayer(app)
    expect((await app.inject({ method: 'DELETE', url: url(owner), headers: other.auth })).statusCode).toBe(403)
    expect((await app.inject({ method: 'DELETE', url: url(owner), headers: owner.auth })).statusCode).toBe(204)
    const gone = await get(owner)
    expect(gone.statusCode).toBe(404)
    expect(gone.json().type).toBe('/problems/not-found')
    expect((await app.inject({ method: 'DELETE', url: url(owner), headers: owner.auth })).statusCode).toBe(404)
  })
})

describe('ownership', () => {
  test('anyone signed in may read an avatar, only its owner may change it', async () => {
    const owner = await newPlayer(app)
    const other = await newPlayer(app)
    expect((await get(owner, '', other)).statusCode).toBe(200)
    expect((await get(owner, '/inventory', other)).statusCode).toBe(200)
    const res = await post(owner, '/money/spend', { amount: 10 }, other)
    expect(res.statusCode).toBe(403)
    expect(res.json().type).toBe('/problems/not-owner')
    const rename = await app.inject({ method: 'PATCH', url: url(owner, '/name'), headers: other.auth, payload: { name: 'Pwned' } })
    expect(rename.statusCode).toBe(403)
    expect((await get(owner)).json()).toMatchObject({ name: 'Hero', money: { amount: 100 } })
  })
})

describe('name', () => {
  test('GET and PATCH the name; surrounding spaces are trimmed', async () => {
    const p = await newPlayer(app)
    const patch = await app.inject({ method: 'PATCH', url: url(p, '/name'), headers: p.auth, payload: { name: '  Arya  ' } })
    expect(patch.statusCode).toBe(204)
    expect((await get(p, '/name')).json()).toMatchObject({ name: 'Arya' })
  })
})

describe('money', () => {
  test('earn and spend move the wallet; the view links earn and spend', async () => {
    const p = await newPlayer(app)
    expect((await post(p, '/money/earn', { amount: 25 })).statusCode).toBe(204)
    expect((await post(p, '/money/spend', { amount: 40 })).statusCode).toBe(204)
    const money = (await get(p, '/money')).json()
    expect(money.amount).toBe(85)
    expect(Object.keys(money._links).sort()).toEqual(['avatar', 'earn', 'self', 'spend'])
  })

  test('spending more than held is refused and changes nothing', async () => {
    const p = await newPlayer(app)
    const res = await post(p, '/money/spend', { amount: 101 })
    expect(res.statusCode).toBe(400)
    expect(res.json().type).toBe('/problems/insufficient-funds')
    expect((await get(p, '/money')).json().amount).toBe(100)
  })

  test('amounts must be whole numbers from 1 to 1,000,000', async () => {
    const p = await newPlayer(app)
    for (const amount of [0, -5, 1.5, 1_000_001, '5']) {
      expect((await post(p, '/money/earn', { amount })).statusCode, String(amount)).toBe(400)
    }
    expect((await get(p, '/money')).json().amount).toBe(100)
  })

  test('concurrent spends never overdraw the wallet', async () => {
    const p = await newPlayer(app)
    // 100 money, 40 parallel spends of 7: exactly 14 fit (98), 2 remain.
    const results = await Promise.all(Array.from({ length: 40 }, () => post(p, '/money/spend', { amount: 7 })))
    const codes = results.map((r) => r.statusCode)
    expect(codes.filter((c) => c === 204)).toHaveLength(14)
    expect(codes.filter((c) => c === 400)).toHaveLength(26)
    expect((await get(p, '/money')).json().amount).toBe(2)
  })

  test('concurrent earns are all counted', async () => {
    const p = await newPlayer(app)
    await Promise.all(Array.from({ length: 30 }, () => post(p, '/money/earn', { amount: 3 })))
    expect((await get(p, '/money')).json().amount).toBe(190)
  })
})

describe('experience and levels', () => {
  test('one grant can raise two levels and carries the rest over, with the level-up rewards', async () => {
    const p = await newPlayer(app)
    // leaving level 1 needs 100, level 2 needs 150: 260 = 100 + 150 + 10
    expect((await post(p, '/experience/grant', { amount: 260 })).statusCode).toBe(204)
    expect((await get(p, '/level')).json()).toMatchObject({ levelNumber: 3, currentExperience: 10, experienceRequired: 200 })
    expect((await get(p, '/experience')).json().amount).toBe(10)
    const a = (await get(p)).json()
    expect(a.health).toEqual({ current: 120, max: 120 })
    expect(a.mana).toEqual({ amount: 60, max: 60 })
    expect(a.money.amount).toBe(140)
    expect((await get(p, '/stats')).json().unspentPoints).toBe(7)
  })

  test('reaching level 5 teaches Fireball', async () => {
    const p = await newPlayer(app)
    // to level 5: 100 + 150 + 200 + 250 = 700
    await post(p, '/experience/grant', { amount: 700 })
    const a = (await get(p)).json()
    expect(a.level.levelNumber).toBe(5)
    expect(a.spells).toEqual([{ name: 'Fireball', description: expect.any(String), manaCost: 5, power: 10, requiredLevel: 5 }])
  })
})

describe('health and mana', () => {
  test('damage reports death; death costs the level experience and a tenth of the money, then refills', async () => {
    const p = await newPlayer(app)
    await post(p, '/experience/grant', { amount: 60 })
    await post(p, '/money/earn', { amount: 55 })
    await post(p, '/mana/spend', { amount: 20 })
    const hit = await post(p, '/health/damage', { amount: 30 })
    expect(hit.json()).toEqual({ died: false, health: 70 })
    expect((await get(p, '/health')).json()).toMatchObject({ current: 70, max: 100 })
    const fatal = await post(p, '/health/damage', { amount: 70 })
    expect(fatal.statusCode).toBe(200)
    expect(fatal.json()).toEqual({ died: true, health: 100 })
    const a = (await get(p)).json()
    // 155 money - floor(155 / 10) = 140
    expect(a.money.amount).toBe(140)
    expect(a.level).toMatchObject({ levelNumber: 1, currentExperience: 0 })
    expect(a.health).toEqual({ current: 100, max: 100 })
    expect(a.mana).toEqual({ amount: 50, max: 50 })
  })

  test('heal and restore stop at the maximum; spending more mana than held is refused', async () => {
    const p = await newPlayer(app)
    await post(p, '/health/damage', { amount: 10 })
    await post(p, '/health/heal', { amount: 500 })
    expect((await get(p, '/health')).json()).toMatchObject({ current: 100, max: 100 })
    await post(p, '/mana/spend', { amount: 45 })
    const over = await post(p, '/mana/spend', { amount: 6 })
    expect(over.statusCode).toBe(400)
    expect(over.json().type).toBe('/problems/insufficient-mana')
    await post(p, '/mana/restore', { amount: 1000 })
    const mana = (await get(p, '/mana')).json()
    expect(mana).toMatchObject({ amount: 50, max: 50 })
    expect(Object.keys((await get(p, '/health')).json()._links)).toEqual(expect.arrayContaining(['heal', 'damage']))
  })
})

describe('stats', () => {
  test('each increase spends one of the five starting points; a sixth is refused', async () => {
    const p = await newPlayer(app)
    for (const stat of ['strength', 'strength', 'defense', 'intelligence', 'strength']) {
      expect((await post(p, `/stats/${stat}`)).statusCode).toBe(204)
    }
    const refused = await post(p, '/stats/defense')
    expect(refused.statusCode).toBe(400)
    expect(refused.json().type).toBe('/problems/no-stat-points')
    const stats = (await get(p, '/stats')).json()
    expect(stats).toMatchObject({ strength: 13, defense: 11, intelligence: 11, unspentPoints: 0, attack: 13, armor: 11 })
    expect(Object.keys(stats._links)).toEqual(expect.arrayContaining(['increaseStrength', 'increaseDefense', 'increaseIntelligence']))
  })
})

describe('inventory and equipment', () => {
  test('add, equip, swap weapons, unequip and remove, with effective attack and armor', async () => {
    const p = await newPlayer(app)
    for (const item of [sword, axe, mail]) expect((await post(p, '/inventory/items', item)).statusCode).toBe(204)
    expect((await post(p, '/inventory/items/equip', { type: 'WEAPON', name: 'Iron Sword' })).statusCode).toBe(204)
    expect((await post(p, '/inventory/items/equip', mail)).statusCode).toBe(204)
    expect((await get(p, '/stats')).json()).toMatchObject({ attack: 15, armor: 14 })

    // A second weapon takes the slot and sends the first back to the inventory.
    await post(p, '/inventory/items/equip', { type: 'WEAPON', name: 'War Axe' })
    const equipped = (await get(p, '/equipped-items')).json()
    expect(equipped.items.map((i: { name: string }) => i.name).sort()).toEqual(['Chain Mail', 'War Axe'])
    const inventory = (await get(p, '/inventory')).json()
    expect(inventory.items).toEqual([{ ...sword }])
    expect(Object.keys(inventory._links)).toEqual(expect.arrayContaining(['addItem', 'removeItem', 'equippedItems']))

    expect((await post(p, '/inventory/items/unequip', { type: 'ARMOR', name: 'Chain Mail' })).statusCode).toBe(204)
    expect((await get(p, '/stats')).json()).toMatchObject({ attack: 19, armor: 10 })
    const remove = await app.inject({ method: 'DELETE', url: url(p, '/inventory/items'), headers: p.auth, payload: { type: 'WEAPON', name: 'Iron Sword' } })
    expect(remove.statusCode).toBe(204)
    expect((await get(p, '/inventory')).json().items.map((i: { name: string }) => i.name)).toEqual(['Chain Mail'])
  })

  test('refusals: a consumable cannot be equipped, a missing item cannot be removed or unequipped', async () => {
    const p = await newPlayer(app)
    await post(p, '/inventory/items', potion)
    const equipPotion = await post(p, '/inventory/items/equip', { type: 'CONSUMABLE', name: 'Red Potion' })
    expect(equipPotion.statusCode).toBe(400)
    expect(equipPotion.json().type).toBe('/problems/item-not-equippable')
    const remove = await app.inject({ method: 'DELETE', url: url(p, '/inventory/items'), headers: p.auth, payload: { type: 'WEAPON', name: 'Ghost' } })
    expect(remove.statusCode).toBe(400)
    expect(remove.json().type).toBe('/problems/item-not-in-inventory')
    const unequip = await post(p, '/inventory/items/unequip', { type: 'ARMOR', name: 'Ghost' })
    expect(unequip.json().type).toBe('/problems/item-not-equipped')
    expect((await get(p, '/inventory')).json().items).toHaveLength(1)
  })

  test('using a potion restores health by its power and uses it up; a mana potion restores mana', async () => {
    const p = await newPlayer(app)
    await post(p, '/health/damage', { amount: 50 })
    await post(p, '/mana/spend', { amount: 40 })
    await post(p, '/inventory/items', potion)
    await post(p, '/inventory/items', { type: 'CONSUMABLE', name: 'Blue Potion', description: '', power: 25, effect: 'MANA' })
    const used = await post(p, '/inventory/items/use', { name: 'Red Potion' })
    expect(used.statusCode).toBe(200)
    expect(used.json().health).toEqual({ current: 80, max: 100 })
    await post(p, '/inventory/items/use', { name: 'Blue Potion' })
    expect((await get(p, '/mana')).json()).toMatchObject({ amount: 35 })
    expect((await get(p, '/inventory')).json().items).toEqual([])
    expect((await post(p, '/inventory/items/use', { name: 'Red Potion' })).statusCode).toBe(400)
  })
})

describe('economy modes', () => {
  test('an authoritative economy refuses the value-minting endpoints to players but not spending', async ({ onTestFinished }) => {
    const strict = await buildTestApp({ env: { ECONOMY_MODE: 'authoritative' } })
    onTestFinished(() => strict.close())
    const p = await newPlayer(strict)
    for (const [rest, payload] of [['/money/earn', { amount: 5 }], ['/experience/grant', { amount: 5 }], ['/health/heal', { amount: 5 }], ['/mana/restore', { amount: 5 }], ['/inventory/items', sword]] as const) {
      const res = await strict.inject({ method: 'POST', url: url(p, rest), headers: p.auth, payload })
      expect(res.statusCode, rest).toBe(403)
      expect(res.json().type).toBe('/problems/economy-authoritative')
    }
    expect((await strict.inject({ method: 'POST', url: url(p, '/money/spend'), headers: p.auth, payload: { amount: 5 } })).statusCode).toBe(204)
  })
})
