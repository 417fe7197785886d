/**
 * The player's numbers (DESIGN §9.4) through the API: a daily habit lived day by day for three
 * weeks on the test's clock (completions, a rest day each Sunday, a two-day vacation, a window a
 * streak freeze covered, one missed), then its stats and the avatar's week and month reports,
 * with the experience and money earned from completions, a level's reward and an earn call.
 */
import { beforeAll, afterAll, describe, expect, test } from 'vitest'
import { MISSED_WINDOWS_JOB } from '../src/contexts/tracking/index.js'
import { ManualClock } from '../src/platform/clock.js'
import { addDays } from '../src/platform/time/index.js'
import { buildTestApp, type TestApp } from './support/app.js'
import { attend, newHabit } from './support/habits.js'
import { newPlayer, type Player } from './support/players.js'

const clock = new ManualClock(new Date('2026-03-02T08:00:00Z')) // a Monday
let app: TestApp
let p: Player
let other: Player
let habitId: string

/** The clock runs days past a token's life: each player's token is issued afresh as it moves. */
async function moveTo(iso: string): Promise<void> {
  clock.set(new Date(iso))
  for (const who of [p, other]) who.auth = { authorization: `Bearer ${await app.issueToken(who.userId, 'player')}` }
}

async function get(who: Player, url: string, status = 200) {
  const res = await app.inject({ url, headers: who.auth })
  expect(res.statusCode, `${url}: ${res.body}`).toBe(status)
  return res.json()
}

const stats = () => get(p, `/api/v1/habits/${habitId}/stats`)
const report = (query: string) => get(p, `/api/v1/avatars/${p.avatarId}/report?${query}`)

/** Days done, 2 to 19 March; Sundays rest, 12–13 March are a vacation, 10 March is frozen (the freeze earned at a streak of 7), 16 March missed. */
const DONE = ['03-02', '03-03', '03-04', '03-05', '03-06', '03-07', '03-09', '03-11', '03-14', '03-17', '03-18'].map((d) => `2026-${d}`)

beforeAll(async () => {
  app = await buildTestApp({ clock, env: { ACCESS_TOKEN_TTL_SECONDS: '86400' } })
  p = await newPlayer(app)
  other = await newPlayer(app)
  const vacation = await app.inject({ method: 'PATCH', url: `/api/v1/avatars/${p.avatarId}/settings`, headers: p.auth,
    payload: { vacation: { from: '2026-03-12', to: '2026-03-13' } } })
  expect(vacation.statusCode, vacation.body).toBe(200)
  habitId = await newHabit(app, p, { restDays: ['SUNDAY'] })
  // Each morning: yesterday's window judged and its penalty settled, then the day's completion (rewarded by event).
  for (let day = '2026-03-02'; day <= '2026-03-19'; day = addDays(day, 1)) {
    await moveTo(`${day}T08:00:00Z`)
    await app.runJob(MISSED_WINDOWS_JOB)
    await app.settle()
    if (DONE.includes(day)) expect((await attend(app, p, habitId, `${day}T07:30:00`)).statusCode).toBe(204)
    if (day === '2026-03-10') {
      const earn = await app.inject({ method: 'POST', url: `/api/v1/avatars/${p.avatarId}/money/earn`, headers: p.auth, payload: { amount: 7 } })
      expect(earn.statusCode, earn.body).toBe(204)
    }
    await app.settle()
  }
}, 120_000)
afterAll(() => app.close())

describe('a daily habit over three weeks', () => {
  test('stats: rates over due windows only, streaks, strength and completions', async () => {
    expect(await get(p, `/api/v1/habits/${habitId}/windows?from=2026-03-08&to=2026-03-20`).then((w) => w.items.map((i: { status: string }) => i.status)))
      .toEqual(['NOT_DUE', 'COMPLETED', 'FROZEN', 'COMPLETED', 'NOT_DUE', 'NOT_DUE', 'COMPLETED', 'NOT_DUE', 'MISSED', 'COMPLETED', 'COMPLETED', 'OPEN'])
    expect(await stats()).toMatchObject({
      // Last 7 days, 13–19 March: 14, 17, 18 done, 16 missed; 13 (vacation) and 15 (Sunday) not due, 19 still open.
      // Last 30 and 365: 11 done of 13 due (the frozen 10 March is due and not done).
      completionRate: { days7: 3 / 4, days30: 11 / 13, days365: 11 / 13 },
      currentStreak: 2,
      bestStreak: 9,
      // done ×9, missed, done ×2 (frozen and not-due windows skipped), weights 0.9 apart: 88.7 %
      strength: 89,
      totalCompletions: 11,
    })
  })

  test('week and month reports: windows by outcome, and experience and money earned from any source', async () => {
    const habit = (counts: Record<string, number>) => [{ habitId, title: 'Read 20 pages', ...counts }]
    // Week 1: six completions at streaks 1–6: 10 + 11 + … + 15 experience, 2 money each.
    expect(await report('period=week&date=2026-03-08')).toMatchObject({
      period: 'week', from: '2026-03-02', to: '2026-03-09',
      habits: habit({ due: 6, done: 6, missed: 0, frozen: 0 }), experience: 75, money: 12,
    })
    // Week 2: streaks 7, 8 (over the frozen 10th), 9: 16 + 17 + 18; money 3 × 2, 20 for reaching level 2, 7 earned by a call.
    expect(await report('period=week&date=2026-03-10')).toMatchObject({
      period: 'week', from: '2026-03-09', to: '2026-03-16',
      habits: habit({ due: 4, done: 3, missed: 0, frozen: 1 }), experience: 51, money: 33,
    })
    // This week (today 19 March): 16 missed, 17 and 18 done at streaks 1, 2; 19 still open.
    expect(await report('period=week')).toMatchObject({
      period: 'week', from: '2026-03-16', to: '2026-03-23',
      habits: habit({ due: 3, done: 2, missed: 1, frozen: 0 }), experience: 21, money: 4,
    })
    expect(await report('period=month')).toMatchObject({
      period: 'month', from: '2026-03-01', to: '2026-04-01',
      habits: habit({ due: 13, done: 11, missed: 1, frozen: 1 }), experience: 147, money: 49,
    })
  })

  test('refusals: another player\'s habit or avatar 403, unknown ones 404, a bad period or date 400 naming it', async () => {
    await get(other, `/api/v1/habits/${habitId}/stats`, 403)
    await get(p, '/api/v1/habits/00000000-0000-4000-8000-000000000000/stats', 404)
    await get(other, `/api/v1/avatars/${p.avatarId}/report?period=week`, 403)
    await get(p, '/api/v1/avatars/nobody-here/report?period=week', 404)
    // What an avatar earned is read by services; a player reads it in the report.
    const earnings = await app.injectAt('avatar', { url: `/internal/v1/avatars/${p.avatarId}/earnings?from=2026-03-01T00:00:00Z&to=2026-04-01T00:00:00Z`, headers: p.auth })
    expect(earnings.statusCode).toBe(403)
    const refusals: [string, string][] = [
      ['period=year', 'period'], ['', 'period'], ['period=week&date=2026-02-30', 'date'], ['period=week&date=2026-03-20', 'date'],
      ['period=month&date=03/01/2026', 'date'],
    ]
    for (const [query, field] of refusals) {
      const res = await app.inject({ url: `/api/v1/avatars/${p.avatarId}/report?${query}`, headers: p.auth })
      expect(res.statusCode, query).toBe(400)
      expect(res.headers['content-type']).toContain('application/problem+json')
      expect(JSON.stringify(res.json().errors), query).toContain(field)
    }
  })

  test('windows at the ends of the calendar: a span reaching past what a window can start in is 400 naming it, never a 500', async () => {
    const q = await newPlayer(app)
    const habits = [await newHabit(app, q), await newHabit(app, q, { recurrenceType: 'WEEKLY', dayOfWeek: 'FRIDAY' }), await newHabit(app, q, { recurrenceType: 'MONTHLY', dayOfMonth: 31 })]
    for (const habit of habits) {
      for (const [query, field] of [['from=9998-12-01&to=9999-12-31', 'to'], ['from=0001-01-01&to=0001-03-01', 'from']] as const) {
        const res = await app.inject({ url: `/api/v1/habits/${habit}/windows?${query}`, headers: q.auth })
        expect(res.statusCode, query).toBe(400)
        expect(JSON.stringify(res.json().errors)).toContain(field)
      }
      const last = await app.inject({ url: `/api/v1/habits/${habit}/windows?from=9998-11-01&to=9999-01-01`, headers: q.auth })
      expect(last.statusCode, last.body.slice(0, 200)).toBe(200)
    }
  })

  test('today\'s window counts once it is done; two avatars earning at once each have their earnings', async () => {
    expect((await attend(app, p, habitId, '2026-03-19T07:45:00')).statusCode).toBe(204)
    await app.settle()
    expect((await stats()).completionRate.days7).toBe(4 / 5)
    // Changes of several avatars at one moment are written in one statement, their earnings with them.
    const earn = (who: Player, amount: number) =>
      app.inject({ method: 'POST', url: `/api/v1/avatars/${who.avatarId}/money/earn`, headers: who.auth, payload: { amount } })
    expect((await Promise.all([earn(p, 5), earn(other, 9), earn(p, 1)])).map((r) => r.statusCode)).toEqual([204, 204, 204])
    expect(await report('period=week')).toMatchObject({ habits: [{ due: 4, done: 3, missed: 1 }], experience: 21 + 12, money: 4 + 2 + 5 + 1 })
    expect(await get(other, `/api/v1/avatars/${other.avatarId}/report?period=month`)).toMatchObject({ habits: [], experience: 0, money: 9 })
  })
})
