/**
 * Bulk attends through the API (`POST /avatars/{id}/attends`, DESIGN §9.6): check-ins queued
 * offline go up together, each with its own key. Items apply in order as single attends would, a
 * refused item answers its own problem and holds back none of the others, and a replayed key
 * answers its first result and applies nothing, also when the same batch arrives twice at once.
 */
import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { buildTestApp, type TestApp } from './support/app.js'
import { attend, avatarOf, newHabit } from './support/habits.js'
import { newPlayer, type Player } from './support/players.js'

let app: TestApp
beforeAll(async () => {
  app = await buildTestApp()
})
afterAll(() => app.close())

interface Item { key: string; habitId: string; date: string }
interface Result { key: string; status: number; problem?: { type: string; title: string; status: number; detail: string } }

const bulk = (p: Player, items: unknown[], avatarId = p.avatarId) =>
  app.inject({ method: 'POST', url: `/api/v1/avatars/${avatarId}/attends`, headers: p.auth, payload: { attends: items } })

async function bulkResults(p: Player, items: Item[]): Promise<Result[]> {
  const res = await bulk(p, items)
  expect(res.statusCode, res.body).toBe(200)
  return res.json().results
}

/** Now and yesterday as local date-times in UTC (a new avatar's zone): today's window holds now; yesterday is before a new habit's first. */
const now = () => new Date().toISOString().slice(0, 19)
const yesterday = () => new Date(Date.now() - 86_400_000).toISOString().slice(0, 19)
const key = (name: string) => `${name}-${randomUUID().slice(0, 8)}`
const item = (habitId: string, date = now(), name = 'ck'): Item => ({ key: key(name), habitId, date })
/** What each item came to: its status and, refused, its problem type. */
const outcomes = (results: Result[]) => results.map((r) => [r.status, r.problem?.type])

async function completions(p: Player, habitId: string): Promise<number> {
  const res = await app.inject({ url: `/api/v1/habits/${habitId}/history`, headers: p.auth })
  expect(res.statusCode, res.body).toBe(200)
  return res.json().history.length
}

/** The avatar's experience and money once the rewards of `applied` first completions (10 experience, 2 money each) have arrived. */
async function rewarded(p: Player, applied: number) {
  await app.settle()
  await expect.poll(async () => (await avatarOf(app, p)).level.currentExperience, { timeout: 5_000 }).toBe(10 * applied)
  const a = await avatarOf(app, p)
  return { experience: a.level.currentExperience, money: a.money.amount }
}

test('items apply in order as single attends would; a refused item answers its problem and the others apply; a replay changes nothing', async () => {
  const [p, other] = [await newPlayer(app), await newPlayer(app)]
  const [run, read] = [await newHabit(app, p, { title: 'Run' }), await newHabit(app, p, { title: 'Read' })]
  const theirs = await newHabit(app, other)
  const items = [
    item(run, now(), 'run'),
    // The same window again: the first item completed it.
    item(run, now(), 'run-again'),
    item(randomUUID(), now(), 'unknown'),
    item(theirs, now(), 'theirs'),
    item(read, yesterday(), 'too-early'),
    item(read, now(), 'read'),
  ]
  const results = await bulkResults(p, items)
  expect(results.map((r) => r.key)).toEqual(items.map((i) => i.key))
  expect(outcomes(results)).toEqual([
    [204, undefined],
    [400, '/problems/window-already-completed'],
    [404, '/problems/not-found'],
    [403, '/problems/not-owner'],
    [400, '/problems/before-first-window'],
    [204, undefined],
  ])
  // The problem is the one the single attend answers for the same item (but for its `instance`, the request's path).
  const { instance: _instance, ...single } = (await attend(app, p, run, items[1]!.date)).json()
  expect(results[1]!.problem).toEqual(single)
  const after = await rewarded(p, 2)
  expect(after.money).toBe(104)

  // The whole batch again (a retry after a lost answer): the same results, nothing applied twice.
  expect(await bulkResults(p, items)).toEqual(results)
  await app.settle()
  expect(await rewarded(p, 2)).toEqual(after)
  expect([await completions(p, run), await completions(p, read), await completions(other, theirs)]).toEqual([1, 1, 0])
})

test('a key answers its first result even when the item would now be decided otherwise; with another item it is refused as reused', async () => {
  const p = await newPlayer(app)
  const [first, second] = [await newHabit(app, p), await newHabit(app, p)]
  const refused = item(first, yesterday(), 'early')
  const applied = item(second)
  expect(outcomes(await bulkResults(p, [refused, applied]))).toEqual([[400, '/problems/before-first-window'], [204, undefined]])
  // The refused key again with a date that would apply: still the other call's key.
  const reused = await bulkResults(p, [{ ...refused, date: now() }, { ...applied, habitId: first }, item(first)])
  expect(outcomes(reused)).toEqual([[409, '/problems/idempotency-key-reused'], [409, '/problems/idempotency-key-reused'], [204, undefined]])
  expect(reused[0]!.problem!.detail).toContain(refused.key)
  // Replayed as first sent, each key answers as it did.
  expect(outcomes(await bulkResults(p, [refused, applied]))).toEqual([[400, '/problems/before-first-window'], [204, undefined]])
  expect([await completions(p, first), await completions(p, second)]).toEqual([1, 1])
})

test('the same batch sent twice at once applies each item once, and both answer every item', async () => {
  const p = await newPlayer(app)
  const habits = await Promise.all(Array.from({ length: 4 }, () => newHabit(app, p)))
  const items = habits.map((h) => item(h))
  const [one, two] = await Promise.all([bulkResults(p, items), bulkResults(p, items)])
  expect(outcomes(one)).toEqual(habits.map(() => [204, undefined]))
  expect(two).toEqual(one)
  expect(await Promise.all(habits.map((h) => completions(p, h)))).toEqual([1, 1, 1, 1])
  await rewarded(p, 4)
})

test('the request itself: its items counted, checked and keyed uniquely, and the avatar its caller\'s', async () => {
  const [p, other] = [await newPlayer(app), await newPlayer(app)]
  const habit = await newHabit(app, p)
  const refusal = async (res: Awaited<ReturnType<typeof bulk>>, status: number, type: string) => {
    expect(res.statusCode, res.body).toBe(status)
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/)
    const body = res.json()
    expect(body.type).toBe(type)
    return body as { errors?: { path: string }[] }
  }
  await refusal(await bulk(p, []), 400, '/problems/validation')
  await refusal(await bulk(p, Array.from({ length: 101 }, (_, i) => ({ key: `key-${String(i).padStart(4, '0')}`, habitId: habit, date: now() }))), 400, '/problems/validation')
  const twice = [item(habit), item(habit), item(habit)]
  twice[2]!.key = twice[0]!.key
  expect((await refusal(await bulk(p, twice), 400, '/problems/validation')).errors).toEqual([expect.objectContaining({ path: 'body/attends/2/key' })])
  const badDate = await refusal(await bulk(p, [item(habit), { ...item(habit), date: '2026-03-02' }]), 400, '/problems/validation')
  expect(badDate.errors?.map((e) => e.path)).toContain('body/attends/1/date')
  const shortKey = await refusal(await bulk(p, [{ ...item(habit), key: 'short' }]), 400, '/problems/validation')
  expect(shortKey.errors?.map((e) => e.path)).toContain('body/attends/0/key')
  await refusal(await bulk(other, [item(habit)], p.avatarId), 403, '/problems/not-owner')
  await refusal(await bulk(p, [item(habit)], `nobody-${randomUUID().slice(0, 8)}`), 404, '/problems/not-found')
  // None of these applied anything.
  expect(await completions(p, habit)).toBe(0)
})
