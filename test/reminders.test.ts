/**
 * Reminders (DESIGN §9.2): a habit's `reminderTime` (HH:mm in its time zone) makes one REMINDER
 * notification per window, at that time on the window's last day, while the window is not
 * completed; never before its time, never twice, never for a window done or gone. The job
 * (`tracking.reminders`) is run by hand and the clock is the test's.
 */
import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { REMINDERS_JOB } from '../src/contexts/tracking/index.js'
import { ManualClock } from '../src/platform/clock.js'
import { PRUNE_JOB } from '../src/platform/jobs/retention.js'
import { buildTestApp, splitTarget, type TestApp } from './support/app.js'
import { attend, newHabit } from './support/habits.js'
import { newPlayer, signIn, type Player } from './support/players.js'

// Each test has a week of its own, in order, so the clock only moves forward.
const clock = new ManualClock(new Date('2026-03-02T08:00:00Z'))
let app: TestApp
beforeAll(async () => {
  app = await buildTestApp({ clock, env: { ACCESS_TOKEN_TTL_SECONDS: '86400' } })
})
afterAll(() => app.close())

const habitUrl = (id: string, rest = '') => `/api/v1/habits/${id}${rest}`

interface Notification { type: string; title: string; body: string; data: Record<string, unknown> }

/** The player's REMINDER notifications, newest first. */
async function reminders(p: Player): Promise<Notification[]> {
  const res = await app.inject({ url: `/api/v1/avatars/${p.avatarId}/notifications`, headers: p.auth })
  expect(res.statusCode, res.body).toBe(200)
  return (res.json().items as Notification[]).filter((n) => n.type === 'REMINDER')
}

/** Moves the clock to `iso`, runs the reminder job, and lets the inbox take what it sent. */
async function remindAt(iso: string, runs = 1): Promise<void> {
  clock.set(new Date(iso))
  for (let i = 0; i < runs; i++) await app.runJob(REMINDERS_JOB)
  await app.settle()
}

describe('reminders', () => {
  test('one comes at its time, only for a habit not yet done, and only once', async () => {
    clock.set(new Date('2026-03-02T08:00:00Z'))
    const p = await newPlayer(app)
    const stretch = await newHabit(app, p, { title: 'Stretch', reminderTime: '09:00' })
    const read = await newHabit(app, p, { title: 'Read', reminderTime: '09:00' })
    await newHabit(app, p, { title: 'No reminder' })
    expect((await attend(app, p, read, '2026-03-02T08:30:00')).statusCode).toBe(204)

    // Not before its time.
    await remindAt('2026-03-02T08:59:59Z')
    expect(await reminders(p)).toEqual([])

    // At its time: the habit not done, once, though the job runs twice at once and again after.
    clock.set(new Date('2026-03-02T09:00:30Z'))
    await Promise.all([app.runJob(REMINDERS_JOB), app.runJob(REMINDERS_JOB)])
    await remindAt('2026-03-02T09:01:30Z')
    const sent = await reminders(p)
    expect(sent).toHaveLength(1)
    expect(sent[0]).toMatchObject({
      type: 'REMINDER', title: 'Reminder', body: 'Still to do: Stretch.',
      data: { habitId: stretch, windowStart: '2026-03-02T00:00:00.000Z', windowEnd: '2026-03-03T00:00:00.000Z', reminderTime: '09:00' },
    })

    // The next day's windows: neither is done, so both are reminded of, once each.
    await remindAt('2026-03-03T09:00:10Z', 2)
    await signIn(app, p)
    const next = await reminders(p)
    expect(next).toHaveLength(3)
    expect(next.slice(0, 2).map((n) => n.data.habitId).sort()).toEqual([read, stretch].sort())
    expect(next.slice(0, 2).every((n) => n.data.windowStart === '2026-03-03T00:00:00.000Z')).toBe(true)
  })

  test('a habit done before its time gets none', async () => {
    clock.set(new Date('2026-03-09T07:00:00Z'))
    const p = await newPlayer(app)
    const early = await newHabit(app, p, { reminderTime: '08:00' })
    const late = await newHabit(app, p, { reminderTime: '12:00' })
    expect((await attend(app, p, late, '2026-03-09T07:00:00')).statusCode).toBe(204)
    await remindAt('2026-03-09T08:00:00Z')
    expect((await reminders(p)).map((n) => n.data.habitId)).toEqual([early])
    expect((await attend(app, p, early, '2026-03-09T08:30:00')).statusCode).toBe(204)
    await remindAt('2026-03-09T12:00:00Z')
    expect((await reminders(p)).map((n) => n.data.habitId)).toEqual([early])
  })

  test('a weekly habit is reminded of on the last day of its window, in its own time zone', async () => {
    // Monday 16 March, 08:00 in Berlin (UTC+1): the window runs to Monday 23 March.
    clock.set(new Date('2026-03-16T07:00:00Z'))
    const p = await newPlayer(app)
    const id = await newHabit(app, p, { recurrenceType: 'WEEKLY', dayOfWeek: 'MONDAY', timeZone: 'Europe/Berlin', reminderTime: '18:30' })
    // Monday 18:30 in Berlin is not the window's last day.
    await remindAt('2026-03-16T17:30:00Z')
    await remindAt('2026-03-21T17:30:00Z')
    await signIn(app, p)
    expect(await reminders(p)).toEqual([])
    // Sunday 22 March, 18:30 in Berlin: 17:30 UTC.
    await remindAt('2026-03-22T17:29:00Z')
    expect(await reminders(p)).toEqual([])
    await remindAt('2026-03-22T17:30:00Z')
    await signIn(app, p)
    const [r, ...others] = await reminders(p)
    expect(others).toEqual([])
    expect(r!.data).toMatchObject({ habitId: id, windowStart: '2026-03-15T23:00:00.000Z', windowEnd: '2026-03-22T23:00:00.000Z', reminderTime: '18:30' })
  })

  test('a reminder time set once it has passed today starts tomorrow; moving it after a reminder sends no second one for that window', async () => {
    clock.set(new Date('2026-03-30T10:00:00Z'))
    const p = await newPlayer(app)
    const id = await newHabit(app, p, { reminderTime: '09:00' })
    await remindAt('2026-03-30T10:01:00Z')
    expect(await reminders(p)).toEqual([])

    const other = await newHabit(app, p, { reminderTime: '11:00' })
    await remindAt('2026-03-30T11:00:00Z')
    expect((await reminders(p)).map((n) => n.data.habitId)).toEqual([other])
    const patched = await app.inject({ method: 'PATCH', url: habitUrl(other, '/reminder-time'), headers: p.auth, payload: { reminderTime: '12:00' } })
    expect(patched.statusCode, patched.body).toBe(204)
    await remindAt('2026-03-30T12:00:00Z')
    expect((await reminders(p)).map((n) => n.data.habitId)).toEqual([other])

    // Cleared, it reminds no more; the first habit's comes the next day.
    expect((await app.inject({ method: 'PATCH', url: habitUrl(other, '/reminder-time'), headers: p.auth, payload: { reminderTime: null } })).statusCode).toBe(204)
    await remindAt('2026-03-31T12:00:00Z')
    await signIn(app, p)
    expect((await reminders(p)).map((n) => n.data.habitId)).toEqual([id, other])
  })
})

describe('archived habits', () => {
  test('an archived habit is reminded of nothing; brought back, it is from its next reminder time', async () => {
    clock.set(new Date('2026-04-01T07:00:00Z'))
    const p = await newPlayer(app)
    const id = await newHabit(app, p, { title: 'Floss', reminderTime: '09:00' })
    const archive = (archived: boolean) => app.inject({ method: 'PATCH', url: habitUrl(id, '/archived'), headers: p.auth, payload: { archived } })
    expect((await archive(true)).statusCode).toBe(200)
    await remindAt('2026-04-01T09:00:30Z')
    expect(await reminders(p)).toEqual([])

    // Brought back after today's time: tomorrow's window is the next reminded of, and its reminder time was kept.
    clock.set(new Date('2026-04-01T10:00:00Z'))
    const back = await archive(false)
    expect(back.json()).toMatchObject({ archived: false, reminderTime: '09:00' })
    await remindAt('2026-04-01T10:01:00Z')
    expect(await reminders(p)).toEqual([])
    await remindAt('2026-04-02T09:00:30Z')
    await signIn(app, p)
    expect((await reminders(p)).map((n) => n.data.habitId)).toEqual([id])
  })
})

describe('the reminderTime field', () => {
  test('is null unless given, and is read and changed like the other fields', async () => {
    const p = await newPlayer(app)
    const plain = await newHabit(app, p)
    expect((await app.inject({ url: habitUrl(plain), headers: p.auth })).json().reminderTime).toBeNull()

    const id = await newHabit(app, p, { reminderTime: '07:30' })
    const h = (await app.inject({ url: habitUrl(id), headers: p.auth })).json()
    expect(h.reminderTime).toBe('07:30')
    expect(h._links.reminderTime.href).toBe(habitUrl(id, '/reminder-time'))
    expect((await app.inject({ url: habitUrl(id, '/reminder-time'), headers: p.auth })).json()).toEqual({ reminderTime: '07:30' })

    const patch = (rest: string, payload: object) => app.inject({ method: 'PATCH', url: habitUrl(id, rest), headers: p.auth, payload })
    expect((await patch('/reminder-time', { reminderTime: '23:59' })).statusCode).toBe(204)
    // Other changes leave it as it is.
    expect((await patch('/title', { title: 'Evening walk' })).statusCode).toBe(204)
    expect((await patch('/recurrence', { type: 'WEEKLY', dayOfWeek: 'FRIDAY' })).statusCode).toBe(204)
    expect((await app.inject({ url: habitUrl(id), headers: p.auth })).json()).toMatchObject({ title: 'Evening walk', reminderTime: '23:59' })
    const listed = (await app.inject({ url: `/api/v1/habits?avatarId=${p.avatarId}`, headers: p.auth })).json()
    expect(listed.items.map((x: { reminderTime: string | null }) => x.reminderTime)).toEqual([null, '23:59'])

    expect((await patch('/reminder-time', { reminderTime: '00:00' })).statusCode).toBe(204)
    expect((await app.inject({ url: habitUrl(id, '/reminder-time'), headers: p.auth })).json()).toEqual({ reminderTime: '00:00' })
    expect((await patch('/reminder-time', { reminderTime: null })).statusCode).toBe(204)
    expect((await app.inject({ url: habitUrl(id), headers: p.auth })).json().reminderTime).toBeNull()
  })

  const BAD = ['24:00', '9:30', '09:60', '09:30:00', '0930', '', ' 09:30', 'noon', 930, true, { h: 9 }]

  test.each(BAD.map((v) => [JSON.stringify(v), v]))('%s is refused on create and on change: 400 naming body/reminderTime', async (_name, bad) => {
    const p = await newPlayer(app)
    const created = await app.inject({
      method: 'POST', url: '/api/v1/habits', headers: p.auth, payload: { avatarId: p.avatarId, title: 'T', recurrenceType: 'DAILY', reminderTime: bad },
    })
    expect(created.statusCode).toBe(400)
    expect(created.headers['content-type']).toMatch(/^application\/problem\+json/)
    expect(created.json().errors.map((e: { path: string }) => e.path)).toContain('body/reminderTime')
    expect((await app.inject({ url: `/api/v1/habits?avatarId=${p.avatarId}`, headers: p.auth })).json().items).toEqual([])

    const id = await newHabit(app, p, { reminderTime: '06:00' })
    const changed = await app.inject({ method: 'PATCH', url: habitUrl(id, '/reminder-time'), headers: p.auth, payload: { reminderTime: bad } })
    expect(changed.statusCode).toBe(400)
    expect(changed.headers['content-type']).toMatch(/^application\/problem\+json/)
    expect(changed.json().errors.map((e: { path: string }) => e.path)).toContain('body/reminderTime')
    expect((await app.inject({ url: habitUrl(id, '/reminder-time'), headers: p.auth })).json()).toEqual({ reminderTime: '06:00' })
  })

  test('a change must name it; another player may neither read nor change it', async () => {
    const p = await newPlayer(app)
    const other = await newPlayer(app)
    const id = await newHabit(app, p, { reminderTime: '06:00' })
    const missing = await app.inject({ method: 'PATCH', url: habitUrl(id, '/reminder-time'), headers: p.auth, payload: {} })
    expect(missing.statusCode).toBe(400)
    expect(missing.json().errors).toEqual([{ path: 'body/reminderTime', message: 'is required' }])
    expect((await app.inject({ url: habitUrl(id, '/reminder-time'), headers: other.auth })).statusCode).toBe(403)
    const theirs = await app.inject({ method: 'PATCH', url: habitUrl(id, '/reminder-time'), headers: other.auth, payload: { reminderTime: '07:00' } })
    expect(theirs.statusCode).toBe(403)
    expect((await app.inject({ url: habitUrl(id, '/reminder-time'), headers: p.auth })).json()).toEqual({ reminderTime: '06:00' })
  })
})

// Under the API (split services run the retention job per process, each on its own contexts' tables).
test.skipIf(splitTarget)('the record of a reminder sent goes once its window is over in every zone', async () => {
  clock.set(new Date('2026-04-06T08:00:00Z'))
  const p = await newPlayer(app)
  const id = await newHabit(app, p, { reminderTime: '09:00' })
  await remindAt('2026-04-06T09:00:00Z')
  const records = async () => ((await app.database.db.execute(
    sql`select count(*)::int as n from tracking.reminders_sent where habit_id = ${id}`)) as unknown as { rows: { n: number }[] }).rows[0]!.n
  expect(await records()).toBe(1)
  // The window of 6 April is over everywhere by 7 April 12:00 UTC (midnight in UTC−12); its record is kept a day more.
  clock.set(new Date('2026-04-08T23:59:00Z'))
  await app.runJob(PRUNE_JOB)
  expect(await records()).toBe(1)
  clock.set(new Date('2026-04-09T00:00:00Z'))
  await app.runJob(PRUNE_JOB)
  expect(await records()).toBe(0)
})
