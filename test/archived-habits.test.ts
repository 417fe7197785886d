/**
 * Archived habits through the API: `PATCH …/archived`, the field and the list's filter; an
 * archived habit keeps its history and refuses completions; no window of it is judged while it is
 * archived, and brought back, the window under way at archiving is judged as it would have been,
 * while the windows that started meanwhile (the one under way at bringing it back included) are not
 * due. The missed-window job is run by hand on the test's clock, which each test moves forward.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { ManualClock } from '../src/platform/clock.js'
import { buildTestApp, type TestApp } from './support/app.js'
import { clockedPlayers } from './support/clocked-players.js'
import { attend, avatarOf, newHabit } from './support/habits.js'
import type { Player } from './support/players.js'

// Monday 2 March 2026, 08:00 UTC.
const clock = new ManualClock(new Date('2026-03-02T08:00:00Z'))
let app: TestApp
beforeAll(async () => {
  app = await buildTestApp({ clock, env: { ACCESS_TOKEN_TTL_SECONDS: '86400' } })
})
afterAll(() => app.close())

const habitUrl = (id: string, rest = '') => `/api/v1/habits/${id}${rest}`
const setArchived = (p: Player, id: string, archived: unknown) =>
  app.inject({ method: 'PATCH', url: habitUrl(id, '/archived'), headers: p.auth, payload: { archived } })

async function archiveAs(p: Player, id: string, archived: boolean) {
  const res = await setArchived(p, id, archived)
  expect(res.statusCode, res.body).toBe(200)
  return res.json()
}

async function listed(p: Player, query = ''): Promise<{ id: string; archived: boolean }[]> {
  const res = await app.inject({ url: `/api/v1/habits?avatarId=${p.avatarId}${query}`, headers: p.auth })
  expect(res.statusCode, res.body).toBe(200)
  return res.json().items
}

async function statuses(p: Player, id: string, from: string, to: string): Promise<Record<string, string>> {
  const res = await app.inject({ url: habitUrl(id, `/windows?from=${from}&to=${to}`), headers: p.auth })
  expect(res.statusCode, res.body).toBe(200)
  return Object.fromEntries(res.json().items.map((w: { start: string; status: string }) => [w.start, w.status]))
}

const { moveTo, player, judgeAt } = clockedPlayers(() => app, clock)

describe('the archived field', () => {
  test('PATCH …/archived answers the habit; it is listed with the others, and `archived` filters the list', async () => {
    const p = await player()
    const [kept, shelved] = [await newHabit(app, p, { title: 'Kept' }), await newHabit(app, p, { title: 'Shelved' })]
    expect((await app.inject({ url: habitUrl(kept), headers: p.auth })).json().archived).toBe(false)

    const answer = await archiveAs(p, shelved, true)
    expect(answer).toMatchObject({ id: shelved, title: 'Shelved', archived: true })
    expect(answer._links.archived).toEqual({ href: habitUrl(shelved, '/archived') })
    expect((await app.inject({ url: habitUrl(shelved, '/archived'), headers: p.auth })).json()).toEqual({ archived: true })
    // Asking again changes nothing.
    expect(await archiveAs(p, shelved, true)).toEqual(answer)

    expect((await listed(p)).map((h) => [h.id, h.archived])).toEqual([[kept, false], [shelved, true]])
    expect((await listed(p, '&archived=true')).map((h) => h.id)).toEqual([shelved])
    expect((await listed(p, '&archived=false')).map((h) => h.id)).toEqual([kept])
    // One per page, filtered: the cursor pages on within the filter.
    const first = await app.inject({ url: `/api/v1/habits?avatarId=${p.avatarId}&archived=false&limit=1`, headers: p.auth })
    expect(first.json()).toMatchObject({ items: [{ id: kept }], next: null })

    expect((await archiveAs(p, shelved, false)).archived).toBe(false)
    expect((await listed(p, '&archived=true'))).toEqual([])
  })

  test('refused: another player\'s habit 403, an unknown one 404, no token 401, a body without a boolean 400', async () => {
    const [p, other] = [await player(), await player()]
    const id = await newHabit(app, p)
    expect((await setArchived(other, id, true)).statusCode).toBe(403)
    expect((await setArchived(p, '00000000-0000-4000-8000-000000000000', true)).statusCode).toBe(404)
    expect((await app.inject({ method: 'PATCH', url: habitUrl(id, '/archived'), payload: { archived: true } })).statusCode).toBe(401)
    for (const bad of ['yes', 1, null]) {
      const res = await setArchived(p, id, bad)
      expect(res.statusCode, JSON.stringify(bad)).toBe(400)
      expect(res.json().errors).toEqual([expect.objectContaining({ path: 'body/archived' })])
    }
    const listBad = await app.inject({ url: `/api/v1/habits?avatarId=${p.avatarId}&archived=maybe`, headers: p.auth })
    expect(listBad.statusCode).toBe(400)
    expect((await app.inject({ url: habitUrl(id), headers: p.auth })).json().archived).toBe(false)
  })
})

describe('an archived habit', () => {
  test('keeps its history and stats readable, and refuses completions until it is brought back', async () => {
    await moveTo('2026-03-02T08:00:00Z')
    const p = await player()
    const id = await newHabit(app, p)
    expect((await attend(app, p, id, '2026-03-02T07:30:00')).statusCode).toBe(204)
    await archiveAs(p, id, true)

    const refused = await attend(app, p, id, '2026-03-02T07:45:00')
    expect(refused.statusCode).toBe(400)
    expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/)
    expect(refused.json()).toMatchObject({ type: '/problems/habit-archived', status: 400 })
    expect((await app.inject({ url: habitUrl(id, '/history'), headers: p.auth })).json().history).toEqual([{ date: '2026-03-02T07:30:00' }])
    const stats = await app.inject({ url: habitUrl(id, '/stats'), headers: p.auth })
    expect(stats.statusCode, stats.body).toBe(200)
    expect(stats.json().totalCompletions).toBe(1)

    await archiveAs(p, id, false)
    await moveTo('2026-03-03T08:00:00Z')
    expect((await attend(app, p, id, '2026-03-03T07:30:00')).statusCode).toBe(204)
  })

  test('is not judged; brought back, the window under way at archiving is, the windows started meanwhile are not due, and the streak carries over them', async () => {
    await moveTo('2026-03-09T08:00:00Z')
    const p = await player()
    // Both done on Monday 9 and Tuesday 10 March; on Wednesday 11, `kept` is done and `owed` is not when both are archived.
    const [kept, owed] = [await newHabit(app, p, { title: 'Kept' }), await newHabit(app, p, { title: 'Owed' })]
    for (const [day, ids] of [['2026-03-09', [kept, owed]], ['2026-03-10', [kept, owed]], ['2026-03-11', [kept]]] as const) {
      await moveTo(`${day}T08:00:00Z`)
      for (const id of ids) expect((await attend(app, p, id, `${day}T07:00:00`)).statusCode).toBe(204)
    }
    await archiveAs(p, kept, true)
    await archiveAs(p, owed, true)

    // Sunday 15: nothing judged; Wednesday waits for the habit to come back, the days after it are not due.
    await judgeAt('2026-03-15T08:00:00Z')
    expect((await avatarOf(app, p)).health.current).toBe(100)
    expect(await statuses(p, owed, '2026-03-11', '2026-03-15')).toEqual({
      '2026-03-11': 'PENDING', '2026-03-12': 'NOT_DUE', '2026-03-13': 'NOT_DUE', '2026-03-14': 'NOT_DUE',
    })

    // Brought back on Sunday 15: Wednesday 11 is judged (missed: 5 damage), Sunday itself never penalises.
    await archiveAs(p, kept, false)
    await archiveAs(p, owed, false)
    await judgeAt('2026-03-15T08:01:00Z')
    await judgeAt('2026-03-16T08:00:00Z')
    expect((await avatarOf(app, p)).health.current).toBe(95)
    expect(await statuses(p, owed, '2026-03-11', '2026-03-17')).toEqual({
      '2026-03-11': 'MISSED', '2026-03-12': 'NOT_DUE', '2026-03-13': 'NOT_DUE', '2026-03-14': 'NOT_DUE', '2026-03-15': 'NOT_DUE', '2026-03-16': 'OPEN',
    })

    // The run of 9 to 11 March carries over the archived days: Monday 16 makes it 4 (experience 10 + 3).
    const before = (await avatarOf(app, p)).level.currentExperience
    expect((await attend(app, p, kept, '2026-03-16T07:00:00')).statusCode).toBe(204)
    await app.settle()
    expect((await avatarOf(app, p)).level.currentExperience - before).toBe(13)
    expect((await app.inject({ url: habitUrl(kept), headers: p.auth })).json()).toMatchObject({ streak: 4, bestStreak: 4 })
    expect((await app.inject({ url: habitUrl(owed), headers: p.auth })).json().streak).toBe(0)
  })

  test('archived and brought back within one window excuses nothing', async () => {
    await moveTo('2026-03-23T08:00:00Z')
    const p = await player()
    const id = await newHabit(app, p)
    await moveTo('2026-03-24T08:00:00Z')
    await archiveAs(p, id, true)
    await moveTo('2026-03-24T20:00:00Z')
    await archiveAs(p, id, false)
    await judgeAt('2026-03-25T08:00:00Z')
    expect((await avatarOf(app, p)).health.current).toBe(95)
    expect(await statuses(p, id, '2026-03-24', '2026-03-25')).toEqual({ '2026-03-24': 'MISSED' })
  })

  test('is in an avatar\'s report only for a period something of it was due in', async () => {
    await moveTo('2026-04-06T08:00:00Z') // a Monday
    const p = await player()
    const [kept, shelved] = [await newHabit(app, p, { title: 'Kept' }), await newHabit(app, p, { title: 'Shelved' })]
    expect((await attend(app, p, shelved, '2026-04-06T07:00:00')).statusCode).toBe(204)
    await archiveAs(p, shelved, true)
    await judgeAt('2026-04-20T08:00:00Z')
    const reported = async (date: string) => {
      const res = await app.inject({ url: `/api/v1/avatars/${p.avatarId}/report?period=week&date=${date}`, headers: p.auth })
      expect(res.statusCode, res.body).toBe(200)
      return res.json().habits.map((h: { habitId: string; due: number }) => [h.habitId, h.due])
    }
    // The week it was archived in held its first window, done; the week after, nothing of it was due.
    expect(await reported('2026-04-06')).toEqual([[kept, 6], [shelved, 1]])
    expect(await reported('2026-04-13')).toEqual([[kept, 7]])
  })

  test('archiving judges the windows that ended before it, as the job would', async () => {
    await moveTo('2026-03-30T08:00:00Z')
    const p = await player()
    const id = await newHabit(app, p)
    // Tuesday 31 ended undone; the job has not come by when the habit is archived on Wednesday.
    await moveTo('2026-04-01T00:00:30Z')
    await archiveAs(p, id, true)
    await app.settle()
    expect((await avatarOf(app, p)).health.current).toBe(95)
    expect(await statuses(p, id, '2026-03-31', '2026-04-01')).toEqual({ '2026-03-31': 'MISSED' })
  })
})
