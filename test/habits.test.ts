import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { MISSED_WINDOWS_JOB } from '../src/contexts/tracking/index.js'
import { ManualClock } from '../src/platform/clock.js'
import { buildTestApp, type TestApp } from './support/app.js'
import { attend, avatarOf, newHabit } from './support/habits.js'
import { newPlayer, signIn } from './support/players.js'

// Monday 2 March 2026, 08:00 UTC.
const clock = new ManualClock(new Date('2026-03-02T08:00:00Z'))
let app: TestApp
beforeAll(async () => {
  app = await buildTestApp({ clock, env: { ACCESS_TOKEN_TTL_SECONDS: '86400' } })
})
afterAll(() => app.close())

const habitUrl = (id: string, rest = '') => `/api/v1/habits/${id}${rest}`

describe('habits', () => {
  test('create each recurrence type and read every part of it', async () => {
    const p = await newPlayer(app)
    const res = await app.inject({
      method: 'POST', url: '/api/v1/habits', headers: p.auth,
      payload: { avatarId: p.avatarId, title: ' Run ', description: '5 km', tags: ['health', ' health ', 'outdoor'], recurrenceType: 'WEEKLY', dayOfWeek: 'WEDNESDAY' },
    })
    expect(res.statusCode).toBe(200)
    const id = res.json().id
    expect(res.json()._links.self.href).toBe(habitUrl(id))
    const h = (await app.inject({ url: habitUrl(id), headers: p.auth })).json()
    expect(h).toMatchObject({
      id, avatarId: p.avatarId, title: 'Run', description: '5 km', tags: ['health', 'outdoor'],
      recurrence: { type: 'WEEKLY', dayOfWeek: 'WEDNESDAY', dayOfMonth: null },
      lastAttendedDate: null,
      // The window holding Monday 2 March started on Wednesday 25 February.
      nextRecurrenceDate: '2026-02-25T00:00:00',
      associatedQuestId: null, streak: 0, bestStreak: 0,
    })
    for (const rel of ['self', 'attend', 'history', 'recurrence', 'title', 'description', 'tags', 'lastAttendedDate']) expect(h._links[rel], rel).toBeDefined()

    const monthly = await newHabit(app, p, { recurrenceType: 'MONTHLY', dayOfMonth: 31 })
    expect((await app.inject({ url: habitUrl(monthly, '/recurrence'), headers: p.auth })).json()).toEqual({ type: 'MONTHLY', dayOfMonth: 31, dayOfWeek: null, timesPerWeek: null, everyNDays: null })
    const daily = await newHabit(app, p)
    expect((await app.inject({ url: habitUrl(daily), headers: p.auth })).json().nextRecurrenceDate).toBe('2026-03-02T00:00:00')
  })

  test('title, description, tags and recurrence can be read and changed', async () => {
    const p = await newPlayer(app)
    const id = await newHabit(app, p)
    const patch = (rest: string, payload: object) => app.inject({ method: 'PATCH', url: habitUrl(id, rest), headers: p.auth, payload })
    expect((await patch('/title', { title: 'Read 30 pages' })).statusCode).toBe(204)
    expect((await patch('/description', { description: 'before bed' })).statusCode).toBe(204)
    expect((await patch('/tags', { tags: ['mind', 'mind', 'calm'] })).statusCode).toBe(204)
    expect((await patch('/recurrence', { type: 'MONTHLY', dayOfMonth: 15, dayOfWeek: null })).statusCode).toBe(204)
    const get = async (rest: string) => (await app.inject({ url: habitUrl(id, rest), headers: p.auth })).json()
    expect(await get('/title')).toEqual({ title: 'Read 30 pages' })
    expect(await get('/description')).toEqual({ description: 'before bed' })
    expect(await get('/tags')).toEqual({ tags: ['mind', 'calm'] })
    expect(await get('/recurrence')).toEqual({ type: 'MONTHLY', dayOfMonth: 15, dayOfWeek: null, timesPerWeek: null, everyNDays: null })
    expect(await get('/last-attended-date')).toEqual({ date: null })
    expect((await get('/history')).history).toEqual([])
  })

  test.each([
    ['WEEKLY without dayOfWeek', { recurrenceType: 'WEEKLY' }],
    ['WEEKLY with an unknown day', { recurrenceType: 'WEEKLY', dayOfWeek: 'FUNDAY' }],
    ['DAILY with a dayOfMonth', { recurrenceType: 'DAILY', dayOfMonth: 3 }],
    ['MONTHLY on day 32', { recurrenceType: 'MONTHLY', dayOfMonth: 32 }],
    ['MONTHLY with a dayOfWeek', { recurrenceType: 'MONTHLY', dayOfMonth: 3, dayOfWeek: 'MONDAY' }],
    ['an unknown recurrence type', { recurrenceType: 'HOURLY' }],
    ['a blank title', { title: '   ' }],
    ['21 tags', { tags: Array.from({ length: 21 }, (_, i) => `t${i}`) }],
    ['an unknown time zone', { timeZone: 'Mars/Olympus' }],
  ])('creating with %s is 400', async (_case, extra) => {
    const p = await newPlayer(app)
    const res = await app.inject({ method: 'POST', url: '/api/v1/habits', headers: p.auth, payload: { avatarId: p.avatarId, title: 'T', recurrenceType: 'DAILY', ...extra } })
    expect(res.statusCode).toBe(400)
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/)
  })

  test('habits are private: others get 403, for a missing habit 404, for a missing avatar 400', async () => {
    const owner = await newPlayer(app)
    const other = await newPlayer(app)
    const id = await newHabit(app, owner)
    expect((await app.inject({ url: habitUrl(id), headers: other.auth })).statusCode).toBe(403)
    expect((await app.inject({ url: habitUrl(id, '/history'), headers: other.auth })).statusCode).toBe(403)
    expect((await attend(app, other, id, '2026-03-02T09:00:00')).statusCode).toBe(403)
    expect((await app.inject({ method: 'DELETE', url: habitUrl(id), headers: other.auth })).statusCode).toBe(403)
    const forOther = await app.inject({ method: 'POST', url: '/api/v1/habits', headers: other.auth, payload: { avatarId: owner.avatarId, title: 'T', recurrenceType: 'DAILY' } })
    expect(forOther.statusCode).toBe(403)
    expect((await app.inject({ url: `/api/v1/habits?avatarId=${owner.avatarId}`, headers: other.auth })).statusCode).toBe(403)
    const missing = await app.inject({ url: habitUrl('7d4a7c1e-6a5e-4c5e-9b1e-1d2c3b4a5f60'), headers: owner.auth })
    expect(missing.statusCode).toBe(404)
    const noAvatar = await app.inject({ method: 'POST', url: '/api/v1/habits', headers: owner.auth, payload: { avatarId: 'nobody-here', title: 'T', recurrenceType: 'DAILY' } })
    expect(noAvatar.statusCode).toBe(400)
    expect(noAvatar.json().type).toBe('/problems/unknown-avatar')
  })

  test('an avatar\'s habits are listed page by page', async () => {
    const p = await newPlayer(app)
    const ids = [await newHabit(app, p, { title: 'a' }), await newHabit(app, p, { title: 'b' }), await newHabit(app, p, { title: 'c' })]
    const first = (await app.inject({ url: `/api/v1/habits?avatarId=${p.avatarId}&limit=2`, headers: p.auth })).json()
    expect(first.items.map((h: { id: string }) => h.id)).toEqual(ids.slice(0, 2))
    const second = (await app.inject({ url: `/api/v1/habits?avatarId=${p.avatarId}&limit=2&cursor=${first.next}`, headers: p.auth })).json()
    expect(second.items.map((h: { id: string }) => h.id)).toEqual(ids.slice(2))
    expect(second.next).toBeNull()
  })

  test('DELETE removes the habit', async () => {
    const p = await newPlayer(app)
    const id = await newHabit(app, p)
    expect((await app.inject({ method: 'DELETE', url: habitUrl(id), headers: p.auth })).statusCode).toBe(204)
    expect((await app.inject({ url: habitUrl(id), headers: p.auth })).statusCode).toBe(404)
  })
})

describe('attending', () => {
  test('a completion rewards the avatar once; a second one in the same window is refused and rewards nothing', async () => {
    const p = await newPlayer(app)
    const id = await newHabit(app, p)
    expect((await attend(app, p, id, '2026-03-02T07:30:00')).statusCode).toBe(204)
    await app.settle()
    let a = await avatarOf(app, p)
    expect(a.level.currentExperience).toBe(10)
    expect(a.money.amount).toBe(102)

    const again = await attend(app, p, id, '2026-03-02T21:00:00.250')
    expect(again.statusCode).toBe(400)
    expect(again.json().type).toBe('/problems/window-already-completed')
    await app.settle()
    a = await avatarOf(app, p)
    expect(a.level.currentExperience).toBe(10)
    expect(a.money.amount).toBe(102)

    const h = (await app.inject({ url: habitUrl(id), headers: p.auth })).json()
    expect(h).toMatchObject({ lastAttendedDate: '2026-03-02T07:30:00', nextRecurrenceDate: '2026-03-03T00:00:00', streak: 1, bestStreak: 1 })
    expect((await app.inject({ url: habitUrl(id, '/history'), headers: p.auth })).json()).toEqual({ history: [{ date: '2026-03-02T07:30:00' }] })
  })

  test('dates too far ahead, before the first window or malformed are refused', async () => {
    const p = await newPlayer(app)
    const id = await newHabit(app, p)
    const future = await attend(app, p, id, '2026-03-03T08:00:01')
    expect(future.json().type).toBe('/problems/attend-in-future')
    expect((await attend(app, p, id, '2026-03-01T23:59:59')).json().type).toBe('/problems/before-first-window')
    for (const bad of ['2026-03-02', '2026-03-02T08:00:00Z', '2026-03-02T08:00:00+01:00', '2026-02-30T08:00:00', 'yesterday']) {
      const res = await attend(app, p, id, bad)
      expect(res.statusCode, bad).toBe(400)
    }
    // Within 24 hours ahead is fine (a player in a zone ahead of the server).
    expect((await attend(app, p, id, '2026-03-03T07:00:00')).statusCode).toBe(204)
  })

  test('consecutive windows build a streak that raises the reward; a gap breaks it', async ({ onTestFinished }) => {
    const c = new ManualClock(new Date('2026-03-02T08:00:00Z'))
    const local = await buildTestApp({ clock: c, env: { ACCESS_TOKEN_TTL_SECONDS: '86400' } })
    onTestFinished(() => local.close())
    const p = await newPlayer(local)
    const id = await newHabit(local, p)
    c.set(new Date('2026-03-04T20:00:00Z'))
    await signIn(local, p)
    for (const day of ['02', '03', '04']) expect((await attend(local, p, id, `2026-03-${day}T09:00:00`)).statusCode).toBe(204)
    await local.settle()
    // streaks 1, 2, 3 → 10 + 11 + 12 = 33 experience, 3 × 2 money
    let a = await avatarOf(local, p)
    expect(a.level.currentExperience).toBe(33)
    expect(a.money.amount).toBe(106)
    expect((await local.inject({ url: habitUrl(id), headers: p.auth })).json()).toMatchObject({ streak: 3, bestStreak: 3 })

    // 5 March passes without a completion: on the 6th the streak shows broken.
    c.set(new Date('2026-03-06T10:00:00Z'))
    await signIn(local, p)
    expect((await local.inject({ url: habitUrl(id), headers: p.auth })).json()).toMatchObject({ streak: 0, bestStreak: 3 })
    await attend(local, p, id, '2026-03-06T09:00:00')
    await local.settle()
    a = await avatarOf(local, p)
    expect(a.level.currentExperience).toBe(43)
  })

  test('windows follow the habit\'s time zone', async () => {
    const p = await newPlayer(app)
    // 08:00 UTC on 2 March is 22:00 on 2 March in Kiritimati (UTC+14)... and 22:00 on 1 March in Honolulu (UTC−10).
    const honolulu = await newHabit(app, p, { timeZone: 'Pacific/Honolulu' })
    expect((await app.inject({ url: habitUrl(honolulu), headers: p.auth })).json().nextRecurrenceDate).toBe('2026-03-01T00:00:00')
    expect((await attend(app, p, honolulu, '2026-03-01T21:00:00')).statusCode).toBe(204)
  })
})

describe('events', () => {
  test('an event delivered again is applied once', async () => {
    const p = await newPlayer(app)
    const id = await newHabit(app, p)
    await attend(app, p, id, '2026-03-02T09:00:00')
    await app.settle()
    // Simulate a relay that crashed after publishing but before marking: everything goes out again.
    await app.database.db.execute(sqlRaw('update tracking.outbox set published_at = null'))
    await app.settle()
    const a = await avatarOf(app, p)
    expect(a.level.currentExperience).toBe(10)
    expect(a.money.amount).toBe(102)
  })

  test('a consumer that fails is retried until the reward lands, exactly once', async ({ onTestFinished }) => {
    const local = await buildTestApp()
    onTestFinished(() => local.close())
    const p = await newPlayer(local)
    const id = await newHabit(local, p)
    // The first avatar update after this fails (a sequence is not rolled back with the transaction).
    await local.database.db.execute(sqlRaw('create sequence avatar.fault_once'))
    await local.database.db.execute(sqlRaw(`create function avatar.fail_once() returns trigger language plpgsql as $$
      begin if nextval('avatar.fault_once') = 1 then raise exception 'injected consumer failure'; end if; return new; end $$`))
    await local.database.db.execute(sqlRaw('create trigger fail_once before update on avatar.avatars for each row execute function avatar.fail_once()'))
    await attend(local, p, id, new Date().toISOString().slice(0, 19))
    await expect.poll(async () => {
      await local.settle().catch(() => undefined)
      return (await avatarOf(local, p)).level.currentExperience
    }, { timeout: 10_000, interval: 200 }).toBe(10)
    await local.settle()
    expect((await avatarOf(local, p)).money.amount).toBe(102)
    // The delivery really failed once before it landed: the fault sequence was drawn twice.
    const rows = await local.database.db.execute(sqlRaw('select last_value::int as n from avatar.fault_once'))
    expect((rows as unknown as { rows: { n: number }[] }).rows[0]!.n).toBe(2)
  })

  test('missed windows cost 5 health each, once, and never the first window', async ({ onTestFinished }) => {
    const c = new ManualClock(new Date('2026-03-02T08:00:00Z'))
    const local = await buildTestApp({ clock: c, env: { ACCESS_TOKEN_TTL_SECONDS: '86400' } })
    onTestFinished(() => local.close())
    const p = await newPlayer(local)
    const id = await newHabit(local, p)
    await local.runJob(MISSED_WINDOWS_JOB)
    await local.settle()
    expect((await avatarOf(local, p)).health.current).toBe(100)

    // On 5 March, the windows of 3 and 4 March have ended uncompleted (2 March is the first window).
    c.set(new Date('2026-03-05T08:00:00Z'))
    await signIn(local, p)
    await attend(local, p, id, '2026-03-03T09:00:00')
    await local.runJob(MISSED_WINDOWS_JOB)
    await local.runJob(MISSED_WINDOWS_JOB)
    await local.settle()
    // Only 4 March was missed: 100 − 5.
    expect((await avatarOf(local, p)).health.current).toBe(95)
  })

  test('deleting an avatar deletes its habits', async () => {
    const p = await newPlayer(app)
    const created = await app.inject({ method: 'POST', url: '/api/v1/avatars', headers: p.auth, payload: { id: `second-${p.userId}`, name: 'Second' } })
    expect(created.statusCode).toBe(200)
    const id = await newHabit(app, p, { avatarId: `second-${p.userId}` })
    await app.inject({ method: 'DELETE', url: `/api/v1/avatars/second-${p.userId}`, headers: p.auth })
    await app.settle()
    expect((await app.inject({ url: habitUrl(id), headers: p.auth })).statusCode).toBe(404)
  })
})

describe('concurrency', () => {
  test('200 concurrent attends on distinct habits reward exactly the sum', async () => {
    const p = await newPlayer(app)
    const ids: string[] = []
    for (let i = 0; i < 200; i++) ids.push(await newHabit(app, p, { title: `habit ${i}` }))
    const results = await Promise.all(ids.map((id) => attend(app, p, id, '2026-03-02T09:00:00')))
    expect(results.every((r) => r.statusCode === 204)).toBe(true)
    await app.settle()
    // 200 × 10 = 2000 experience: levels 1–7 take 100+150+200+250+300+350+400 = 1750, 250 left at level 8.
    // Money: 100 + 200 × 2 + 7 level-ups × 20 = 640.
    const a = await avatarOf(app, p)
    expect(a.level).toEqual({ levelNumber: 8, currentExperience: 250, experienceRequired: 450 })
    expect(a.money.amount).toBe(640)
  })

  test('a burst of one player\'s attends, accepted and refused mixed, each answers for itself', async () => {
    const p = await newPlayer(app)
    const other = await newPlayer(app)
    const [a, b, c] = [await newHabit(app, p, { title: 'a' }), await newHabit(app, p, { title: 'b' }), await newHabit(app, p, { title: 'c' })]
    const theirs = await newHabit(app, other)
    const [a1, a2, b1, b2, future, foreign, missing] = await Promise.all([
      attend(app, p, a, '2026-03-02T09:00:00'),
      attend(app, p, a, '2026-03-02T10:00:00'), // the same window: one of the two is refused
      attend(app, p, b, '2026-03-02T09:00:00'),
      attend(app, p, b, '2026-03-03T07:00:00'), // the next window: a streak of 2 either way
      attend(app, p, c, '2026-03-04T09:00:00'),
      attend(app, p, theirs, '2026-03-02T09:00:00'),
      attend(app, p, crypto.randomUUID(), '2026-03-02T09:00:00'),
    ])
    expect([a1!.statusCode, a2!.statusCode].sort()).toEqual([204, 400])
    expect([a1!, a2!].find((r) => r.statusCode === 400)!.json().type).toBe('/problems/window-already-completed')
    expect([b1!.statusCode, b2!.statusCode]).toEqual([204, 204])
    expect(future!.json().type).toBe('/problems/attend-in-future')
    expect(foreign!.statusCode).toBe(403)
    expect(missing!.statusCode).toBe(404)
    for (const r of [future!, foreign!, missing!]) expect(r.headers['content-type']).toMatch(/application\/problem\+json/)

    await app.settle()
    // a: 10; b: 10 + 11 when 2 March is decided first (streak 2 on 3 March), else 10 + 10 (each the
    // first of its run then; split services may decide them in either order). Money: 100 + 3 × 2.
    const hero = await avatarOf(app, p)
    expect([30, 31]).toContain(hero.level.currentExperience)
    expect(hero.money.amount).toBe(106)
    expect((await app.inject({ url: habitUrl(b), headers: p.auth })).json()).toMatchObject({ streak: 2, bestStreak: 2 })
    expect((await app.inject({ url: habitUrl(c, '/history'), headers: p.auth })).json()).toEqual({ history: [] })
    expect((await app.inject({ url: habitUrl(theirs, '/history'), headers: other.auth })).json()).toEqual({ history: [] })
  })
})

function sqlRaw(text: string) {
  return sql.raw(text)
}
