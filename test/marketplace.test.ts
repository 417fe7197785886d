import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { buildTestApp, type TestApp } from './support/app.js'
import { booksOf, buy, giveItem, marketplaceOf, sagaStates, sell } from './support/marketplaces.js'
import { newPlayer, type Player } from './support/players.js'

let app: TestApp
beforeAll(async () => {
  app = await buildTestApp()
})
afterAll(() => app.close())

const mUrl = (id: string, rest = '') => `/api/v1/marketplaces/${id}${rest}`
const get = (p: Player, url: string) => app.inject({ url, headers: p.auth })
const post = (p: Player, rest: string, payload: object) =>
  app.inject({ method: 'POST', url: `/api/v1/avatars/${p.avatarId}${rest}`, headers: p.auth, payload })

describe('one marketplace per avatar', () => {
  test('every avatar gets one when it is made; POST answers that same one (200, same body)', async () => {
    const p = await newPlayer(app)
    await app.settle()
    const found = await get(p, `/api/v1/marketplaces?avatarId=${p.avatarId}`)
    expect(found.statusCode, found.body).toBe(200)
    const m = found.json()
    expect(m).toMatchObject({ id: expect.any(String), avatarId: p.avatarId })
    expect(m.items.length).toBeGreaterThanOrEqual(15)
    expect(m._links).toMatchObject({
      self: { href: mUrl(m.id) },
      items: { href: mUrl(m.id, '/items') },
      soldItems: { href: mUrl(m.id, '/sold-items') },
      avatar: { href: `/api/v1/avatars/${p.avatarId}` },
    })
    for (let i = 0; i < 2; i++) {
      const again = await app.inject({ method: 'POST', url: '/api/v1/marketplaces', headers: p.auth, payload: { avatarId: p.avatarId } })
      expect(again.statusCode).toBe(200)
      expect(again.json()).toEqual(m)
    }
    expect((await get(p, mUrl(m.id))).json()).toEqual(m)
  })

  test('POST provisions one before the creation event arrives; the event then finds it made', async () => {
    const p = await newPlayer(app)
    await app.settle()
    const altId = `alt-${p.userId}`
    expect((await app.inject({ method: 'POST', url: '/api/v1/avatars', headers: p.auth, payload: { id: altId, name: 'Alt' } })).statusCode).toBe(200)
    const early = await marketplaceOf(app, p, altId)
    await app.settle()
    expect((await get(p, `/api/v1/marketplaces?avatarId=${altId}`)).json().id).toBe(early)
    expect(await marketplaceOf(app, p, p.avatarId)).not.toBe(early)
  })

  test('marketplaces are private: other players get 403; unknown ones 404; an unknown avatar 400', async () => {
    const owner = await newPlayer(app)
    const other = await newPlayer(app)
    const id = await marketplaceOf(app, owner)
    for (const url of [mUrl(id), mUrl(id, '/items'), mUrl(id, '/items/Rusty%20Shortsword'), mUrl(id, '/sold-items'), `/api/v1/marketplaces?avatarId=${owner.avatarId}`]) {
      const res = await get(other, url)
      expect(res.statusCode, url).toBe(403)
      expect(res.json().type).toBe('/problems/not-owner')
    }
    const provision = await app.inject({ method: 'POST', url: '/api/v1/marketplaces', headers: other.auth, payload: { avatarId: owner.avatarId } })
    expect(provision.statusCode).toBe(403)

    const missing = await get(owner, mUrl('00000000-0000-4000-8000-000000000000'))
    expect(missing.statusCode).toBe(404)
    expect(missing.json().type).toBe('/problems/not-found')
    expect((await get(owner, '/api/v1/marketplaces?avatarId=nobody-here')).statusCode).toBe(404)
    const ghost = await app.inject({ method: 'POST', url: '/api/v1/marketplaces', headers: owner.auth, payload: { avatarId: 'nobody-here' } })
    expect(ghost.statusCode).toBe(400)
    expect(ghost.json().type).toBe('/problems/unknown-avatar')
    expect((await get(owner, mUrl('not-a-uuid'))).statusCode).toBe(400)
  })

  test('an avatar deleted before its creation event is handled gets no marketplace (events arrive out of order)', async () => {
    const p = await newPlayer(app)
    await app.settle()
    const altId = `late-${p.userId}`
    // The marketplace cannot be made for this avatar for now: its creation event fails and comes again later.
    await app.database.db.execute(sql.raw(`create function marketplace.hold_${p.userId.slice(0, 8)}() returns trigger language plpgsql as $$
      begin if new.avatar_id = '${altId}' then raise exception 'held'; end if; return new; end $$`))
    await app.database.db.execute(sql.raw(`create trigger hold_late before insert on marketplace.marketplaces for each row execute function marketplace.hold_${p.userId.slice(0, 8)}()`))
    expect((await app.inject({ method: 'POST', url: '/api/v1/avatars', headers: p.auth, payload: { id: altId, name: 'Late' } })).statusCode).toBe(200)
    expect((await app.inject({ method: 'DELETE', url: `/api/v1/avatars/${altId}`, headers: p.auth })).statusCode).toBe(204)
    await app.settle().catch(() => undefined)
    await app.database.db.execute(sql.raw('drop trigger hold_late on marketplace.marketplaces'))
    await expect.poll(async () => {
      await app.settle().catch(() => undefined)
      const rows = await app.database.db.execute(sql`select count(*)::int as n from marketplace.inbox i join avatar.outbox o on o.id = i.event_id
        where o.type = 'AvatarCreated' and o.aggregate_id = ${altId}`)
      return (rows as unknown as { rows: { n: number }[] }).rows[0]!.n
    }, { timeout: 15_000, interval: 200 }).toBe(1)
    expect((await get(p, `/api/v1/marketplaces?avatarId=${altId}`)).statusCode).toBe(404)
  })

  test("deleting the avatar removes its marketplace and sold items", async () => {
    const p = await newPlayer(app)
    const id = await marketplaceOf(app, p)
    await giveItem(app, p, { type: 'WEAPON', name: 'Old Stick', power: 3 })
    expect((await sell(app, p, id, 'Old Stick')).statusCode).toBe(204)
    expect((await app.inject({ method: 'DELETE', url: `/api/v1/avatars/${p.avatarId}`, headers: p.auth })).statusCode).toBe(204)
    await app.settle()
    expect((await get(p, mUrl(id))).statusCode).toBe(404)
    expect((await get(p, `/api/v1/marketplaces?avatarId=${p.avatarId}`)).statusCode).toBe(404)
    const rows = await app.database.db.execute(sql`select count(*)::int as n from marketplace.sold_items where marketplace_id = ${id}`)
    expect((rows as unknown as { rows: { n: number }[] }).rows[0]!.n).toBe(0)
  })
})

describe('the catalog', () => {
  test('at least 15 items over weapons, armor and consumables, levels 1 to 20; consumables say what they do', async () => {
    const p = await newPlayer(app)
    const id = await marketplaceOf(app, p)
    const res = await get(p, mUrl(id, '/items'))
    expect(res.statusCode).toBe(200)
    const items = res.json() as { type: string; name: string; description: string; power: number; price: number; requiredLevel: number; effect?: string }[]
    expect(items.length).toBeGreaterThanOrEqual(15)
    expect(new Set(items.map((i) => i.type))).toEqual(new Set(['WEAPON', 'ARMOR', 'CONSUMABLE']))
    expect(new Set(items.map((i) => i.name)).size).toBe(items.length)
    const levels = items.map((i) => i.requiredLevel)
    expect(Math.min(...levels)).toBe(1)
    expect(Math.max(...levels)).toBe(20)
    for (const i of items) {
      expect(i.description.length, i.name).toBeGreaterThan(10)
      expect(i.price, i.name).toBeGreaterThanOrEqual(1)
      expect(i.power, i.name).toBeGreaterThanOrEqual(1)
      if (i.type === 'CONSUMABLE') expect(['HEALTH', 'MANA', 'FREEZE'], i.name).toContain(i.effect)
      else expect(i.effect, i.name).toBeUndefined()
    }
    expect(items.find((i) => i.name === 'Rusty Shortsword')).toMatchObject({ type: 'WEAPON', power: 4, price: 30, requiredLevel: 1 })
  })

  test('?type= filters by one type; ALL is the default; anything else is 400', async () => {
    const p = await newPlayer(app)
    const id = await marketplaceOf(app, p)
    const all = (await get(p, mUrl(id, '/items'))).json()
    expect((await get(p, mUrl(id, '/items?type=ALL'))).json()).toEqual(all)
    for (const type of ['WEAPON', 'ARMOR', 'CONSUMABLE']) {
      const some = (await get(p, mUrl(id, `/items?type=${type}`))).json() as { type: string }[]
      expect(some.length, type).toBeGreaterThan(0)
      expect(some.every((i) => i.type === type), type).toBe(true)
      expect(some).toEqual(all.filter((i: { type: string }) => i.type === type))
    }
    const bad = await get(p, mUrl(id, '/items?type=SPACESHIP'))
    expect(bad.statusCode).toBe(400)
    expect(bad.json().type).toBe('/problems/validation')
    expect((await get(p, mUrl(id, '/items?type=weapon'))).statusCode).toBe(400)
  })

  test('one item by name, with its price and a buy link; an unknown name is 404', async () => {
    const p = await newPlayer(app)
    const id = await marketplaceOf(app, p)
    const res = await get(p, mUrl(id, '/items/Cup%20of%20Strong%20Coffee'))
    expect(res.statusCode).toBe(200)
    expect(res.json()).toMatchObject({ type: 'CONSUMABLE', name: 'Cup of Strong Coffee', power: 10, price: 8, requiredLevel: 1, effect: 'MANA' })
    expect(res.json()._links.buy.href).toBe(mUrl(id, '/items/Cup%20of%20Strong%20Coffee/buy'))
    const missing = await get(p, mUrl(id, '/items/Excalibur'))
    expect(missing.statusCode).toBe(404)
    expect(missing.json().type).toBe('/problems/not-found')
  })
})

describe('buying', () => {
  test('takes the catalog price from the wallet and puts the item in the inventory', async () => {
    const p = await newPlayer(app)
    const id = await marketplaceOf(app, p)
    const res = await buy(app, p, id, 'Rusty Shortsword')
    expect(res.statusCode, res.body).toBe(204)
    const inventory = (await get(p, `/api/v1/avatars/${p.avatarId}/inventory`)).json()
    expect(inventory.items).toEqual([{ type: 'WEAPON', name: 'Rusty Shortsword', description: expect.any(String), power: 4 }])
    expect((await booksOf(app, p)).money).toBe(70)

    expect((await buy(app, p, id, 'Cup of Strong Coffee')).statusCode).toBe(204)
    expect(await booksOf(app, p)).toEqual({ money: 62, items: ['Cup of Strong Coffee', 'Rusty Shortsword'] })
    const coffee = (await get(p, `/api/v1/avatars/${p.avatarId}/inventory`)).json().items[1]
    expect(coffee).toMatchObject({ type: 'CONSUMABLE', power: 10, effect: 'MANA' })
    expect(await sagaStates(app, p.avatarId)).toEqual(['DONE', 'DONE'])
    await app.settle()
    const events = await app.database.db.execute(sql`select type, payload from marketplace.outbox where payload->>'avatarId' = ${p.avatarId} order by seq`)
    expect((events as unknown as { rows: { type: string; payload: { price: number } }[] }).rows.map((r) => [r.type, r.payload.price]))
      .toEqual([['ItemBought', 30], ['ItemBought', 8]])
  })

  test('without enough money it is refused (400) and nothing changes', async () => {
    const p = await newPlayer(app)
    const id = await marketplaceOf(app, p)
    expect((await post(p, '/money/spend', { amount: 75 })).statusCode).toBe(204)
    const before = await booksOf(app, p)
    const res = await buy(app, p, id, 'Rusty Shortsword')
    expect(res.statusCode).toBe(400)
    expect(res.json().type).toBe('/problems/insufficient-funds')
    expect(await booksOf(app, p)).toEqual(before)
    expect(await sagaStates(app, p.avatarId)).toEqual(['FAILED'])
  })

  test("an item above the avatar's real level, or above a stated currentLevel, is refused (400)", async () => {
    const p = await newPlayer(app)
    const id = await marketplaceOf(app, p)
    const tooHigh = await buy(app, p, id, 'Oakheart Quarterstaff')
    expect(tooHigh.statusCode).toBe(400)
    expect(tooHigh.json().type).toBe('/problems/level-too-low')
    // A stated level does not lift the real one.
    expect((await buy(app, p, id, 'Oakheart Quarterstaff', '?currentLevel=20')).statusCode).toBe(400)
    expect(await booksOf(app, p)).toEqual({ money: 100, items: [] })

    // 250 experience: level 1 → 3 (100 + 150), and 2 × 20 money.
    expect((await post(p, '/experience/grant', { amount: 250 })).statusCode).toBe(204)
    const stated = await buy(app, p, id, 'Oakheart Quarterstaff', '?currentLevel=2')
    expect(stated.statusCode).toBe(400)
    expect(stated.json().type).toBe('/problems/level-too-low')
    expect(await booksOf(app, p)).toEqual({ money: 140, items: [] })
    expect((await buy(app, p, id, 'Oakheart Quarterstaff', '?currentLevel=3')).statusCode).toBe(204)
    expect(await booksOf(app, p)).toEqual({ money: 80, items: ['Oakheart Quarterstaff'] })
    expect((await buy(app, p, id, 'Rusty Shortsword', '?currentLevel=abc')).statusCode).toBe(400)
    expect((await buy(app, p, id, 'Rusty Shortsword', '?currentLevel=0')).statusCode).toBe(400)
  })

  test("unknown items and marketplaces are 404; another player's marketplace is 403; nothing changes", async () => {
    const p = await newPlayer(app)
    const other = await newPlayer(app)
    const id = await marketplaceOf(app, p)
    expect((await buy(app, p, id, 'Excalibur')).statusCode).toBe(404)
    expect((await buy(app, p, '00000000-0000-4000-8000-000000000000', 'Rusty Shortsword')).statusCode).toBe(404)
    const foreign = await buy(app, other, id, 'Rusty Shortsword')
    expect(foreign.statusCode).toBe(403)
    expect(await booksOf(app, p)).toEqual({ money: 100, items: [] })
    expect(await booksOf(app, other)).toEqual({ money: 100, items: [] })
  })

  test('a full inventory refuses the item and the price is refunded', async () => {
    const p = await newPlayer(app)
    const id = await marketplaceOf(app, p)
    for (let i = 0; i < 100; i++) await giveItem(app, p, { type: 'CONSUMABLE', name: `Pebble ${i}`, power: 0 })
    const before = await booksOf(app, p)
    const res = await buy(app, p, id, 'Rusty Shortsword')
    expect(res.statusCode).toBe(400)
    expect(res.json().type).toBe('/problems/inventory-full')
    expect(await booksOf(app, p)).toEqual(before)
    expect(await sagaStates(app, p.avatarId)).toEqual(['COMPENSATED'])
  })
})

describe('selling', () => {
  test('takes the item from the inventory, pays half the catalog price and lists it as sold', async () => {
    const p = await newPlayer(app)
    const id = await marketplaceOf(app, p)
    expect((await buy(app, p, id, 'Rusty Shortsword')).statusCode).toBe(204)
    const res = await sell(app, p, id, 'Rusty Shortsword')
    expect(res.statusCode, res.body).toBe(204)
    // 100 - 30 + floor(30 / 2)
    expect(await booksOf(app, p)).toEqual({ money: 85, items: [] })
    const sold = await get(p, mUrl(id, '/sold-items'))
    expect(sold.statusCode).toBe(200)
    expect(sold.json()).toEqual([{ type: 'WEAPON', name: 'Rusty Shortsword', description: expect.any(String), power: 4, price: 15, soldAt: expect.any(String) }])
    const one = await get(p, mUrl(id, '/sold-items/Rusty%20Shortsword'))
    expect(one.statusCode).toBe(200)
    expect(one.json()).toMatchObject({ name: 'Rusty Shortsword', price: 15, _links: { self: { href: mUrl(id, '/sold-items/Rusty%20Shortsword') } } })
    expect((await get(p, mUrl(id, '/sold-items/Padded%20Pajamas'))).statusCode).toBe(404)
    expect(await sagaStates(app, p.avatarId)).toEqual(['DONE', 'DONE'])
  })

  test('sell prices: half rounded down and at least 1; an item the catalog does not sell fetches its power, at least 1', async () => {
    const p = await newPlayer(app)
    const id = await marketplaceOf(app, p)
    await giveItem(app, p, { type: 'ARMOR', name: 'Padded Pajamas', description: 'Comfy.', power: 2 })
    await giveItem(app, p, { type: 'CONSUMABLE', name: 'Questionable Mushroom', power: 1 })
    await giveItem(app, p, { type: 'WEAPON', name: 'Grandpa’s Cane', power: 7 })
    await giveItem(app, p, { type: 'ARMOR', name: 'Paper Hat', power: 0 })
    // A catalog name with another type is not the catalog's item: it fetches its power.
    await giveItem(app, p, { type: 'ARMOR', name: 'Rusty Shortsword', power: 3 })
    const expected: [string, number][] = [['Padded Pajamas', 7], ['Questionable Mushroom', 1], ['Grandpa’s Cane', 7], ['Paper Hat', 1], ['Rusty Shortsword', 3]]
    let money = 100
    for (const [name, price] of expected) {
      expect((await sell(app, p, id, name)).statusCode, name).toBe(204)
      money += price
      expect((await booksOf(app, p)).money, name).toBe(money)
    }
    const sold = (await get(p, mUrl(id, '/sold-items'))).json() as { name: string; price: number }[]
    expect(sold.map((s) => [s.name, s.price])).toEqual([...expected].reverse())
  })

  test('what is not in the inventory is refused: not owned 400, equipped 400, a name nobody sells 404', async () => {
    const p = await newPlayer(app)
    const id = await marketplaceOf(app, p)
    const notOwned = await sell(app, p, id, 'Rusty Shortsword')
    expect(notOwned.statusCode).toBe(400)
    expect(notOwned.json().type).toBe('/problems/item-not-in-inventory')
    expect((await sell(app, p, id, 'Excalibur')).statusCode).toBe(404)

    expect((await buy(app, p, id, 'Rusty Shortsword')).statusCode).toBe(204)
    expect((await post(p, '/inventory/items/equip', { type: 'WEAPON', name: 'Rusty Shortsword' })).statusCode).toBe(204)
    const equipped = await sell(app, p, id, 'Rusty Shortsword')
    expect(equipped.statusCode).toBe(400)
    expect(equipped.json().type).toBe('/problems/item-equipped')
    expect(await booksOf(app, p)).toEqual({ money: 70, items: [] })
    expect((await get(p, `/api/v1/avatars/${p.avatarId}/equipped-items`)).json().items.map((i: { name: string }) => i.name)).toEqual(['Rusty Shortsword'])
    expect((await get(p, mUrl(id, '/sold-items'))).json()).toEqual([])

    const other = await newPlayer(app)
    expect((await sell(app, other, id, 'Rusty Shortsword')).statusCode).toBe(403)
  })

  test('sold items come newest first in pages, with a Link to the next page', async () => {
    const p = await newPlayer(app)
    const id = await marketplaceOf(app, p)
    for (const name of ['Stick A', 'Stick B', 'Stick C']) {
      await giveItem(app, p, { type: 'WEAPON', name, power: 1 })
      expect((await sell(app, p, id, name)).statusCode).toBe(204)
    }
    const first = await get(p, mUrl(id, '/sold-items?limit=2'))
    expect(first.json().map((s: { name: string }) => s.name)).toEqual(['Stick C', 'Stick B'])
    const next = /^<([^>]+)>; rel="next"$/.exec(String(first.headers.link))?.[1]
    expect(next).toBeDefined()
    const second = await get(p, next!)
    expect(second.json().map((s: { name: string }) => s.name)).toEqual(['Stick A'])
    expect(second.headers.link).toBeUndefined()
    expect((await get(p, mUrl(id, '/sold-items?cursor=00000000-0000-4000-8000-000000000000'))).statusCode).toBe(400)
  })
})

describe('concurrency', () => {
  test('100 buys at once by an avatar that can afford 10: money never below 0, items × price = money spent', async () => {
    const p = await newPlayer(app)
    const id = await marketplaceOf(app, p)
    expect((await post(p, '/money/earn', { amount: 200 })).statusCode).toBe(204)
    const results = await Promise.all(Array.from({ length: 100 }, () => buy(app, p, id, 'Rusty Shortsword')))
    const statuses = results.map((r) => r.statusCode)
    expect(statuses.filter((s) => s === 204)).toHaveLength(10)
    expect(statuses.filter((s) => s === 400)).toHaveLength(90)
    for (const r of results.filter((x) => x.statusCode === 400)) expect(r.json().type).toBe('/problems/insufficient-funds')
    const books = await booksOf(app, p)
    expect(books.money).toBe(0)
    expect(books.items).toHaveLength(10)
    expect(books.items).toEqual(Array(10).fill('Rusty Shortsword'))
    const states = await sagaStates(app, p.avatarId)
    expect(states.filter((s) => s === 'DONE')).toHaveLength(10)
    expect(states.filter((s) => s === 'FAILED')).toHaveLength(90)
  })
})

test('/metrics counts saga runs by state', async () => {
  const p = await newPlayer(app)
  const id = await marketplaceOf(app, p)
  await buy(app, p, id, 'Rusty Shortsword')
  const text = await app.metricsOf('marketplace')
  expect(text).toMatch(/marketplace_sagas_open\{state="RUNNING"\} 0/)
  expect(text).toMatch(/marketplace_sagas_open\{state="COMPENSATING"\} 0/)
  expect(text).toMatch(/marketplace_sagas_settled_total\{kind="BUY",state="DONE"\} [1-9]/)
})
