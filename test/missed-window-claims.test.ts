/**
 * The missed-window job reaches every habit whose window has ended, however many habits in other
 * zones wait for theirs (DESIGN §6, §9.3). Habits in western zones are made first and their next
 * window ends on an earlier local date, yet later in time, than the eastern habits' windows that
 * have ended; there are more of them than one batch of the job takes. One run judges every ended
 * eastern window and no western one; once the western windows end, the next run judges those.
 * And a change of an avatar's zone moves the instant its habits' windows are judged from.
 */
import { afterAll, beforeAll, expect, test } from 'vitest'
import { MISSED_WINDOWS_JOB } from '../src/contexts/tracking/index.js'
import { ManualClock } from '../src/platform/clock.js'
import { buildTestApp, type TestApp } from './support/app.js'
import { avatarOf, newHabit } from './support/habits.js'
import { newPlayer, type Player } from './support/players.js'
import { inParallel } from './support/traffic.js'

const clock = new ManualClock(new Date('2026-02-23T12:00:00Z'))
let app: TestApp
beforeAll(async () => {
  app = await buildTestApp({ clock, env: { ACCESS_TOKEN_TTL_SECONDS: '86400' } })
})
afterAll(() => app.close())

/** The clock runs days past a token's life: each player's token is issued afresh as it moves. */
const players: Player[] = []
async function moveTo(iso: string): Promise<void> {
  clock.set(new Date(iso))
  for (const p of players) p.auth = { authorization: `Bearer ${await app.issueToken(p.userId, 'player')}` }
}

async function player(settings?: Record<string, unknown>): Promise<Player> {
  const p = await newPlayer(app)
  players.push(p)
  if (settings) await changeSettings(p, settings)
  return p
}

async function changeSettings(p: Player, settings: Record<string, unknown>): Promise<void> {
  const res = await app.inject({ method: 'PATCH', url: `/api/v1/avatars/${p.avatarId}/settings`, headers: p.auth, payload: settings })
  expect(res.statusCode, res.body).toBe(200)
}

/** `count` DAILY habits of the player, a few made at a time. */
const habitsOf = (p: Player, count: number, extra: Record<string, unknown> = {}) =>
  inParallel(Array.from({ length: count }, (_, i) => i), 6, (i) => newHabit(app, p, { title: `habit ${i}`, ...extra }))

/** Each habit's missed windows this month, by the avatar's report. */
async function missedOf(p: Player): Promise<number[]> {
  const res = await app.inject({ url: `/api/v1/avatars/${p.avatarId}/report?period=month`, headers: p.auth })
  expect(res.statusCode, res.body).toBe(200)
  return res.json().habits.map((h: { missed: number }) => h.missed)
}

async function judgeAt(iso: string): Promise<void> {
  await moveTo(iso)
  await app.runJob(MISSED_WINDOWS_JOB)
  await app.settle()
}

test("a change of the avatar's zone moves the instant its habits' next windows are judged from", async () => {
  await moveTo('2026-02-23T20:00:00Z')
  const p = await player()
  const id = await newHabit(app, p)
  // Its next window, 24 February's, would end at midnight UTC; from 24 February on the avatar's days
  // are Kiritimati's (UTC+14), so it ends on 24 February at 10:00 UTC.
  await changeSettings(p, { timeZone: 'Pacific/Kiritimati' })
  await judgeAt('2026-02-24T12:00:00Z')
  const windows = await app.inject({ url: `/api/v1/habits/${id}/windows?from=2026-02-24&to=2026-02-25`, headers: p.auth })
  expect(windows.json().items).toEqual([{ start: '2026-02-24', end: '2026-02-25', status: 'MISSED', completions: 0 }])
})

test('one run judges every window that has ended, past more habits than a batch whose windows have not', async () => {
  // Sunday 1 March 2026, 12:00 UTC: settings changed now govern the days from 2 March on.
  await moveTo('2026-03-01T12:00:00Z')
  // West: days from 06:00 in Los Angeles (UTC-8), and from 04:00 in Honolulu (UTC-10, the habits' own zone).
  const losAngeles = await player({ timeZone: 'America/Los_Angeles', dayStartHour: 6 })
  const honolulu = await player({ dayStartHour: 4 })
  // East: Kiritimati (UTC+14), and days from 01:00 in Auckland (UTC+13, the habits' own zone).
  const kiritimati = await player({ timeZone: 'Pacific/Kiritimati' })
  const auckland = await player({ dayStartHour: 1 })

  // 2 March 15:00 UTC: the western habits' first day is 2 March, so their first window judged is
  // 3 March's, which ends on 4 March at 14:00 UTC (06:00 in Los Angeles, 04:00 in Honolulu).
  await moveTo('2026-03-02T15:00:00Z')
  await habitsOf(losAngeles, 100)
  await habitsOf(honolulu, 100, { timeZone: 'Pacific/Honolulu' })
  // An hour later it is 3 March in the east: their first window judged is 4 March's, a local date
  // after the western one, which ends on 4 March at 10:00 UTC (Kiritimati) and 12:00 UTC (Auckland).
  await moveTo('2026-03-02T16:00:00Z')
  await habitsOf(kiritimati, 50)
  await habitsOf(auckland, 50, { timeZone: 'Pacific/Auckland' })

  await judgeAt('2026-03-04T13:00:00Z')
  expect(await missedOf(kiritimati)).toEqual(Array(50).fill(1))
  expect(await missedOf(auckland)).toEqual(Array(50).fill(1))
  expect(await missedOf(losAngeles)).toEqual(Array(100).fill(0))
  expect(await missedOf(honolulu)).toEqual(Array(100).fill(0))
  // The penalties reached the eastern avatars (at most 25 damage a day each); none the western ones.
  for (const p of [kiritimati, auckland]) expect((await avatarOf(app, p)).health.current).toBe(75)
  for (const p of [losAngeles, honolulu]) expect((await avatarOf(app, p)).health.current).toBe(100)

  // Once the western windows have ended, the next run judges them, and no eastern window twice.
  await judgeAt('2026-03-04T14:00:00Z')
  expect(await missedOf(losAngeles)).toEqual(Array(100).fill(1))
  expect(await missedOf(honolulu)).toEqual(Array(100).fill(1))
  expect(await missedOf(kiritimati)).toEqual(Array(50).fill(1))
  expect(await missedOf(auckland)).toEqual(Array(50).fill(1))
})
