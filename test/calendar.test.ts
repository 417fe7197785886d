/**
 * The calendar feed (DESIGN §9.4) through the API: a secret address per account, rotated and
 * revoked; the feed read by a maintained iCalendar library (ical.js), whose occurrences over a year
 * must be the habit's own windows, at the start of the avatar's day in the habit's zone (across
 * clock changes), with rest days and a vacation left out.
 */
import ICAL from 'ical.js'
import { Temporal } from 'temporal-polyfill'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { ManualClock } from '../src/platform/clock.js'
import { buildTestApp, type TestApp } from './support/app.js'
import { newHabit } from './support/habits.js'
import { newPlayer, signIn, type Player } from './support/players.js'

// Monday 9 March 2026, 10:00 UTC; the habits are made on 1 April. Within the year after, Berlin moves its
// clocks back on 25 October, New York on 1 November.
const clock = new ManualClock(new Date('2026-03-09T10:00:00Z'))
let app: TestApp
beforeAll(async () => {
  app = await buildTestApp({ clock })
})
afterAll(() => app.close())

const FEED_URL = /^https?:\/\/[^/]+(\/calendar\/[A-Za-z0-9_-]{43}\.ics)$/

async function newFeed(p: Player, status = 201, headers: Record<string, string> = {}): Promise<string> {
  const res = await app.inject({ method: 'POST', url: '/api/v1/me/calendar', headers: { ...p.auth, ...headers } })
  expect(res.statusCode, res.body).toBe(status)
  return res.json().url
}
const pathOf = (url: string) => FEED_URL.exec(url)![1]!
const fetchFeed = (url: string) => app.inject({ url: pathOf(url) })

async function feedText(url: string): Promise<string> {
  const res = await fetchFeed(url)
  expect(res.statusCode, res.body).toBe(200)
  expect(res.headers['content-type']).toBe('text/calendar; charset=utf-8')
  expect(res.headers['cache-control']).toMatch(/^private, max-age=\d+$/)
  return res.body
}

interface Series { summary: string; starts: number[]; ends: number[] }
const OCCURRENCES_MAX = 400

/** Each event's occurrences starting from `from` and before `until`, read by ical.js (its own RRULE, RDATE, EXDATE and VTIMEZONE handling), by UID. */
function seriesOf(ics: string, until: Date, from = new Date(0)): Map<string, Series> {
  const calendar = new ICAL.Component(ICAL.parse(ics))
  for (const zone of calendar.getAllSubcomponents('vtimezone')) ICAL.TimezoneService.register(new ICAL.Timezone(zone))
  const out = new Map<string, Series>()
  for (const vevent of calendar.getAllSubcomponents('vevent')) {
    const event = new ICAL.Event(vevent)
    const series: Series = { summary: event.summary, starts: [], ends: [] }
    const it = event.iterator()
    for (let t = it.next(); t && t.toJSDate() < until && series.starts.length < OCCURRENCES_MAX; t = it.next()) {
      if (t.toJSDate() < from) continue
      const details = event.getOccurrenceDetails(t)
      series.starts.push(details.startDate.toJSDate().getTime())
      series.ends.push(details.endDate.toJSDate().getTime())
    }
    out.set(event.uid, series)
  }
  return out
}

/** The starts of a habit's windows from its first to `to`, as its API lists them. */
async function windowStarts(p: Player, habitId: string, to: string): Promise<string[]> {
  const res = await app.inject({ url: `/api/v1/habits/${habitId}/windows?from=2026-01-01&to=${to}`, headers: p.auth })
  expect(res.statusCode, res.body).toBe(200)
  return res.json().items.map((w: { start: string }) => w.start)
}

/** The instant a wall-clock time names in a zone (RFC 5545 and Temporal read a skipped time alike). */
const instant = (local: string, zone: string) => Temporal.PlainDateTime.from(local).toZonedDateTime(zone).epochMilliseconds
const isSunday = (d: string) => Temporal.PlainDate.from(d).dayOfWeek === 7

describe('the feed', () => {
  test('one event per habit, whose occurrences over a year are the habit\'s due windows at the start of its days', async () => {
    const p = await newPlayer(app)
    const settings = await app.inject({
      method: 'PATCH', url: `/api/v1/avatars/${p.avatarId}/settings`, headers: p.auth,
      payload: { timeZone: 'Europe/Berlin', dayStartHour: 4, vacation: { from: '2026-04-06', to: '2026-04-12' } },
    })
    expect(settings.statusCode, settings.body).toBe(200)
    // Settings govern the windows that start from tomorrow on: the habits are made later, their first windows under them.
    clock.set(new Date('2026-04-01T10:00:00Z'))
    p.auth = { authorization: `Bearer ${await app.issueToken(p.userId, 'player')}` }
    const habits = {
      daily: await newHabit(app, p, { title: 'Stretch', restDays: ['SUNDAY'] }),
      weekly: await newHabit(app, p, { title: 'Long run', recurrenceType: 'WEEKLY', dayOfWeek: 'FRIDAY' }),
      monthly: await newHabit(app, p, { title: 'Budget', recurrenceType: 'MONTHLY', dayOfMonth: 31 }),
      monthly30: await newHabit(app, p, { title: 'Rent', recurrenceType: 'MONTHLY', dayOfMonth: 30 }),
      timesPerWeek: await newHabit(app, p, { title: 'Gym', recurrenceType: 'TIMES_PER_WEEK', timesPerWeek: 3 }),
      everyNDays: await newHabit(app, p, { title: 'Water plants', recurrenceType: 'EVERY_N_DAYS', everyNDays: 3 }),
      ownZone: await newHabit(app, p, { title: 'Call home', recurrenceType: 'WEEKLY', dayOfWeek: 'MONDAY', timeZone: 'America/New_York' }),
    }
    // Not due, worked out by hand: the vacation (6–12 April) holds whole only the windows listed.
    const vacationDays = ['2026-04-06', '2026-04-07', '2026-04-08', '2026-04-09', '2026-04-10', '2026-04-11']
    const notDue: Record<keyof typeof habits, (start: string) => boolean> = {
      daily: (d) => isSunday(d) || vacationDays.includes(d),
      weekly: () => false,
      monthly: () => false,
      monthly30: () => false,
      timesPerWeek: (d) => d === '2026-04-06',
      everyNDays: (d) => d === '2026-04-07' || d === '2026-04-10',
      ownZone: (d) => d === '2026-04-06',
    }

    const series = seriesOf(await feedText(await newFeed(p)), new Date(instant('2027-04-01T04:00:00', 'Europe/Berlin')))
    expect(series.size).toBe(7)
    for (const [name, id] of Object.entries(habits) as [keyof typeof habits, string][]) {
      const zone = name === 'ownZone' ? 'America/New_York' : 'Europe/Berlin'
      const expected = (await windowStarts(p, id, '2027-04-01')).filter((d) => !notDue[name](d)).map((d) => instant(`${d}T04:00:00`, zone))
      const got = series.get(`${id}@questline`)
      expect(got, name).toBeDefined()
      expect(got!.starts, name).toEqual(expected)
    }

    const daily = series.get(`${habits.daily}@questline`)!
    // Berlin's days start at 04:00 local: 02:00 UTC in summer, 03:00 in winter; the day before the change lasts 25 hours.
    const dayBefore = daily.starts.indexOf(Date.parse('2026-10-24T02:00:00Z'))
    expect(dayBefore).toBeGreaterThan(0)
    expect(daily.ends[dayBefore]).toBe(Date.parse('2026-10-25T03:00:00Z'))
    expect(daily.starts).toContain(Date.parse('2026-10-26T03:00:00Z'))
    // New York's fall back: 04:00 EDT is 08:00 UTC, 04:00 EST 09:00.
    const ownZone = series.get(`${habits.ownZone}@questline`)!
    expect(ownZone.starts).toContain(Date.parse('2026-10-26T08:00:00Z'))
    expect(ownZone.starts).toContain(Date.parse('2026-11-02T09:00:00Z'))
    expect(series.get(`${habits.timesPerWeek}@questline`)!.summary).toBe('Gym (3× this week)')
  })

  test('only the account\'s own habits, from every avatar of it', async () => {
    const [p, q] = [await newPlayer(app), await newPlayer(app)]
    const second = await app.inject({ method: 'POST', url: '/api/v1/avatars', headers: p.auth, payload: { id: `alt-${p.userId}`, name: 'Alt' } })
    expect(second.statusCode, second.body).toBe(200)
    const mine = [await newHabit(app, p), await newHabit(app, { ...p, avatarId: `alt-${p.userId}` }, { recurrenceType: 'WEEKLY', dayOfWeek: 'MONDAY' })]
    const theirs = await newHabit(app, q)
    const uids = async (player: Player) => [...seriesOf(await feedText(await newFeed(player)), new Date('2026-04-01T00:00:00Z')).keys()].sort()
    expect(await uids(p)).toEqual(mine.map((id) => `${id}@questline`).sort())
    expect(await uids(q)).toEqual([`${theirs}@questline`])
  })
})

describe('the feed over time', () => {
  test('on the day the avatar\'s zone and day start change, the window under way stays, at its own start', async () => {
    clock.set(new Date('2026-05-04T10:00:00Z')) // a Monday
    const p = await newPlayer(app)
    const daily = await newHabit(app, p, { title: 'Journal' })
    const weekly = await newHabit(app, p, { title: 'Review', recurrenceType: 'WEEKLY', dayOfWeek: 'MONDAY' })
    clock.set(new Date('2026-05-06T10:00:00Z'))
    await signIn(app, p)
    const settings = await app.inject({ method: 'PATCH', url: `/api/v1/avatars/${p.avatarId}/settings`, headers: p.auth, payload: { timeZone: 'Europe/Berlin', dayStartHour: 4 } })
    expect(settings.statusCode, settings.body).toBe(200)

    // The new settings govern the windows from tomorrow on: today's and this week's began at midnight UTC.
    const series = seriesOf(await feedText(await newFeed(p)), new Date('2026-05-20T00:00:00Z'))
    const expected = (await windowStarts(p, daily, '2026-05-20')).filter((d) => d >= '2026-05-06')
      .map((d) => (d === '2026-05-06' ? Date.parse('2026-05-06T00:00:00Z') : instant(`${d}T04:00:00`, 'Europe/Berlin')))
    expect(series.get(`${daily}@questline`)!.starts).toEqual(expected)
    expect(series.get(`${weekly}@questline`)!.starts).toEqual([
      Date.parse('2026-05-04T00:00:00Z'), instant('2026-05-11T04:00:00', 'Europe/Berlin'), instant('2026-05-18T04:00:00', 'Europe/Berlin'),
    ])
  })

  test('rest days repeat without end: no rest day is an occurrence two years on', async () => {
    clock.set(new Date('2026-05-04T10:00:00Z'))
    const p = await newPlayer(app)
    const habit = await newHabit(app, p, { title: 'Walk', restDays: ['SATURDAY', 'SUNDAY'] })
    const series = seriesOf(await feedText(await newFeed(p)), new Date('2028-06-01T00:00:00Z'), new Date('2028-05-01T00:00:00Z'))
    const days = series.get(`${habit}@questline`)!.starts.map((t) => new Date(t).toISOString().slice(0, 10))
    // May 2028 has 23 days from Monday to Friday.
    expect(days).toHaveLength(23)
    expect(days.filter((d) => Temporal.PlainDate.from(d).dayOfWeek > 5)).toEqual([])
  })
})

describe('archived habits', () => {
  test('an archived habit is not in the feed; brought back, it is', async () => {
    clock.set(new Date('2026-05-04T10:00:00Z'))
    const p = await newPlayer(app)
    const [kept, archived] = [await newHabit(app, p, { title: 'Kept' }), await newHabit(app, p, { title: 'Shelved' })]
    const url = await newFeed(p)
    const uids = async () => [...seriesOf(await feedText(url), new Date('2026-06-01T00:00:00Z')).keys()].sort()
    const setArchived = async (value: boolean) => {
      const res = await app.inject({ method: 'PATCH', url: `/api/v1/habits/${archived}/archived`, headers: p.auth, payload: { archived: value } })
      expect(res.statusCode, res.body).toBe(200)
    }
    await setArchived(true)
    expect(await uids()).toEqual([`${kept}@questline`])
    await setArchived(false)
    expect(await uids()).toEqual([`${kept}@questline`, `${archived}@questline`].sort())
  })
})

describe('the secret address', () => {
  test('each POST makes a new one and the old stops answering; DELETE revokes; an unknown one looks the same', async () => {
    const p = await newPlayer(app)
    await newHabit(app, p)
    const first = await newFeed(p, 201)
    expect(first).toMatch(FEED_URL)
    await feedText(first)

    const second = await newFeed(p, 200)
    expect(second).not.toBe(first)
    const replaced = await fetchFeed(first)
    expect(replaced.statusCode).toBe(404)
    expect(replaced.headers['content-type']).toMatch(/^application\/problem\+json/)
    await feedText(second)

    const revoked = await app.inject({ method: 'DELETE', url: '/api/v1/me/calendar', headers: p.auth })
    expect(revoked.statusCode, revoked.body).toBe(204)
    const gone = await fetchFeed(second)
    expect(gone.statusCode).toBe(404)
    const never = await app.inject({ url: `/calendar/${'A'.repeat(43)}.ics` })
    const { instance: _a, ...goneBody } = gone.json()
    const { instance: _b, ...neverBody } = never.json()
    expect(goneBody).toEqual(neverBody)
    expect((await app.inject({ method: 'DELETE', url: '/api/v1/me/calendar', headers: p.auth })).statusCode).toBe(204)
    expect((await app.inject({ method: 'POST', url: '/api/v1/me/calendar' })).statusCode).toBe(401)
  })

  test('the address is where the client reached the platform, as a proxy in front says', async () => {
    const p = await newPlayer(app)
    const url = await newFeed(p, 201, { 'x-forwarded-host': 'calendar.example.org', 'x-forwarded-proto': 'https' })
    expect(url).toMatch(/^https:\/\/calendar\.example\.org\/calendar\/[A-Za-z0-9_-]{43}\.ics$/)
    await feedText(url)
  })

  test('deleting the account deletes its feed', async () => {
    const p = await newPlayer(app)
    const url = await newFeed(p)
    await feedText(url)
    const deleted = await app.inject({ method: 'DELETE', url: '/api/v1/me', headers: p.auth, payload: { password: p.password } })
    expect(deleted.statusCode, deleted.body).toBe(204)
    await app.settle()
    expect((await fetchFeed(url)).statusCode).toBe(404)
  })
})
