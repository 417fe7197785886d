/**
 * The player's data (DESIGN §9.4) through the API: the export of an account (every avatar, each
 * habit's whole history), checked against its published JSON Schema; an import of it onto a fresh
 * avatar that exports the same again and pays nothing, and makes nothing twice when imported again;
 * and refusals: someone else's avatar, a bad file (naming where), nothing half-made. Loop Habit
 * Tracker exports: loop-import.test.ts.
 */
import { Ajv } from 'ajv'
import addFormatsModule from 'ajv-formats'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { MISSED_WINDOWS_JOB } from '../src/contexts/tracking/index.js'
import { ManualClock } from '../src/platform/clock.js'
import { buildTestApp, type TestApp } from './support/app.js'
import { attend, newHabit } from './support/habits.js'
import { newPlayer, signIn, type Player } from './support/players.js'

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv

// Monday 2 March 2026, 08:00 UTC.
const clock = new ManualClock(new Date('2026-03-02T08:00:00Z'))
let app: TestApp
let p: Player
/** The player's second avatar, made fresh for the import. */
const fresh = 'import-target'
let habitId: string

beforeAll(async () => {
  app = await buildTestApp({ clock, env: { ACCESS_TOKEN_TTL_SECONDS: '86400' } })
  p = await newPlayer(app, 'Archivist')
  // A DAILY habit done on the 2nd and 3rd, missed on the 4th (judged on the 5th); a WEEKLY one never done.
  habitId = await newHabit(app, p, { title: 'Read', tags: ['books'] })
  await newHabit(app, p, { title: 'Call home', recurrenceType: 'WEEKLY', dayOfWeek: 'SUNDAY' })
  expect((await attend(app, p, habitId, '2026-03-02T08:00:00')).statusCode).toBe(204)
  clock.advance(86_400_000)
  await signIn(app, p)
  expect((await attend(app, p, habitId, '2026-03-03T09:30:00')).statusCode).toBe(204)
  clock.advance(2 * 86_400_000)
  await signIn(app, p)
  await app.runJob(MISSED_WINDOWS_JOB)
  const made = await app.inject({ method: 'POST', url: '/api/v1/avatars', headers: p.auth, payload: { id: fresh, name: 'Second' } })
  expect(made.statusCode, made.body).toBe(200)
  await app.settle()
})
afterAll(() => app.close())

async function exportOf(player: Player) {
  const res = await app.inject({ url: '/api/v1/me/export', headers: player.auth })
  expect(res.statusCode, res.body).toBe(200)
  expect(res.headers['content-type']).toMatch(/^application\/json/)
  return res.json()
}

const importInto = (avatarId: string, payload: unknown, query = '', headers = p.auth) =>
  app.inject({ method: 'POST', url: `/api/v1/avatars/${avatarId}/import${query}`, headers, payload: payload as object })

const habitsOf = async (avatarId: string) => {
  const res = await app.inject({ url: `/api/v1/habits?avatarId=${avatarId}&limit=200`, headers: p.auth })
  expect(res.statusCode, res.body).toBe(200)
  return res.json().items as { id: string; title: string; streak: number; bestStreak: number; recurrence: { type: string; timesPerWeek: number | null } }[]
}

/** A habit record as an export shows it, without what differs between copies: the habit's id. */
const withoutId = ({ habit: { id: _id, ...habit }, ...history }: { habit: { id: string } }) => ({ habit, ...history })

test("the export holds every avatar of the token's account with each habit's whole history, and matches its published schema", async () => {
  const doc = await exportOf(p)
  const schemaRes = await app.inject({ url: '/schemas/export-v1.json' })
  expect(schemaRes.statusCode).toBe(200)
  const ajv = new Ajv({ allErrors: true, strict: false })
  addFormats(ajv)
  const validate = ajv.compile(schemaRes.json())
  expect(validate(doc), JSON.stringify(validate.errors)).toBe(true)

  expect(doc).toMatchObject({ format: 'questline-export', version: 1, user: { name: 'Archivist', email: p.email } })
  expect(doc.avatars.map((a: { avatar: { id: string } }) => a.avatar.id)).toEqual([p.avatarId, fresh])
  const [own] = doc.avatars
  expect(own.settings).toEqual({ timeZone: 'UTC', dayStartHour: 0, vacation: null })
  expect(own.habits.map((h: { habit: { title: string } }) => h.habit.title)).toEqual(['Read', 'Call home'])
  expect(own.habits[0]).toMatchObject({
    habit: { id: habitId, tags: ['books'], firstWindowStart: '2026-03-02', lastAttendedDate: '2026-03-03T09:30:00', streak: 0, bestStreak: 2 },
    completions: [{ windowStart: '2026-03-02', attendedAt: '2026-03-02T08:00:00' }, { windowStart: '2026-03-03', attendedAt: '2026-03-03T09:30:00' }],
    missed: [{ windowStart: '2026-03-04', outcome: 'MISSED' }],
    frozen: [],
  })
  expect(own.quests).toEqual({ created: [], joined: [] })
  expect(own.guild).toBeNull()
  // The week's league entry from that play; no season has closed yet. It was reached when the last reward was credited:
  // between the second completion and the suite's settling on the 5th (split processes credit as events arrive).
  expect(own.league).toEqual({
    tier: 'BRONZE', results: [],
    entries: [{ season: '2026-W10', tier: 'BRONZE', division: expect.any(Number), score: expect.any(Number), reachedAt: expect.any(String) }],
  })
  expect(own.league.entries[0].score).toBeGreaterThanOrEqual(20)
  const reached = Date.parse(own.league.entries[0].reachedAt)
  expect(reached).toBeGreaterThanOrEqual(Date.parse('2026-03-03T08:00:00Z'))
  expect(reached).toBeLessThanOrEqual(Date.parse('2026-03-05T08:00:00Z'))
  // The missed window's damage came with a notification.
  expect(own.notifications.map((n: { type: string }) => n.type)).toContain('HABIT_MISSED')

  // Another account sees only its own; no token, nothing.
  const other = await exportOf(await newPlayer(app, 'Stranger'))
  expect(other.avatars.map((a: { avatar: { id: string } }) => a.avatar.id)).toEqual([other.avatars[0].avatar.id])
  expect(JSON.stringify(other)).not.toContain(habitId)
  expect((await app.inject({ url: '/api/v1/me/export' })).statusCode).toBe(401)
})

test('an export imported onto a fresh avatar exports the same habits and history again, with new ids, and pays nothing', async () => {
  const before = await exportOf(p)
  const wallet = await app.inject({ url: `/api/v1/avatars/${fresh}`, headers: p.auth })
  const res = await importInto(fresh, before)
  expect(res.statusCode, res.body).toBe(200)
  expect(res.json().habitIds).toHaveLength(2)
  await app.settle()

  const after = await exportOf(p)
  const copied = after.avatars[1].habits
  expect(copied.map(withoutId)).toEqual(before.avatars[0].habits.map(withoutId))
  expect(copied.map((h: { habit: { id: string } }) => h.habit.id)).not.toContain(habitId)
  // An import never rewards: the avatar is as it was (experience, level, money).
  const now = await app.inject({ url: `/api/v1/avatars/${fresh}`, headers: p.auth })
  expect({ level: now.json().level, money: now.json().money }).toEqual({ level: wallet.json().level, money: wallet.json().money })
  // ...and scores nothing in the leagues.
  expect(after.avatars[1].league).toEqual({ tier: 'BRONZE', entries: [], results: [] })
})

test('the same document imported again makes none of its habits twice, and answers which the avatar has already', async () => {
  const doc = await exportOf(p)
  const made = (await habitsOf(fresh)).map((h) => ({ habitId: h.id, title: h.title }))
  expect(made.map((h) => h.title)).toEqual(['Read', 'Call home'])
  const again = await importInto(fresh, doc)
  expect(again.statusCode, again.body).toBe(200)
  expect(again.json()).toMatchObject({ habitIds: [], existing: made })
  expect(await habitsOf(fresh)).toHaveLength(2)
})

test("an import is its avatar's owner's: someone else's is 403, a missing one 404, and neither changes anything", async () => {
  const doc = await exportOf(p)
  const stranger = await newPlayer(app, 'Stranger')
  expect((await importInto(p.avatarId, doc, '', stranger.auth)).statusCode).toBe(403)
  expect((await importInto('no-such-avatar', doc)).statusCode).toBe(404)
  expect(await habitsOf(p.avatarId)).toHaveLength(2)
})

test('a bad document is refused whole, naming the field by its JSON pointer: nothing is half-imported', async () => {
  const target = await newPlayer(app, 'Careful')
  const doc = await exportOf(p)
  const second = doc.avatars[0].habits[1]
  second.completions = [{ windowStart: '2026-03-01', attendedAt: 'yesterday' }]
  // Past the 64 KiB other bodies are held to (the gateway too, split): an import takes files.
  doc.notes = 'x'.repeat(100_000)
  const res = await importInto(target.avatarId, doc, '', target.auth)
  expect(res.statusCode, res.body).toBe(400)
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/)
  expect(res.json().errors[0].path).toBe('body/avatars/0/habits/1/completions/0/attendedAt')
  const left = await app.inject({ url: `/api/v1/habits?avatarId=${target.avatarId}`, headers: target.auth })
  expect(left.json().items).toEqual([])
})

test('an archived habit is exported archived, with the days it has spent archived, and imported so', async () => {
  const owner = await newPlayer(app, 'Shelver')
  const id = await newHabit(app, owner, { title: 'Shelved' })
  const archived = await app.inject({ method: 'PATCH', url: `/api/v1/habits/${id}/archived`, headers: owner.auth, payload: { archived: true } })
  expect(archived.statusCode, archived.body).toBe(200)
  const doc = await exportOf(owner)
  // Archived on 5 March: the windows from the next one on start while it is archived.
  expect(doc.avatars[0].habits[0].habit).toMatchObject({ archived: true, archivedSpans: [{ from: '2026-03-06', until: null }] })

  const target = await newPlayer(app, 'Keeper')
  const res = await importInto(target.avatarId, doc, '', target.auth)
  expect(res.statusCode, res.body).toBe(200)
  const [copy] = res.json().habitIds
  expect((await exportOf(target)).avatars[0].habits.map(withoutId)).toEqual(doc.avatars[0].habits.map(withoutId))
  const attended = await app.inject({ method: 'POST', url: `/api/v1/habits/${copy}/attend`, headers: target.auth, payload: { date: '2026-03-05T07:00:00' } })
  expect(attended.json().type).toBe('/problems/habit-archived')
})
