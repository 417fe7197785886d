/**
 * The experience board's ranks against a plain SQL order over the same avatars: totals counted from
 * level and experience as the rules do (not from the stored total), ties by the time each total was
 * reached, then by id. Reaching times are spread over several tally blocks by moving them in SQL
 * (the tally trigger moves the counts with them). Reaches under the API: all-in-one shapes only.
 */
import fc from 'fast-check'
import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { buildTestApp, type TestApp } from './support/app.js'
import { newPlayer, type Player } from './support/players.js'

let app: TestApp
beforeAll(async () => {
  app = await buildTestApp()
})
afterAll(() => app.close())

/** Every avatar's rank by the plain order, by id. */
async function ranksBySql(): Promise<Map<string, number>> {
  const result = await app.database.db.execute(sql`
    select id, row_number() over (order by 25::bigint * (level - 1) * (level + 2) + experience desc, experience_reached_at, id)::int as rank
    from avatar.avatars`)
  return new Map((result as unknown as { rows: { id: string; rank: number }[] }).rows.map((r) => [r.id, r.rank]))
}

test('every rank around an avatar equals ORDER BY total desc, reached_at, id', async () => {
  const players: Player[] = []
  await fc.assert(fc.asyncProperty(
    fc.array(fc.record({ grants: fc.array(fc.constantFrom(1, 50, 99, 100, 150, 1000, 2500), { maxLength: 3 }), hoursBack: fc.nat({ max: 30 }) }), { minLength: 1, maxLength: 4 }),
    fc.integer({ min: 1, max: 15 }),
    async (avatars, limit) => {
      for (const a of avatars) {
        const p = await newPlayer(app)
        players.push(p)
        for (const amount of a.grants) {
          const res = await app.inject({ method: 'POST', url: `/api/v1/avatars/${p.avatarId}/experience/grant`, headers: p.auth, payload: { amount } })
          expect(res.statusCode).toBe(204)
        }
        if (a.hoursBack > 0) {
          await app.database.db.execute(sql`update avatar.avatars set experience_reached_at = experience_reached_at - make_interval(hours => ${a.hoursBack}) where id = ${p.avatarId}`)
        }
      }
      const expected = await ranksBySql()
      for (const p of players.slice(-avatars.length)) {
        const res = await app.inject({ url: `/api/v1/leaderboards/experience?around=${p.avatarId}&limit=${limit}`, headers: p.auth })
        expect(res.statusCode).toBe(200)
        const page = res.json() as { items: { rank: number; avatarId: string }[]; total: number }
        expect(page.total).toBe(expected.size)
        expect(page.items).toHaveLength(Math.min(limit, expected.size))
        for (const e of page.items) expect(e.rank, e.avatarId).toBe(expected.get(e.avatarId))
        expect(page.items.some((e) => e.avatarId === p.avatarId)).toBe(true)
      }
      const top = (await app.inject({ url: '/api/v1/leaderboards/experience?limit=101', headers: players[0]!.auth })).json() as { items: { rank: number; avatarId: string }[] }
      for (const e of top.items) expect(e.rank).toBe(expected.get(e.avatarId))
    },
  ), { numRuns: 30 })
})
