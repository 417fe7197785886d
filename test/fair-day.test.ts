/**
 * A fair day (DESIGN §9.3) through the API: an avatar's settings (zone, day start, vacation), rest
 * days, the flexible schedules, and the rule that changing settings never judges a window twice
 * nor skips one. The missed-window job is run by hand on the test's clock.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { MISSED_WINDOWS_JOB } from '../src/contexts/tracking/index.js'
import { ManualClock } from '../src/platform/clock.js'
import { buildTestApp, type TestApp } from './support/app.js'
import { clockedPlayers } from './support/clocked-players.js'
import { attend, avatarOf, newHabit } from './support/habits.js'
import type { Player } from './support/players.js'

const clock = new ManualClock(new Date('2026-03-02T08:00:00Z'))
let app: TestApp
beforeAll(async () => {
  app = await buildTestApp({ clock, env: { ACCESS_TOKEN_TTL_SECONDS: '86400' } })
})
afterAll(() => app.close())

const settingsUrl = (p: Player) => `/api/v1/avatars/${p.avatarId}/settings`
const habitUrl = (id: string, rest = '') => `/api/v1/habits/${id}${rest}`

async function patchSettings(p: Player, body: Record<string, unknown>, status = 200) {
  const res = await app.inject({ method: 'PATCH', url: settingsUrl(p), headers: p.auth, payload: body })
  expect(res.statusCode, res.body).toBe(status)
  return res.json()
}

async function habit(p: Player, id: string) {
  const res = await app.inject({ url: habitUrl(id), headers: p.auth })
  expect(res.statusCode, res.body).toBe(200)
  return res.json()
}

interface WindowItem { start: string; end: string; status: string; completions: number }
async function windows(p: Player, id: string, from: string, to: string): Promise<WindowItem[]> {
  const res = await app.inject({ url: habitUrl(id, `/windows?from=${from}&to=${to}`), headers: p.auth })
  expect(res.statusCode, res.body).toBe(200)
  return res.json().items
}

const { moveTo, player, judgeAt } = clockedPlayers(() => app, clock)

describe('avatar settings', () => {
  test('default to UTC, day start 0, no vacation; change field by field; refuse bad input with the field named', async () => {
    await moveTo('2026-03-02T08:00:00Z')
    const p = await player()
    expect((await app.inject({ url: settingsUrl(p), headers: p.auth })).json()).toEqual({ timeZone: 'UTC', dayStartHour: 0, vacation: null })
    expect(await patchSettings(p, { timeZone: 'Europe/Berlin' })).toEqual({ timeZone: 'Europe/Berlin', dayStartHour: 0, vacation: null })
    expect(await patchSettings(p, { dayStartHour: 4, vacation: { from: '2026-07-01', to: '2026-07-14' } }))
      .toEqual({ timeZone: 'Europe/Berlin', dayStartHour: 4, vacation: { from: '2026-07-01', to: '2026-07-14' } })
    expect((await patchSettings(p, { vacation: null })).vacation).toBeNull()

    const refusals: [Record<string, unknown>, string][] = [
      [{ timeZone: 'Mars/Olympus' }, '/timeZone'],
      [{ dayStartHour: 24 }, '/dayStartHour'],
      [{ dayStartHour: -1 }, '/dayStartHour'],
      [{ vacation: { from: '2026-07-01', to: '2026-09-29' } }, '/vacation/to'], // 91 days
      [{ vacation: { from: '2026-07-14', to: '2026-07-01' } }, '/vacation/to'],
      [{ vacation: { from: '2026-02-30', to: '2026-03-01' } }, '/vacation/from'],
    ]
    for (const [body, path] of refusals) {
      const res = await app.inject({ method: 'PATCH', url: settingsUrl(p), headers: p.auth, payload: body })
      expect(res.statusCode, JSON.stringify(body)).toBe(400)
      expect(res.headers['content-type']).toContain('application/problem+json')
      expect(JSON.stringify(res.json().errors ?? res.json()), JSON.stringify(body)).toContain(path)
    }
    const other = await player()
    expect((await app.inject({ url: settingsUrl(p), headers: other.auth })).statusCode).toBe(403)
    expect((await app.inject({ method: 'PATCH', url: settingsUrl(p), headers: other.auth, payload: { dayStartHour: 1 } })).statusCode).toBe(403)
    // An avatar that does not exist is a resource not found, named by the path: not a field of a body.
    const nobody = settingsUrl({ ...p, avatarId: '00000000-0000-4000-8000-000000000000' })
    expect((await app.inject({ url: nobody, headers: p.auth })).statusCode).toBe(404)
    expect((await app.inject({ method: 'PATCH', url: nobody, headers: p.auth, payload: { dayStartHour: 1 } })).statusCode).toBe(404)
  })

  test("changes at once, the avatar's first among them: each is made on what the one before it left, none is lost", async () => {
    await moveTo('2026-03-02T08:00:00Z')
    const p = await player()
    const vacation = { from: '2026-07-01', to: '2026-07-14' }
    await Promise.all([patchSettings(p, { timeZone: 'Asia/Tokyo' }), patchSettings(p, { dayStartHour: 5 }), patchSettings(p, { vacation })])
    expect((await app.inject({ url: settingsUrl(p), headers: p.auth })).json()).toEqual({ timeZone: 'Asia/Tokyo', dayStartHour: 5, vacation })
  })

  test('a habit without its own zone follows its avatar\'s; one with a zone keeps it', async () => {
    const p = await player()
    const follows = await newHabit(app, p)
    const own = await newHabit(app, p, { timeZone: 'Asia/Tokyo' })
    await patchSettings(p, { timeZone: 'America/Chicago' })
    expect(await habit(p, follows)).toMatchObject({ timeZone: 'America/Chicago', followsAvatarTimeZone: true })
    expect(await habit(p, own)).toMatchObject({ timeZone: 'Asia/Tokyo', followsAvatarTimeZone: false })
  })

  test('with days starting at 04:00, a completion at 01:30 counts for the day before', async () => {
    await moveTo('2026-03-02T08:00:00Z')
    const p = await player()
    await patchSettings(p, { dayStartHour: 4 })
    await moveTo('2026-03-03T08:00:00Z')
    const id = await newHabit(app, p)
    await moveTo('2026-03-04T02:00:00Z')
    const r = await attend(app, p, id, '2026-03-04T01:30:00')
    expect(r.statusCode, r.body).toBe(204)
    expect(await windows(p, id, '2026-03-03', '2026-03-06')).toEqual([
      { start: '2026-03-03', end: '2026-03-04', status: 'COMPLETED', completions: 1 },
      { start: '2026-03-04', end: '2026-03-05', status: 'UPCOMING', completions: 0 },
      { start: '2026-03-05', end: '2026-03-06', status: 'UPCOMING', completions: 0 },
    ])
    expect((await habit(p, id)).nextRecurrenceDate).toBe('2026-03-04T04:00:00')
  })
})

describe('not-due windows', () => {
  test('rest days and a vacation cost nothing, show NOT_DUE, and the streak carries over them', async () => {
    await moveTo('2026-03-02T08:00:00Z') // a Monday
    const p = await player()
    const id = await newHabit(app, p, { restDays: ['SATURDAY', 'SUNDAY'] })
    await patchSettings(p, { vacation: { from: '2026-03-10', to: '2026-03-11' } })
    for (const day of ['02', '03', '04', '05', '06', '09', '12']) {
      await moveTo(`2026-03-${day}T09:00:00Z`)
      expect((await attend(app, p, id, `2026-03-${day}T08:00:00`)).statusCode).toBe(204)
      await app.runJob(MISSED_WINDOWS_JOB)
    }
    await judgeAt('2026-03-13T00:30:00Z')
    const statuses = (await windows(p, id, '2026-03-02', '2026-03-13')).map((w) => `${w.start.slice(8)} ${w.status}`)
    expect(statuses).toEqual(['02 COMPLETED', '03 COMPLETED', '04 COMPLETED', '05 COMPLETED', '06 COMPLETED', '07 NOT_DUE', '08 NOT_DUE',
      '09 COMPLETED', '10 NOT_DUE', '11 NOT_DUE', '12 COMPLETED'])
    expect(await habit(p, id)).toMatchObject({ streak: 7, bestStreak: 7, restDays: ['SATURDAY', 'SUNDAY'] })
    expect((await avatarOf(app, p)).health.current).toBe(100)
  })

  test('rest days only for DAILY habits, named by weekday, never all seven', async () => {
    const p = await player()
    const post = (extra: Record<string, unknown>) => app.inject({ method: 'POST', url: '/api/v1/habits', headers: p.auth,
      payload: { avatarId: p.avatarId, title: 'T', recurrenceType: 'DAILY', ...extra } })
    expect((await post({ restDays: ['FUNDAY'] })).statusCode).toBe(400)
    expect((await post({ recurrenceType: 'WEEKLY', dayOfWeek: 'MONDAY', restDays: ['SUNDAY'] })).statusCode).toBe(400)
    expect((await post({ restDays: ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY', 'SUNDAY'] })).statusCode).toBe(400)
    const id = await newHabit(app, p)
    const set = await app.inject({ method: 'PATCH', url: habitUrl(id, '/rest-days'), headers: p.auth, payload: { restDays: ['SUNDAY'] } })
    expect(set.statusCode, set.body).toBe(204)
    expect((await app.inject({ url: habitUrl(id, '/rest-days'), headers: p.auth })).json()).toEqual({ restDays: ['SUNDAY'] })
  })
})

describe('flexible schedules', () => {
  test('TIMES_PER_WEEK: one a day, each rewarded, done at the count; a week short is one missed window', async () => {
    await moveTo('2026-03-02T08:00:00Z') // a Monday
    const p = await player()
    const id = await newHabit(app, p, { recurrenceType: 'TIMES_PER_WEEK', timesPerWeek: 2 })
    expect((await habit(p, id)).recurrence).toEqual({ type: 'TIMES_PER_WEEK', timesPerWeek: 2, everyNDays: null, dayOfWeek: null, dayOfMonth: null })
    expect((await attend(app, p, id, '2026-03-02T07:00:00')).statusCode).toBe(204)
    const again = await attend(app, p, id, '2026-03-02T07:30:00')
    expect(again.statusCode).toBe(400)
    expect(again.json().type).toContain('day-already-completed')
    expect((await windows(p, id, '2026-03-02', '2026-03-09'))[0]).toMatchObject({ status: 'PARTIAL', completions: 1 })
    await moveTo('2026-03-04T08:00:00Z')
    expect((await attend(app, p, id, '2026-03-04T07:00:00')).statusCode).toBe(204)
    expect((await attend(app, p, id, '2026-03-05T07:00:00')).statusCode).toBe(400) // the week is done
    await app.settle()
    // Two completions, each rewarded 10 experience and 2 money.
    expect((await avatarOf(app, p)).level.currentExperience).toBe(20)
    await moveTo('2026-03-10T08:00:00Z')
    expect((await attend(app, p, id, '2026-03-10T07:00:00')).statusCode).toBe(204)
    await judgeAt('2026-03-16T00:30:00Z')
    expect((await windows(p, id, '2026-03-02', '2026-03-16')).map((w) => w.status)).toEqual(['COMPLETED', 'MISSED'])
    expect((await avatarOf(app, p)).health.current).toBe(95)
  })

  test('EVERY_N_DAYS: windows of N days from the first day; bad bounds refused', async () => {
    await moveTo('2026-03-02T08:00:00Z')
    const p = await player()
    const id = await newHabit(app, p, { recurrenceType: 'EVERY_N_DAYS', everyNDays: 3 })
    expect((await attend(app, p, id, '2026-03-02T07:00:00')).statusCode).toBe(204)
    expect((await habit(p, id)).nextRecurrenceDate).toBe('2026-03-05T00:00:00')
    for (const bad of [{ everyNDays: 1 }, { everyNDays: 366 }, { everyNDays: 3, dayOfWeek: 'MONDAY' }, {}]) {
      const res = await app.inject({ method: 'POST', url: '/api/v1/habits', headers: p.auth, payload: { avatarId: p.avatarId, title: 'T', recurrenceType: 'EVERY_N_DAYS', ...bad } })
      expect(res.statusCode, JSON.stringify(bad)).toBe(400)
    }
    for (const timesPerWeek of [0, 8]) {
      const res = await app.inject({ method: 'POST', url: '/api/v1/habits', headers: p.auth, payload: { avatarId: p.avatarId, title: 'T', recurrenceType: 'TIMES_PER_WEEK', timesPerWeek } })
      expect(res.statusCode).toBe(400)
    }
  })
})

describe('changing settings mid-window', () => {
  test('across the date line and the day start: no window judged twice, none skipped, a window under way never cut short', async () => {
    await moveTo('2026-03-02T12:00:00Z')
    const p = await player()
    await patchSettings(p, { timeZone: 'Pacific/Pago_Pago' }) // UTC−11: 2 March, 01:00
    await moveTo('2026-03-03T12:00:00Z') // 3 March, 01:00 in Pago Pago: settings in force
    const id = await newHabit(app, p)
    // A second habit never completed: its window of 4 March is under way when the zone moves.
    const idle = await newHabit(app, p, { title: 'Idle' })
    // Hourly job runs throughout; completions on 4 March only (Pago Pago's date).
    let t = new Date('2026-03-03T12:00:00Z').getTime()
    const hour = 3_600_000
    const step = async (hours: number) => {
      for (let i = 0; i < hours; i++) {
        t += hour
        await judgeAt(new Date(t).toISOString())
      }
    }
    await step(24) // 4 March, 01:00 in Pago Pago
    expect((await attend(app, p, id, '2026-03-04T01:00:00')).statusCode).toBe(204)
    await step(10) // 4 March, 11:00 in Pago Pago; 5 March 12:00 in Kiritimati
    // Across the date line, 25 hours ahead: 4 March's window keeps its end (Pago Pago's midnight).
    await patchSettings(p, { timeZone: 'Pacific/Kiritimati' })
    await step(1)
    expect((await windows(p, id, '2026-03-04', '2026-03-05'))[0]!.status).toBe('COMPLETED')
    // Kiritimati's clock says 4 March is over; Pago Pago's does not: the idle habit's window still runs.
    expect((await windows(p, idle, '2026-03-04', '2026-03-05'))[0]!.status).toBe('OPEN')
    await step(40)
    // Mid-window, the day start moves to 05:00 and back across the date line.
    await patchSettings(p, { dayStartHour: 5, timeZone: 'Pacific/Pago_Pago' })
    await step(60)
    await app.settle()
    let missed = 0
    for (const habitId of [id, idle]) {
      const seen = await windows(p, habitId, '2026-03-03', '2026-03-12')
      const starts = seen.map((w) => w.start)
      expect(new Set(starts).size).toBe(starts.length)
      // Every ended window is judged: none PENDING; windows follow each other without a gap.
      for (let i = 1; i < seen.length; i++) expect(seen[i]!.start).toBe(seen[i - 1]!.end)
      expect(seen.filter((w) => w.status === 'PENDING'), JSON.stringify(seen)).toEqual([])
      missed += seen.filter((w) => w.status === 'MISSED').length
    }
    expect((await windows(p, idle, '2026-03-04', '2026-03-05'))[0]!.status).toBe('MISSED')
    expect(missed).toBeGreaterThan(0)
    expect((await avatarOf(app, p)).health.current).toBe(100 - 5 * missed)
  })

  test('a change of schedule first judges the old schedule\'s windows that have ended, even before the job came by', async () => {
    await moveTo('2026-03-02T08:00:00Z')
    const p = await player()
    const id = await newHabit(app, p)
    // Half a minute into 4 March: 3 March's window has ended, the job has not run since.
    await moveTo('2026-03-04T00:00:30Z')
    const res = await app.inject({ method: 'PATCH', url: habitUrl(id, '/recurrence'), headers: p.auth, payload: { type: 'WEEKLY', dayOfWeek: 'MONDAY' } })
    expect(res.statusCode, res.body).toBe(204)
    await judgeAt('2026-03-04T00:01:30Z')
    expect((await avatarOf(app, p)).health.current).toBe(95)
    expect((await habit(p, id)).recurrence).toMatchObject({ type: 'WEEKLY', dayOfWeek: 'MONDAY' })
  })
})
