/**
 * What other services call on the avatar API: the Idempotency-Key header, taking an item by
 * name, and the service-only routes under /internal/v1 (owner, profile, provisioning).
 */
import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { buildTestApp, type TestApp } from './support/app.js'
import { booksOf, giveItem } from './support/marketplaces.js'
import { newPlayer, type Player } from './support/players.js'

let app: TestApp
let service: { authorization: string }
beforeAll(async () => {
  app = await buildTestApp()
  service = { authorization: `Bearer ${await app.issueToken('00000000-0000-0000-0000-000000000000', 'service')}` }
})
afterAll(() => app.close())

const url = (id: string, rest = '') => `/api/v1/avatars/${id}${rest}`
const keyed = (p: Player | { auth: { authorization: string } }, avatarId: string, rest: string, payload: object, key: string) =>
  app.inject({ method: 'POST', url: url(avatarId, rest), headers: { ...p.auth, 'idempotency-key': key }, payload })

describe('Idempotency-Key', () => {
  test('a spend, earn, damage or item add retried with the same key is applied once', async () => {
    const p = await newPlayer(app)
    for (let i = 0; i < 3; i++) {
      expect((await keyed(p, p.avatarId, '/money/spend', { amount: 30 }, 'spend-1')).statusCode).toBe(204)
      expect((await keyed(p, p.avatarId, '/money/earn', { amount: 5 }, 'earn-1')).statusCode).toBe(204)
      expect((await keyed(p, p.avatarId, '/inventory/items', { type: 'WEAPON', name: 'Twig', power: 1 }, 'add-1')).statusCode).toBe(204)
      const hit = await keyed(p, p.avatarId, '/health/damage', { amount: 15 }, 'hit-1')
      expect(hit.json()).toEqual({ died: false, health: 85 })
    }
    expect(await booksOf(app, p)).toEqual({ money: 75, items: ['Twig'] })
    // Without a key every call counts.
    await app.inject({ method: 'POST', url: url(p.avatarId, '/money/spend'), headers: p.auth, payload: { amount: 5 } })
    await app.inject({ method: 'POST', url: url(p.avatarId, '/money/spend'), headers: p.auth, payload: { amount: 5 } })
    expect((await booksOf(app, p)).money).toBe(65)
  })

  test('a key is the caller’s own: two players may use the same one; reusing one for another call is 409', async () => {
    const a = await newPlayer(app)
    const b = await newPlayer(app)
    expect((await keyed(a, a.avatarId, '/money/spend', { amount: 10 }, 'shared')).statusCode).toBe(204)
    expect((await keyed(b, b.avatarId, '/money/spend', { amount: 20 }, 'shared')).statusCode).toBe(204)
    expect((await booksOf(app, a)).money).toBe(90)
    expect((await booksOf(app, b)).money).toBe(80)
    const reused = await keyed(a, a.avatarId, '/money/earn', { amount: 10 }, 'shared')
    expect(reused.statusCode).toBe(409)
    expect(reused.json().type).toBe('/problems/idempotency-key-reused')
    expect((await booksOf(app, a)).money).toBe(90)
  })

  test('a refused keyed call changes nothing and may be sent again once it can succeed', async () => {
    const p = await newPlayer(app)
    const refused = await keyed(p, p.avatarId, '/money/spend', { amount: 150 }, 'big')
    expect(refused.statusCode).toBe(400)
    expect(refused.json().type).toBe('/problems/insufficient-funds')
    await keyed(p, p.avatarId, '/money/earn', { amount: 50 }, 'top-up')
    expect((await keyed(p, p.avatarId, '/money/spend', { amount: 150 }, 'big')).statusCode).toBe(204)
    expect((await booksOf(app, p)).money).toBe(0)
  })

  test('a malformed key is 400', async () => {
    const p = await newPlayer(app)
    const res = await keyed(p, p.avatarId, '/money/earn', { amount: 1 }, 'has space')
    expect(res.statusCode).toBe(400)
    expect(res.json().errors[0].path).toBe('headers/idempotency-key')
  })
})

describe('taking an item by name', () => {
  test('answers the item taken; a retry with the same key takes nothing more', async () => {
    const p = await newPlayer(app)
    await giveItem(app, p, { type: 'CONSUMABLE', name: 'Blue Potion', description: 'Fizzy.', power: 25, effect: 'MANA' })
    await giveItem(app, p, { type: 'CONSUMABLE', name: 'Blue Potion', description: 'Fizzy.', power: 25, effect: 'MANA' })
    for (let i = 0; i < 2; i++) {
      const res = await keyed(p, p.avatarId, '/inventory/items/take', { name: 'Blue Potion' }, 'take-1')
      expect(res.statusCode).toBe(200)
      expect(res.json()).toEqual({ type: 'CONSUMABLE', name: 'Blue Potion', description: 'Fizzy.', power: 25, effect: 'MANA' })
    }
    expect((await booksOf(app, p)).items).toEqual(['Blue Potion'])
  })

  test('an item that is only equipped is refused (item-equipped); a missing one too (item-not-in-inventory)', async () => {
    const p = await newPlayer(app)
    await giveItem(app, p, { type: 'WEAPON', name: 'Oak Club', power: 3 })
    await app.inject({ method: 'POST', url: url(p.avatarId, '/inventory/items/equip'), headers: p.auth, payload: { type: 'WEAPON', name: 'Oak Club' } })
    const equipped = await app.inject({ method: 'POST', url: url(p.avatarId, '/inventory/items/take'), headers: p.auth, payload: { name: 'Oak Club' } })
    expect(equipped.statusCode).toBe(400)
    expect(equipped.json().type).toBe('/problems/item-equipped')
    const missing = await app.inject({ method: 'POST', url: url(p.avatarId, '/inventory/items/take'), headers: p.auth, payload: { name: 'Ghost' } })
    expect(missing.statusCode).toBe(400)
    expect(missing.json().type).toBe('/problems/item-not-in-inventory')
    const other = await newPlayer(app)
    expect((await app.inject({ method: 'POST', url: url(p.avatarId, '/inventory/items/take'), headers: other.auth, payload: { name: 'Oak Club' } })).statusCode).toBe(403)
  })
})

describe('service-only routes (under /internal/v1, answered by the avatar\'s own process)', () => {
  const internal = (o: Parameters<TestApp['injectAt']>[1]) => app.injectAt('avatar', o)
  const internalUrl = (id: string, rest = '') => `/internal/v1/avatars/${id}${rest}`

  test('the caller is judged before the request: no token 401, a player 403 service-only, whatever the body; a service gets 400 for it', async () => {
    const p = await newPlayer(app)
    const bad = { method: 'PUT' as const, url: internalUrl(`prov-${randomUUID()}`), payload: { ownerId: 'not a uuid', extra: true } }
    const none = await internal(bad)
    expect(none.statusCode, none.body).toBe(401)
    expect(none.json().type).toBe('/problems/unauthorized')
    const asPlayer = await internal({ ...bad, headers: p.auth })
    expect(asPlayer.statusCode, asPlayer.body).toBe(403)
    expect(asPlayer.json().type).toBe('/problems/service-only')
    const notJson = await internal({ ...bad, headers: { ...p.auth, 'content-type': 'application/json' }, payload: '{"ownerId":' })
    expect(notJson.json().type).toBe('/problems/service-only')
    const asService = await internal({ ...bad, headers: service })
    expect(asService.statusCode, asService.body).toBe(400)
    expect(asService.json().type).toBe('/problems/validation')
  })

  test('GET …/owner answers the owning user to a service token; players get 403', async () => {
    const p = await newPlayer(app)
    const res = await internal({ url: internalUrl(p.avatarId, '/owner'), headers: service })
    expect(res.statusCode).toBe(200)
    expect(res.json()).toEqual({ userId: p.userId })
    const asPlayer = await internal({ url: internalUrl(p.avatarId, '/owner'), headers: p.auth })
    expect(asPlayer.statusCode).toBe(403)
    expect(asPlayer.json().type).toBe('/problems/service-only')
    expect((await internal({ url: internalUrl('nobody-here', '/owner'), headers: service })).statusCode).toBe(404)
  })

  test('GET …/profile answers owner, name, level, effective attack and defense, health and deaths in one read to a service token, and which keyed calls it took; players get 403', async () => {
    const p = await newPlayer(app)
    await giveItem(app, p, { type: 'ARMOR', name: 'Tin Vest', power: 7 })
    expect((await app.inject({ method: 'POST', url: url(p.avatarId, '/inventory/items/equip'), headers: p.auth, payload: { type: 'ARMOR', name: 'Tin Vest' } })).statusCode).toBe(204)
    expect((await keyed(p, p.avatarId, '/health/damage', { amount: 15 }, 'profile-hit')).statusCode).toBe(200)
    const avatar = (await app.inject({ url: url(p.avatarId), headers: p.auth })).json()
    const stats = (await app.inject({ url: url(p.avatarId, '/stats'), headers: p.auth })).json()
    const res = await internal({ url: internalUrl(p.avatarId, '/profile'), headers: service })
    expect(res.statusCode).toBe(200)
    expect(res.json()).toEqual({
      ownerId: p.userId, name: avatar.name, level: avatar.level.levelNumber, attack: stats.attack, defense: stats.armor,
      health: avatar.health.current, maxHealth: avatar.health.max, deaths: 0, taken: [],
    })
    // Asked about keyed calls, it says which it has taken: the player's damage keyed 'profile-hit' (a player's keys are
    // kept in a space of the player's own), not a key never used.
    const hit = `player/${p.userId}/profile-hit`
    const withKeys = await internal({ url: internalUrl(p.avatarId, `/profile?keys=${encodeURIComponent(hit)}&keys=never-used`), headers: service })
    expect(withKeys.json()).toMatchObject({ health: avatar.health.current, taken: [hit] })
    const oneKey = await internal({ url: internalUrl(p.avatarId, `/profile?keys=${encodeURIComponent(hit)}`), headers: service })
    expect(oneKey.json()).toMatchObject({ taken: [hit] })
    expect(stats.armor).toBeGreaterThanOrEqual(7)
    expect(avatar.health.current).toBe(avatar.health.max - 15)
    const asPlayer = await internal({ url: internalUrl(p.avatarId, '/profile'), headers: p.auth })
    expect(asPlayer.statusCode).toBe(403)
    expect(asPlayer.json().type).toBe('/problems/service-only')
    expect((await internal({ url: internalUrl('nobody-here', '/profile'), headers: service })).statusCode).toBe(404)
  })

  test('GET /internal/v1/avatar-profiles answers several profiles in one read, the unknown left out; over 100 ids is 400; players get 403', async () => {
    const [a, b] = [await newPlayer(app, 'First Reader'), await newPlayer(app, 'Second Reader')]
    const profiles = (ids: string[], headers = service) =>
      internal({ url: `/internal/v1/avatar-profiles?${new URLSearchParams(ids.map((id): [string, string] => ['ids', id])).toString()}`, headers })
    const res = await profiles([b.avatarId, 'nobody-here', a.avatarId, b.avatarId])
    expect(res.statusCode, res.body).toBe(200)
    const one = (await internal({ url: internalUrl(a.avatarId, '/profile'), headers: service })).json()
    expect(res.json().items).toEqual([
      expect.objectContaining({ avatarId: b.avatarId, ownerId: b.userId, name: 'Second Reader', taken: [] }),
      { avatarId: a.avatarId, ...one },
    ])
    expect((await profiles([a.avatarId])).json().items).toHaveLength(1)
    const tooMany = await profiles(Array.from({ length: 101 }, (_, i) => `avatar-${i}`))
    expect(tooMany.statusCode).toBe(400)
    expect(JSON.stringify(tooMany.json().errors)).toContain('ids')
    expect((await profiles(['not an id!'])).statusCode).toBe(400)
    expect((await internal({ url: '/internal/v1/avatar-profiles', headers: service })).statusCode).toBe(400)
    const asPlayer = await profiles([a.avatarId], a.auth)
    expect(asPlayer.statusCode).toBe(403)
    expect(asPlayer.json().type).toBe('/problems/service-only')
  })

  test('PUT provisions an avatar for a user, idempotently; another owner is 409; players get 403', async () => {
    const p = await newPlayer(app)
    const id = `prov-${randomUUID()}`
    const put = (headers: Record<string, string>, ownerId: string) => internal({ method: 'PUT', url: internalUrl(id), headers, payload: { ownerId, name: ' Squire ' } })
    expect((await put(p.auth, p.userId)).statusCode).toBe(403)
    expect((await put(service, p.userId)).statusCode).toBe(204)
    expect((await put(service, p.userId)).statusCode).toBe(204)
    expect((await put(service, randomUUID())).statusCode).toBe(409)
    const made = await app.inject({ url: url(id), headers: p.auth })
    expect(made.json()).toMatchObject({ id, name: 'Squire', money: { amount: 100 } })
    // The owner may change it like any avatar of theirs.
    expect((await app.inject({ method: 'POST', url: url(id, '/money/spend'), headers: p.auth, payload: { amount: 1 } })).statusCode).toBe(204)
  })
})
