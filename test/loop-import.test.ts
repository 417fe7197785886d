/**
 * Loop Habit Tracker exports imported through the API (DESIGN §9.4, `?format=loop`), each built as
 * Loop's exporter writes it (support/loop-export.ts): the zip as the app shares it, its two CSV
 * files as multipart/form-data parts or as JSON text; numerical habits done only on target; Loop's
 * NO days as missed windows, counted by the stats and never penalised; the top-level file's
 * unquoted header; the same file imported twice; and what is refused, naming where.
 */
import { afterAll, beforeAll, expect, test } from 'vitest'
import { MISSED_WINDOWS_JOB } from '../src/contexts/tracking/index.js'
import { ManualClock } from '../src/platform/clock.js'
import { buildTestApp, type TestApp } from './support/app.js'
import { avatarOf } from './support/habits.js'
import { loopExport, NO, YES_AUTO, YES_MANUAL, type LoopExport, type LoopHabitFixture } from './support/loop-export.js'
import { newPlayer, type Player } from './support/players.js'

// Monday 2 March 2026, 08:00 UTC.
const TODAY = '2026-03-02'
const clock = new ManualClock(new Date(`${TODAY}T08:00:00Z`))
let app: TestApp

beforeAll(async () => {
  app = await buildTestApp({ clock, env: { ACCESS_TOKEN_TTL_SECONDS: '86400' } })
})
afterAll(() => app.close())

const MEDITATE: LoopHabitFixture = {
  name: 'Meditate', question: 'Did you meditate today?',
  entries: [{ date: '2026-03-01', value: YES_MANUAL }, { date: '2026-02-28', value: YES_MANUAL }, { date: '2026-02-27', value: NO }, { date: '2026-02-26', value: YES_MANUAL, notes: 'calm, "deep"' }],
}
// Three times a week; Loop fills the days its interval covers with YES_AUTO.
const RUN: LoopHabitFixture = {
  name: 'Run', description: 'Morning run, easy', numerator: 3, denominator: 7, color: '#388E3C',
  entries: [
    { date: '2026-02-23', value: YES_MANUAL }, { date: '2026-02-24', value: YES_AUTO }, { date: '2026-02-25', value: YES_MANUAL }, { date: '2026-02-26', value: YES_AUTO },
    { date: '2026-02-27', value: YES_MANUAL }, { date: '2026-02-28', value: YES_AUTO }, { date: '2026-03-01', value: YES_AUTO },
  ],
}
const EXPORT = loopExport([MEDITATE, RUN], TODAY)

const importUrl = (p: Player, query = '?format=loop') => `/api/v1/avatars/${p.avatarId}/import${query}`
const importZip = (p: Player, e: LoopExport) =>
  app.inject({ method: 'POST', url: importUrl(p), headers: { ...p.auth, 'content-type': 'application/zip' }, payload: Buffer.from(e.zip) })
const importPair = (p: Player, habits: string, checkmarks: string, query?: string) =>
  app.inject({ method: 'POST', url: importUrl(p, query), headers: p.auth, payload: { habits, checkmarks } })

/** A multipart/form-data body of file parts, as a browser's form sends it. */
function form(parts: [string, string][], boundary = '----QuestlineForm7MA4YWxk') {
  const text = parts.map(([name, content]) =>
    `--${boundary}\r\nContent-Disposition: form-data; name="${name}"; filename="${name === 'habits' ? 'Habits' : 'Checkmarks'}.csv"\r\nContent-Type: text/csv\r\n\r\n${content}\r\n`).join('')
  return { payload: Buffer.from(`${text}--${boundary}--\r\n`), contentType: `multipart/form-data; boundary=${boundary}` }
}
const importForm = (p: Player, parts: [string, string][], query?: string, contentType?: string) => {
  const body = form(parts)
  return app.inject({ method: 'POST', url: importUrl(p, query), headers: { ...p.auth, 'content-type': contentType ?? body.contentType }, payload: body.payload })
}

const get = async (p: Player, url: string) => {
  const res = await app.inject({ url, headers: p.auth })
  expect(res.statusCode, res.body).toBe(200)
  return res.json()
}

/** What an import made, as the API shows it: each habit with its completions. */
async function loopHabitsOf(player: Player) {
  const { items } = await get(player, `/api/v1/habits?avatarId=${player.avatarId}`)
  return Promise.all(items.map(async (h: { id: string; title: string; description: string; recurrence: object; streak: number; bestStreak: number }) => {
    const { history } = await get(player, `/api/v1/habits/${h.id}/history`)
    return { title: h.title, description: h.description, recurrence: h.recurrence, streak: h.streak, bestStreak: h.bestStreak, history: history.map((c: { date: string }) => c.date) }
  }))
}
const idOf = async (p: Player, title: string): Promise<string> =>
  (await get(p, `/api/v1/habits?avatarId=${p.avatarId}`)).items.find((h: { title: string }) => h.title === title).id
const windowsOf = async (p: Player, habitId: string) =>
  (await get(p, `/api/v1/habits/${habitId}/windows?from=2026-02-22&to=2026-03-03`)).items.map((w: { start: string; status: string }) => `${w.start} ${w.status}`)

const EXPECTED = [
  {
    title: 'Meditate', description: 'Did you meditate today?', recurrence: { type: 'DAILY', dayOfWeek: null, dayOfMonth: null, timesPerWeek: null, everyNDays: null },
    streak: 2, bestStreak: 2, history: ['2026-02-26T00:00:00', '2026-02-28T00:00:00', '2026-03-01T00:00:00'],
  },
  {
    title: 'Run', description: 'Morning run, easy', recurrence: { type: 'TIMES_PER_WEEK', dayOfWeek: null, dayOfMonth: null, timesPerWeek: 3, everyNDays: null },
    streak: 1, bestStreak: 1, history: ['2026-02-23T00:00:00', '2026-02-25T00:00:00', '2026-02-27T00:00:00'],
  },
]

test("a Loop export imports the same as its zip, as multipart parts or as JSON text, with each habit's history and streaks, paying nothing", async () => {
  const byZip = await newPlayer(app, 'Looper')
  const zipped = await importZip(byZip, EXPORT)
  expect(zipped.statusCode, zipped.body).toBe(200)
  expect(zipped.json()).toMatchObject({ habitIds: [expect.any(String), expect.any(String)], existing: [] })
  expect(await loopHabitsOf(byZip)).toEqual(EXPECTED)

  const byForm = await newPlayer(app, 'Looper')
  const posted = await importForm(byForm, [['habits', EXPORT.text('Habits.csv')], ['checkmarks', EXPORT.text('Checkmarks.csv')]])
  expect(posted.statusCode, posted.body).toBe(200)
  expect(await loopHabitsOf(byForm)).toEqual(EXPECTED)

  const byJson = await newPlayer(app, 'Looper')
  const pair = await importPair(byJson, EXPORT.text('Habits.csv'), EXPORT.text('Checkmarks.csv'))
  expect(pair.statusCode, pair.body).toBe(200)
  expect(await loopHabitsOf(byJson)).toEqual(EXPECTED)
  await app.settle()
  expect((await avatarOf(app, byJson)).level).toEqual({ levelNumber: 1, currentExperience: 0, experienceRequired: 100 })
})

test("a numerical habit's day is done only when its target is met: at least 2.0 miles, at most 2 cups", async () => {
  const p = await newPlayer(app, 'Counter')
  const walk: LoopHabitFixture = {
    name: 'Walk', numerical: { unit: 'miles', targetType: 'AT_LEAST', targetValue: 2 },
    // 0.1 and 1.0 miles fall short; Loop writes them in thousandths.
    entries: [{ date: '2026-02-24', value: 2000 }, { date: '2026-02-25', value: 100 }, { date: '2026-02-26', value: 1000 }, { date: '2026-02-27', value: 2500 }, { date: '2026-03-01', value: 3000 }],
  }
  const coffee: LoopHabitFixture = {
    name: 'Coffee', numerical: { unit: 'cups', targetType: 'AT_MOST', targetValue: 2 },
    entries: [{ date: '2026-02-27', value: 3000 }, { date: '2026-02-28', value: 2000 }, { date: '2026-03-01', value: NO }],
  }
  const res = await importZip(p, loopExport([walk, coffee], TODAY))
  expect(res.statusCode, res.body).toBe(200)
  expect((await loopHabitsOf(p)).map((h) => [h.title, h.history, h.streak, h.bestStreak])).toEqual([
    ['Walk', ['2026-02-24T00:00:00', '2026-02-27T00:00:00', '2026-03-01T00:00:00'], 1, 1],
    ['Coffee', ['2026-02-28T00:00:00', '2026-03-01T00:00:00'], 2, 2],
  ])
  expect(await windowsOf(p, await idOf(p, 'Walk'))).toEqual([
    '2026-02-24 COMPLETED', '2026-02-25 MISSED', '2026-02-26 MISSED', '2026-02-27 COMPLETED', '2026-02-28 PENDING', '2026-03-01 COMPLETED', '2026-03-02 OPEN',
  ])
})

test("Loop's NO days are missed windows, which the stats and strength count, and no penalty is paid for them", async () => {
  const p = await newPlayer(app, 'Judged')
  const before = (await avatarOf(app, p)).health
  expect((await importZip(p, EXPORT)).statusCode).toBe(200)
  const meditate = await idOf(p, 'Meditate')
  expect(await windowsOf(p, meditate)).toEqual(['2026-02-26 COMPLETED', '2026-02-27 MISSED', '2026-02-28 COMPLETED', '2026-03-01 COMPLETED', '2026-03-02 OPEN'])
  // Due windows 26 Feb–1 March: 3 done of 4. Strength: done, missed, done, done with each weighing 0.9 of the next: 2.629 / 3.439.
  expect(await get(p, `/api/v1/habits/${meditate}/stats`)).toMatchObject({
    completionRate: { days7: 0.75, days30: 0.75, days365: 0.75 }, currentStreak: 2, bestStreak: 2, strength: 76, totalCompletions: 3,
  })
  await app.runJob(MISSED_WINDOWS_JOB)
  await app.settle()
  expect((await avatarOf(app, p)).health).toEqual(before)
})

test("the top-level Checkmarks.csv's unquoted header is read by the names of Habits.csv, commas in names and all", async () => {
  const p = await newPlayer(app, 'Writer')
  const habits: LoopHabitFixture[] = [
    { name: 'Read', entries: [{ date: '2026-03-01', value: YES_MANUAL }] },
    { name: 'Read, write', entries: [{ date: '2026-02-28', value: YES_MANUAL }, { date: '2026-03-01', value: YES_MANUAL }] },
  ]
  const e = loopExport(habits, TODAY)
  expect(e.text('Checkmarks.csv').split('\n')[0]).toBe('Date,Read,Read, write,')
  const res = await importPair(p, e.text('Habits.csv'), e.text('Checkmarks.csv'))
  expect(res.statusCode, res.body).toBe(200)
  expect((await loopHabitsOf(p)).map((h) => [h.title, h.history])).toEqual([
    ['Read', ['2026-03-01T00:00:00']], ['Read, write', ['2026-02-28T00:00:00', '2026-03-01T00:00:00']],
  ])
})

test('the same export imported twice makes its habits once; the second import answers which the avatar has already', async () => {
  const p = await newPlayer(app, 'Twice')
  const first = await importZip(p, EXPORT)
  expect(first.statusCode, first.body).toBe(200)
  const [meditate, run] = first.json().habitIds
  const again = await importPair(p, EXPORT.text('Habits.csv'), EXPORT.text('Checkmarks.csv'))
  expect(again.statusCode, again.body).toBe(200)
  expect(again.json()).toMatchObject({ habitIds: [], existing: [{ habitId: meditate, title: 'Meditate' }, { habitId: run, title: 'Run' }] })
  expect(await loopHabitsOf(p)).toEqual(EXPECTED)

  // Sent twice at once onto another avatar: one import makes the habits, the other finds them.
  const q = await newPlayer(app, 'Hasty')
  const both = await Promise.all([importZip(q, EXPORT), importZip(q, EXPORT)])
  expect(both.map((r) => r.statusCode)).toEqual([200, 200])
  expect(both.map((r) => [r.json().habitIds.length, r.json().existing.length]).sort()).toEqual([[0, 2], [2, 0]])
  expect(await loopHabitsOf(q)).toEqual(EXPECTED)
})

test('a multipart import is refused with a clear problem: missing or unknown parts, no boundary, too many parts, another media type', async () => {
  const p = await newPlayer(app, 'Form')
  const habits: [string, string] = ['habits', EXPORT.text('Habits.csv')]
  const checkmarks: [string, string] = ['checkmarks', EXPORT.text('Checkmarks.csv')]
  const missing = await importForm(p, [habits])
  expect(missing.statusCode, missing.body).toBe(400)
  expect(missing.json()).toMatchObject({ type: '/problems/validation', errors: [expect.objectContaining({ path: 'body/checkmarks' })] })
  const unknown = await importForm(p, [habits, checkmarks, ['scores', 'Date,Score\n']])
  expect(unknown.json()).toMatchObject({ status: 400, type: '/problems/validation' })
  const noBoundary = await importForm(p, [habits, checkmarks], undefined, 'multipart/form-data')
  expect(noBoundary.json()).toMatchObject({ status: 400, type: '/problems/malformed-request', errors: [{ path: 'headers/content-type' }] })
  const many = await importForm(p, Array.from({ length: 9 }, (_, i) => [`part${i}`, 'x'] as [string, string]))
  expect(many.json()).toMatchObject({ status: 413, type: '/problems/import-too-large' })
  const csv = await app.inject({ method: 'POST', url: importUrl(p), headers: { ...p.auth, 'content-type': 'text/csv' }, payload: EXPORT.text('Habits.csv') })
  expect(csv.statusCode, csv.body).toBe(415)
  expect(csv.json()).toMatchObject({ type: '/problems/unsupported-media-type', errors: [{ path: 'headers/content-type', message: expect.stringContaining('multipart/form-data') }] })
  // Without ?format=loop, Loop's files are no export document.
  expect((await importForm(p, [habits, checkmarks], '')).json().errors[0].path).toBe('querystring/format')
  expect(await loopHabitsOf(p)).toEqual([])
})

test('a Loop file that cannot be read is refused naming the file, the line and the field', async () => {
  const q = await newPlayer(app, 'Looper')
  const [habitsCsv, checkmarks] = [EXPORT.text('Habits.csv'), EXPORT.text('Checkmarks.csv')]
  const res = await importPair(q, habitsCsv, checkmarks.replace('2026-02-28,YES_MANUAL', '28/02/2026,YES_MANUAL'))
  expect(res.statusCode, res.body).toBe(400)
  expect(res.json().errors).toEqual([expect.objectContaining({ path: 'body/checkmarks', line: 4, field: 'Date' })])
  const badValue = await importPair(q, habitsCsv, checkmarks.replace('2026-02-27,NO,YES_MANUAL', '2026-02-27,MAYBE,YES_MANUAL'))
  expect(badValue.json().errors).toEqual([expect.objectContaining({ line: 5, field: 'Meditate' })])
  // Without ?format=loop, CSV text is no export document.
  expect((await importPair(q, habitsCsv, checkmarks, '')).json().errors[0].path).toBe('querystring/format')
  expect(await loopHabitsOf(q)).toEqual([])
})

test("a habit Loop archived comes in archived, with its history, and is not attended", async () => {
  const p = await newPlayer(app, 'Shelver')
  const res = await importZip(p, loopExport([MEDITATE, { ...RUN, archived: true }], TODAY))
  expect(res.statusCode, res.body).toBe(200)
  const { items } = await get(p, `/api/v1/habits?avatarId=${p.avatarId}`)
  expect(items.map((h: { title: string; archived: boolean }) => [h.title, h.archived])).toEqual([['Meditate', false], ['Run', true]])
  const run = await idOf(p, 'Run')
  expect((await get(p, `/api/v1/habits/${run}/history`)).history).toHaveLength(3)
  const attended = await app.inject({ method: 'POST', url: `/api/v1/habits/${run}/attend`, headers: p.auth, payload: { date: `${TODAY}T07:00:00` } })
  expect(attended.json().type).toBe('/problems/habit-archived')
})
