/** The experience board (DESIGN §9.5): ranks by total experience, ties by who reached first, pages around an avatar. */
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { buildTestApp, type TestApp } from './support/app.js'
import { newPlayer, type Player } from './support/players.js'

let app: TestApp
beforeAll(async () => {
  app = await buildTestApp()
})
afterAll(() => app.close())

interface Entry { rank: number; avatarId: string; name: string; level: number; experience: number }
interface Page { items: Entry[]; total: number }

const grant = async (p: Player, amount: number) => {
  const res = await app.inject({ method: 'POST', url: `/api/v1/avatars/${p.avatarId}/experience/grant`, headers: p.auth, payload: { amount } })
  expect(res.statusCode, res.body).toBe(204)
}
const board = async (p: Player, query: string): Promise<Page> => {
  const res = await app.inject({ url: `/api/v1/leaderboards/experience${query}`, headers: p.auth })
  expect(res.statusCode, res.body).toBe(200)
  return res.json()
}
const around = (p: Player, limit?: number) => board(p, `?around=${p.avatarId}${limit === undefined ? '' : `&limit=${limit}`}`)
const rankOf = async (p: Player) => (await around(p, 1)).items[0]!

/** Ranks on a page run on from the first without gaps. */
const expectConsecutive = (page: Page) => page.items.forEach((e, i) => expect(e.rank).toBe(page.items[0]!.rank + i))

describe('ranks', () => {
  test('total experience orders the board; equal totals rank by who reached them first', async () => {
    const first = await newPlayer(app, 'Reached first')
    const second = await newPlayer(app, 'Reached second')
    const ahead = await newPlayer(app, 'More')
    await grant(first, 200)
    await grant(first, 100) // level 3 with 50 over: 100 + 150 + 50
    await grant(second, 300)
    await grant(ahead, 301)
    const [a, f, s] = [await rankOf(ahead), await rankOf(first), await rankOf(second)]
    expect(f).toMatchObject({ avatarId: first.avatarId, name: 'Reached first', level: 3, experience: 300 })
    expect(s.experience).toBe(300)
    expect(f.rank).toBe(a.rank + 1)
    expect(s.rank).toBe(f.rank + 1)
    const page = await around(first, 3)
    expect(page.items.map((e) => e.avatarId)).toEqual([ahead.avatarId, first.avatarId, second.avatarId])
    expectConsecutive(page)
  })

  test('an avatar passed by another drops one rank; reaching the same total again ranks after the one that got there first', async () => {
    const leader = await newPlayer(app)
    const chaser = await newPlayer(app)
    await grant(leader, 1000)
    await grant(chaser, 999)
    expect((await rankOf(chaser)).rank).toBe((await rankOf(leader)).rank + 1)
    await grant(chaser, 2) // 1001: passes
    expect((await rankOf(leader)).rank).toBe((await rankOf(chaser)).rank + 1)
    await grant(leader, 1) // 1001 too, reached later
    expect((await rankOf(leader)).rank).toBe((await rankOf(chaser)).rank + 1)
  })
})

describe('pages', () => {
  test('the top: the first ranks, from 1; around the leader the page starts at the top', async () => {
    const top = await newPlayer(app, 'Champion')
    for (let i = 0; i < 3; i++) await grant(top, 1_000_000)
    const page = await board(top, '?limit=3')
    expect(page.items[0]).toMatchObject({ rank: 1, avatarId: top.avatarId })
    expect(page.items).toHaveLength(Math.min(3, page.total))
    expectConsecutive(page)
    const atTop = await around(top, 5)
    expect(atTop.items[0]).toMatchObject({ rank: 1, avatarId: top.avatarId })
    expect(atTop.items).toHaveLength(Math.min(5, atTop.total))
    expectConsecutive(atTop)
  })

  test('around the last avatar the page ends at the bottom and still holds limit entries; in the middle it is centred', async () => {
    for (let i = 0; i < 6; i++) await grant(await newPlayer(app), 10 + i)
    const last = await newPlayer(app, 'Newest')
    const bottom = await around(last, 5)
    expect(bottom.items).toHaveLength(5)
    expect(bottom.items.at(-1)).toMatchObject({ rank: bottom.total, avatarId: last.avatarId, experience: 0 })
    expectConsecutive(bottom)
    const middle = await newPlayer(app)
    await grant(middle, 12)
    const centred = await around(middle, 5)
    expect(centred.items).toHaveLength(5)
    expect(centred.items[2]!.avatarId).toBe(middle.avatarId)
    expectConsecutive(centred)
    const byDefault = await around(middle)
    expect(byDefault.items).toHaveLength(Math.min(11, byDefault.total))
    expect(byDefault.total).toBeGreaterThanOrEqual(9)
  })
})

describe('refusals', () => {
  test('limit is 1–101; an unknown avatar is 404; a bad id is 400; no token is 401', async () => {
    const p = await newPlayer(app)
    for (const limit of ['0', '102', '1.5', 'x']) {
      const res = await app.inject({ url: `/api/v1/leaderboards/experience?limit=${limit}`, headers: p.auth })
      expect(res.statusCode, limit).toBe(400)
      expect(res.headers['content-type']).toContain('application/problem+json')
    }
    expect((await board(p, '?limit=101')).items.length).toBeLessThanOrEqual(101)
    const unknown = await app.inject({ url: '/api/v1/leaderboards/experience?around=nobody-here', headers: p.auth })
    expect(unknown.statusCode).toBe(404)
    expect(unknown.json().type).toContain('not-found')
    const bad = await app.inject({ url: '/api/v1/leaderboards/experience?around=not%20an%20id', headers: p.auth })
    expect(bad.statusCode).toBe(400)
    const anonymous = await app.inject({ url: '/api/v1/leaderboards/experience' })
    expect(anonymous.statusCode).toBe(401)
  })
})
