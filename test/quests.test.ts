import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { EXPIRE_JOB, FINISH_JOINS_JOB } from '../src/contexts/quest/index.js'
import { ManualClock } from '../src/platform/clock.js'
import { buildTestApp, callRetries, type TestApp } from './support/app.js'
import { newGuild, joinGuild } from './support/guilds.js'
import { attend, avatarOf } from './support/habits.js'
import { newPlayer, signIn, type Player } from './support/players.js'

// Monday 2 March 2026, 10:00 UTC. Tests that move the clock build an app of their own.
const clock = new ManualClock(new Date('2026-03-02T10:00:00Z'))
let app: TestApp
beforeAll(async () => {
  app = await buildTestApp({ clock, env: { ACCESS_TOKEN_TTL_SECONDS: '86400' } })
})
afterAll(() => app.close())

const questUrl = (id: string, rest = '') => `/api/v1/quests/${id}${rest}`
const MISSING = '7d4a7c1e-6a5e-4c5e-9b1e-1d2c3b4a5f60'

const READ = { habitId: 'read', title: 'Read 20 pages', description: 'before bed', tags: ['mind'], recurrence: { type: 'DAILY' } }
const RUN = { habitId: 'run', title: 'Run 5 km', recurrence: { type: 'WEEKLY', dayOfWeek: 'MONDAY', dayOfMonth: null } }
const GYM = { habitId: 'gym', title: 'Gym', recurrence: { type: 'TIMES_PER_WEEK', timesPerWeek: 2 } }
const CALL = { habitId: 'call', title: 'Call home', recurrence: { type: 'EVERY_N_DAYS', everyNDays: 3, timesPerWeek: null } }

async function createQuest(a: TestApp, p: Player, extra: Record<string, unknown> = {}): Promise<string> {
  const res = await a.inject({ method: 'POST', url: '/api/v1/quests', headers: p.auth, payload: { name: 'Spring training', habits: [READ, RUN], ...extra } })
  expect(res.statusCode, res.body).toBe(200)
  return res.json().id
}

const join = (a: TestApp, p: Player, questId: string, avatarId = p.avatarId) =>
  a.inject({ method: 'POST', url: questUrl(questId, '/participants'), headers: p.auth, payload: { avatarId } })

async function progress(a: TestApp, p: Player, questId: string, avatarId = p.avatarId) {
  const res = await a.inject({ url: questUrl(questId, `/participants/${avatarId}`), headers: p.auth })
  expect(res.statusCode, res.body).toBe(200)
  return res.json()
}

interface HabitView { id: string; title: string; associatedQuestId: string | null; recurrence: { type: string }; tags: string[]; description: string }

/** The avatar's habits that are copies of the quest's habits: made with the quest's link, keyed by title. */
async function habitsOf(a: TestApp, p: Player): Promise<HabitView[]> {
  const res = await a.inject({ url: `/api/v1/habits?avatarId=${p.avatarId}&limit=200`, headers: p.auth })
  expect(res.statusCode, res.body).toBe(200)
  return res.json().items
}

const copyOf = (view: { habits: { habitId: string; copyHabitId: string }[] }, habitId: string) =>
  view.habits.find((h) => h.habitId === habitId)!.copyHabitId

describe('quests', () => {
  test('create with defaults, read every part, change name, duration and reward', async () => {
    const p = await newPlayer(app)
    const created = await app.inject({ method: 'POST', url: '/api/v1/quests', headers: p.auth, payload: { name: ' Spring ' } })
    expect(created.statusCode).toBe(200)
    const id = created.json().id
    expect(created.json()._links.self.href).toBe(questUrl(id))
    const q = (await app.inject({ url: questUrl(id), headers: p.auth })).json()
    expect(q).toMatchObject({ id, name: 'Spring', duration: 'P7D', reward: { experience: 100, money: 50 }, habitIds: [], guildId: null, ownerAvatarId: p.avatarId })
    for (const rel of ['self', 'name', 'duration', 'reward', 'habits', 'participants', 'join', 'delete']) expect(q._links[rel], rel).toBeDefined()

    const patch = (rest: string, payload: object) => app.inject({ method: 'PATCH', url: questUrl(id, rest), headers: p.auth, payload })
    const get = async (rest: string) => (await app.inject({ url: questUrl(id, rest), headers: p.auth })).json()
    expect((await patch('/name', { name: 'Summer' })).statusCode).toBe(204)
    expect((await patch('/duration', { duration: 'PT36H' })).statusCode).toBe(204)
    expect((await patch('/reward', { experience: 0, money: 100_000 })).statusCode).toBe(204)
    expect(await get('/name')).toEqual({ name: 'Summer' })
    expect(await get('/duration')).toEqual({ duration: 'PT36H' })
    expect(await get('/reward')).toEqual({ experience: 0, money: 100_000 })
  })

  test.each(['7D', 'P', 'P-1D', 'PT0S', 'P2Y', 'P1Y1D', 'p7d', 'PT1.5H30M', 'P1DT', '', 'P1.5D', 'P0,5W'])('duration %j is 400 on create and on change', async (duration) => {
    const p = await newPlayer(app)
    const res = await app.inject({ method: 'POST', url: '/api/v1/quests', headers: p.auth, payload: { name: 'Q', duration } })
    expect(res.statusCode).toBe(400)
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/)
    const id = await createQuest(app, p, { duration: 'P3D' })
    const patch = await app.inject({ method: 'PATCH', url: questUrl(id, '/duration'), headers: p.auth, payload: { duration } })
    expect(patch.statusCode).toBe(400)
    expect(patch.headers['content-type']).toMatch(/^application\/problem\+json/)
    expect((await app.inject({ url: questUrl(id, '/duration'), headers: p.auth })).json()).toEqual({ duration: 'P3D' })
  })

  test('a duration in any ISO 8601 form up to a year is kept as written', async () => {
    const p = await newPlayer(app)
    for (const duration of ['P1Y', 'P12M', 'P52W', 'PT8760H', 'P1M2DT3H', 'PT1.5H', 'PT0,5M', 'P1DT12H']) {
      const id = await createQuest(app, p, { duration })
      expect((await app.inject({ url: questUrl(id, '/duration'), headers: p.auth })).json(), duration).toEqual({ duration })
    }
  })

  test('a fraction of a day or week is refused, saying how to write it', async () => {
    const p = await newPlayer(app)
    const res = await app.inject({ method: 'POST', url: '/api/v1/quests', headers: p.auth, payload: { name: 'Q', duration: 'P1.5D' } })
    expect(res.statusCode).toBe(400)
    expect(res.json()).toMatchObject({ type: '/problems/invalid-duration' })
    expect(res.json().detail).toContain('P1DT12H')
  })

  test.each([
    ['negative experience', { experience: -1, money: 0 }],
    ['negative money', { experience: 0, money: -5 }],
    ['a fraction', { experience: 1.5, money: 0 }],
    ['a numeric string', { experience: '5', money: 0 }],
    ['over 100,000', { experience: 100_001, money: 0 }],
    ['a missing part', { experience: 10 }],
  ])('a reward with %s is 400 on create and on change', async (_case, reward) => {
    const p = await newPlayer(app)
    const res = await app.inject({ method: 'POST', url: '/api/v1/quests', headers: p.auth, payload: { name: 'Q', reward } })
    expect(res.statusCode).toBe(400)
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/)
    const id = await createQuest(app, p)
    expect((await app.inject({ method: 'PATCH', url: questUrl(id, '/reward'), headers: p.auth, payload: reward })).statusCode).toBe(400)
    expect((await app.inject({ url: questUrl(id, '/reward'), headers: p.auth })).json()).toEqual({ experience: 100, money: 50 })
  })

  test('quest habits: listed as entries, habitId unique (409), removal needs habitId and title', async () => {
    const p = await newPlayer(app)
    const id = await createQuest(app, p)
    const url = questUrl(id, '/habits')
    const list = (await app.inject({ url, headers: p.auth })).json()
    expect(list.habits).toEqual([
      { id: 'read', habitId: 'read', title: 'Read 20 pages', description: 'before bed', tags: ['mind'],
        recurrence: { type: 'DAILY', dayOfWeek: null, dayOfMonth: null, timesPerWeek: null, everyNDays: null } },
      { id: 'run', habitId: 'run', title: 'Run 5 km', description: '', tags: [],
        recurrence: { type: 'WEEKLY', dayOfWeek: 'MONDAY', dayOfMonth: null, timesPerWeek: null, everyNDays: null } },
    ])
    const add = (payload: object) => app.inject({ method: 'POST', url, headers: p.auth, payload })
    expect((await add({ habitId: 'read', title: 'Another', recurrence: { type: 'DAILY' } })).statusCode).toBe(409)
    expect((await add({ habitId: 'rent', title: 'Pay rent', recurrence: { type: 'MONTHLY', dayOfMonth: 31 } })).statusCode).toBe(204)
    for (const bad of [
      { habitId: 'w', title: 'T', recurrence: { type: 'WEEKLY' } },
      { habitId: 'm', title: 'T', recurrence: { type: 'MONTHLY', dayOfMonth: 32 } },
      { habitId: 'd', title: 'T', recurrence: { type: 'DAILY', dayOfWeek: 'MONDAY' } },
      { habitId: 'b', title: '   ', recurrence: { type: 'DAILY' } },
      { habitId: 't', title: 'T', tags: Array.from({ length: 21 }, (_, i) => `t${i}`), recurrence: { type: 'DAILY' } },
      { habitId: 'has space', title: 'T', recurrence: { type: 'DAILY' } },
    ]) expect((await add(bad)).statusCode, JSON.stringify(bad)).toBe(400)

    const remove = (payload: object) => app.inject({ method: 'DELETE', url, headers: p.auth, payload })
    expect((await remove({ habitId: 'read', title: 'Run 5 km' })).statusCode).toBe(404)
    expect((await remove({ habitId: 'nope', title: 'Read 20 pages' })).statusCode).toBe(404)
    expect((await remove({ habitId: 'read' })).statusCode).toBe(400)
    expect((await remove({ habitId: 'read', title: 'Read 20 pages' })).statusCode).toBe(204)
    expect((await app.inject({ url: questUrl(id), headers: p.auth })).json().habitIds).toEqual(['run', 'rent'])
  })

  test('quest habits take the flexible schedules, within a habit\'s bounds, and show them', async () => {
    const p = await newPlayer(app)
    const id = await createQuest(app, p, { habits: [GYM, CALL] })
    const url = questUrl(id, '/habits')
    expect((await app.inject({ url, headers: p.auth })).json().habits.map((h: { recurrence: object }) => h.recurrence)).toEqual([
      { type: 'TIMES_PER_WEEK', dayOfWeek: null, dayOfMonth: null, timesPerWeek: 2, everyNDays: null },
      { type: 'EVERY_N_DAYS', dayOfWeek: null, dayOfMonth: null, timesPerWeek: null, everyNDays: 3 },
    ])
    const add = (habitId: string, recurrence: object) => app.inject({ method: 'POST', url, headers: p.auth, payload: { habitId, title: 'T', recurrence } })
    expect((await add('seven', { type: 'TIMES_PER_WEEK', timesPerWeek: 7, everyNDays: null })).statusCode).toBe(204)
    expect((await add('yearly', { type: 'EVERY_N_DAYS', everyNDays: 365 })).statusCode).toBe(204)
    for (const [habitId, recurrence] of [
      ['a', { type: 'TIMES_PER_WEEK' }],
      ['b', { type: 'TIMES_PER_WEEK', timesPerWeek: 0 }],
      ['c', { type: 'TIMES_PER_WEEK', timesPerWeek: 8 }],
      ['d', { type: 'TIMES_PER_WEEK', timesPerWeek: 1.5 }],
      ['e', { type: 'EVERY_N_DAYS', everyNDays: null }],
      ['f', { type: 'EVERY_N_DAYS', everyNDays: 1 }],
      ['g', { type: 'EVERY_N_DAYS', everyNDays: 366 }],
      ['h', { type: 'EVERY_N_DAYS', everyNDays: 3, timesPerWeek: 2 }],
      ['i', { type: 'TIMES_PER_WEEK', timesPerWeek: 2, dayOfWeek: 'MONDAY' }],
      ['j', { type: 'DAILY', everyNDays: 3 }],
      ['k', { type: 'WEEKLY', dayOfWeek: 'MONDAY', timesPerWeek: 1 }],
    ] as const) {
      const res = await add(habitId, recurrence)
      expect(res.statusCode, JSON.stringify(recurrence)).toBe(400)
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/)
    }
    const refused = await app.inject({
      method: 'POST', url: '/api/v1/quests', headers: p.auth,
      payload: { name: 'Q', habits: [READ, { habitId: 'x', title: 'T', recurrence: { type: 'DAILY', timesPerWeek: 3 } }] },
    })
    expect(refused.statusCode).toBe(400)
    expect(refused.json().errors).toEqual([{ path: 'body/habits/1/recurrence/timesPerWeek', message: 'must be null or absent for a DAILY habit' }])
    expect((await app.inject({ url: questUrl(id), headers: p.auth })).json().habitIds).toEqual(['gym', 'call', 'seven', 'yearly'])
  })

  test('only the owner changes or deletes a quest (403); others may read it; unknown quests are 404', async () => {
    const owner = await newPlayer(app)
    const other = await newPlayer(app)
    const id = await createQuest(app, owner)
    expect((await app.inject({ url: questUrl(id), headers: other.auth })).statusCode).toBe(200)
    expect((await app.inject({ url: questUrl(id, '/habits'), headers: other.auth })).statusCode).toBe(200)
    const as = (method: 'PATCH' | 'POST' | 'DELETE', rest: string, payload?: object) =>
      app.inject({ method, url: questUrl(id, rest), headers: other.auth, ...(payload ? { payload } : {}) })
    expect((await as('PATCH', '/name', { name: 'Mine now' })).statusCode).toBe(403)
    expect((await as('PATCH', '/duration', { duration: 'P1D' })).statusCode).toBe(403)
    expect((await as('PATCH', '/reward', { experience: 1, money: 1 })).statusCode).toBe(403)
    expect((await as('POST', '/habits', { habitId: 'x', title: 'X', recurrence: { type: 'DAILY' } })).statusCode).toBe(403)
    expect((await as('DELETE', '/habits', { habitId: 'read', title: 'Read 20 pages' })).statusCode).toBe(403)
    const del = await as('DELETE', '')
    expect(del.statusCode).toBe(403)
    expect(del.json().type).toBe('/problems/not-owner')
    expect((await app.inject({ url: questUrl(id, '/name'), headers: owner.auth })).json()).toEqual({ name: 'Spring training' })

    const forOther = await app.inject({ method: 'POST', url: '/api/v1/quests', headers: other.auth, payload: { name: 'Q', ownerAvatarId: owner.avatarId } })
    expect(forOther.statusCode).toBe(403)
    const noAvatar = await app.inject({ method: 'POST', url: '/api/v1/quests', headers: other.auth, payload: { name: 'Q', ownerAvatarId: 'nobody-here' } })
    expect(noAvatar.statusCode).toBe(400)

    for (const rest of ['', '/name', '/duration', '/reward', '/habits', '/participants']) {
      expect((await app.inject({ url: questUrl(MISSING, rest), headers: owner.auth })).statusCode, rest).toBe(404)
    }
    expect((await app.inject({ method: 'PATCH', url: questUrl(MISSING, '/name'), headers: owner.auth, payload: { name: 'N' } })).statusCode).toBe(404)
    expect((await join(app, owner, MISSING)).statusCode).toBe(404)
    expect((await app.inject({ method: 'DELETE', url: questUrl(MISSING), headers: owner.auth })).statusCode).toBe(404)

    expect((await app.inject({ method: 'DELETE', url: questUrl(id), headers: owner.auth })).statusCode).toBe(204)
    expect((await app.inject({ url: questUrl(id), headers: owner.auth })).statusCode).toBe(404)
  })

  test('a guild quest: only for a guild its owner belongs to, joined only by that guild\'s members, listed to them', async () => {
    const [leader, member, outsider] = await Promise.all([newPlayer(app), newPlayer(app), newPlayer(app)])
    const unknown = await app.inject({ method: 'POST', url: '/api/v1/quests', headers: leader.auth, payload: { name: 'Q', guildId: MISSING } })
    expect(unknown.statusCode).toBe(400)
    expect(unknown.json().type).toBe('/problems/unknown-guild')

    const guildId = await newGuild(app, leader)
    await joinGuild(app, guildId, leader, member)
    const foreign = await app.inject({ method: 'POST', url: '/api/v1/quests', headers: outsider.auth, payload: { name: 'Q', guildId, habits: [READ] } })
    expect(foreign.statusCode).toBe(403)
    expect(foreign.json().type).toBe('/problems/not-guild-member')

    const questId = await createQuest(app, leader, { name: 'Guild training', guildId })
    expect((await join(app, member, questId)).statusCode).toBe(200)
    const refused = await join(app, outsider, questId)
    expect(refused.statusCode).toBe(403)
    expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/)
    expect(refused.json().type).toBe('/problems/not-guild-member')
    expect(await habitsOf(app, outsider)).toEqual([])

    const listed = async (p: Player) => {
      const res = await app.inject({ url: '/api/v1/quests?limit=200', headers: p.auth })
      expect(res.statusCode, res.body).toBe(200)
      return res.json().items.map((q: { id: string }) => q.id) as string[]
    }
    expect(await listed(member)).toContain(questId)
    expect(await listed(outsider)).not.toContain(questId)
  })

  test('the quest list pages through mine and public quests, oldest first', async () => {
    const p = await newPlayer(app)
    const mine = [await createQuest(app, p, { name: 'a' }), await createQuest(app, p, { name: 'b' }), await createQuest(app, p, { name: 'c' })]
    const seen: string[] = []
    let next: string | null = null
    let pages = 0
    do {
      const res = await app.inject({ url: `/api/v1/quests?limit=2${next ? `&cursor=${next}` : ''}`, headers: p.auth })
      expect(res.statusCode, res.body).toBe(200)
      const page: { items: { id: string }[]; next: string | null } = res.json()
      expect(page.items.length).toBeLessThanOrEqual(2)
      seen.push(...page.items.map((q) => q.id))
      next = page.next
      pages++
    } while (next && pages < 1000)
    expect(new Set(seen).size).toBe(seen.length)
    expect(seen.filter((id) => mine.includes(id))).toEqual(mine)
    expect((await app.inject({ url: `/api/v1/quests?cursor=${MISSING}`, headers: p.auth })).statusCode).toBe(400)
  })
})

describe('participation', () => {
  test('joining copies each quest habit into the avatar\'s habits, linked to the quest; joining again makes nothing new', async () => {
    const p = await newPlayer(app)
    const id = await createQuest(app, p)
    const first = await join(app, p, id)
    expect(first.statusCode, first.body).toBe(200)
    const second = await join(app, p, id)
    expect(second.statusCode).toBe(200)
    expect(second.json().id).toBe(first.json().id)
    expect(second.json().habits).toEqual(first.json().habits)

    const copies = await habitsOf(app, p)
    expect(copies).toHaveLength(2)
    const read = copies.find((h) => h.id === copyOf(first.json(), 'read'))!
    expect(read).toMatchObject({ title: 'Read 20 pages', description: 'before bed', tags: ['mind'], recurrence: { type: 'DAILY' }, associatedQuestId: id })
    expect(copies.find((h) => h.id === copyOf(first.json(), 'run'))).toMatchObject({ title: 'Run 5 km', recurrence: { type: 'WEEKLY', dayOfWeek: 'MONDAY' }, associatedQuestId: id })
  })

  test('joining needs an avatar the caller owns (403), an existing one (400) and a quest with habits (400)', async () => {
    const owner = await newPlayer(app)
    const other = await newPlayer(app)
    const id = await createQuest(app, owner)
    const res = await join(app, other, id, owner.avatarId)
    expect(res.statusCode).toBe(403)
    expect(await habitsOf(app, owner)).toEqual([])
    expect((await join(app, other, id, 'nobody-here')).statusCode).toBe(400)
    const empty = await app.inject({ method: 'POST', url: '/api/v1/quests', headers: owner.auth, payload: { name: 'Nothing to do' } })
    const noHabits = await join(app, owner, empty.json().id)
    expect(noHabits.statusCode).toBe(400)
    expect(noHabits.json().type).toBe('/problems/quest-has-no-habits')
    // progress of someone who did not join
    expect((await app.inject({ url: questUrl(id, `/participants/${other.avatarId}`), headers: other.auth })).statusCode).toBe(404)
  })

  test('leaving keeps the copies as personal habits, unlinked; only the avatar\'s owner may leave', async () => {
    const p = await newPlayer(app)
    const other = await newPlayer(app)
    const id = await createQuest(app, p)
    await join(app, p, id)
    const url = questUrl(id, `/participants/${p.avatarId}`)
    expect((await app.inject({ method: 'DELETE', url, headers: other.auth })).statusCode).toBe(403)
    expect((await app.inject({ url, headers: p.auth })).json().status).toBe('IN_PROGRESS')
    expect((await app.inject({ method: 'DELETE', url, headers: p.auth })).statusCode).toBe(204)
    expect((await app.inject({ url, headers: p.auth })).statusCode).toBe(404)
    expect((await app.inject({ method: 'DELETE', url, headers: p.auth })).statusCode).toBe(404)
    const copies = await habitsOf(app, p)
    expect(copies.map((h) => h.associatedQuestId)).toEqual([null, null])
    expect(copies.map((h) => h.title).sort()).toEqual(['Read 20 pages', 'Run 5 km'])
  })

  test('deleting a quest unlinks its participants\' copies and keeps them', async () => {
    const owner = await newPlayer(app)
    const p = await newPlayer(app)
    const id = await createQuest(app, owner)
    await join(app, p, id)
    expect((await app.inject({ method: 'DELETE', url: questUrl(id), headers: owner.auth })).statusCode).toBe(204)
    expect((await habitsOf(app, p)).map((h) => h.associatedQuestId)).toEqual([null, null])
  })

  test('deleting an avatar ends its participations', async () => {
    const p = await newPlayer(app)
    const second = `second-${p.userId}`
    expect((await app.inject({ method: 'POST', url: '/api/v1/avatars', headers: p.auth, payload: { id: second, name: 'Second' } })).statusCode).toBe(200)
    const id = await createQuest(app, p)
    expect((await join(app, p, id, second)).statusCode).toBe(200)
    await app.inject({ method: 'DELETE', url: `/api/v1/avatars/${second}`, headers: p.auth })
    await app.settle()
    expect((await app.inject({ url: questUrl(id, `/participants/${second}`), headers: p.auth })).statusCode).toBe(404)
  })
})

describe('a quest run from join to outcome', () => {
  test('two participants: one completes and is paid once, the other expires and keeps its copies, unlinked', async ({ onTestFinished }) => {
    const c = new ManualClock(new Date('2026-03-02T10:00:00Z'))
    const local = await buildTestApp({ clock: c, env: { ACCESS_TOKEN_TTL_SECONDS: '86400' } })
    onTestFinished(() => local.close())
    const alice = await newPlayer(local, 'Alice')
    const bob = await newPlayer(local, 'Bob')
    const id = await createQuest(local, alice, { duration: 'P1D', reward: { experience: 100, money: 50 } })

    const a = (await join(local, alice, id)).json()
    const b = (await join(local, bob, id)).json()
    // Joined Monday 10:00 for a day: the DAILY habit's windows of 2 and 3 March, the WEEKLY one's of Monday 2 March.
    // 3 completions cap the payout at 60 experience and 30 money (the reward is 100 and 50).
    expect(a).toMatchObject({
      status: 'IN_PROGRESS', window: { from: '2026-03-02T10:00:00', to: '2026-03-03T10:00:00' }, timeZone: 'UTC',
      habits: [{ habitId: 'read', required: 2, done: 0 }, { habitId: 'run', required: 1, done: 0 }],
      required: 3, done: 0, percent: 0, payout: { experience: 60, money: 30 },
    })

    // Day one: Alice does both, Bob only reads.
    expect((await attend(local, alice, copyOf(a, 'read'), '2026-03-02T11:00:00')).statusCode).toBe(204)
    expect((await attend(local, alice, copyOf(a, 'run'), '2026-03-02T12:00:00')).statusCode).toBe(204)
    expect((await attend(local, bob, copyOf(b, 'read'), '2026-03-02T11:00:00')).statusCode).toBe(204)
    await local.settle()
    expect(await progress(local, alice, id)).toMatchObject({ status: 'IN_PROGRESS', required: 3, done: 2, percent: 66,
      habits: [{ habitId: 'read', required: 2, done: 1 }, { habitId: 'run', required: 1, done: 1 }] })
    expect(await progress(local, bob, id)).toMatchObject({ status: 'IN_PROGRESS', done: 1, percent: 33 })
    const listed = (await local.inject({ url: questUrl(id, '/participants'), headers: bob.auth })).json()
    expect(listed.items.map((x: { avatarId: string; done: number }) => [x.avatarId, x.done])).toEqual([[alice.avatarId, 2], [bob.avatarId, 1]])

    // Two habit completions so far: 10 experience and 2 money each.
    const before = await avatarOf(local, alice)
    expect(before.level.currentExperience).toBe(20)
    expect(before.money.amount).toBe(104)

    // Day two, 08:00: Alice's last required completion.
    c.set(new Date('2026-03-03T08:00:00Z'))
    await signIn(local, alice)
    await signIn(local, bob)
    expect((await attend(local, alice, copyOf(a, 'read'), '2026-03-03T08:00:00')).statusCode).toBe(204)
    await local.settle()
    await local.settle()
    expect(await progress(local, alice, id)).toMatchObject({ status: 'COMPLETED', done: 3, percent: 100 })
    // The habit pays 11 experience (a streak of 2) and 2 money; the quest 60 and 30, once.
    let after = await avatarOf(local, alice)
    expect(after.level.currentExperience).toBe(20 + 11 + 60)
    expect(after.money.amount).toBe(104 + 2 + 30)
    // Every quest event delivered again changes nothing.
    await local.database.db.execute(sql`update quest.outbox set published_at = null`)
    await local.settle()
    after = await avatarOf(local, alice)
    expect(after.level.currentExperience).toBe(91)
    expect(after.money.amount).toBe(136)

    // Bob's window closes at 10:00; within the grace period the job leaves him running...
    c.set(new Date('2026-03-03T10:01:00Z'))
    await signIn(local, bob)
    // ...and a completion recorded after the close does not count, though its window was a required one.
    expect((await attend(local, bob, copyOf(b, 'run'), '2026-03-02T23:00:00')).statusCode).toBe(204)
    await local.settle()
    await local.runJob(EXPIRE_JOB)
    expect(await progress(local, bob, id)).toMatchObject({ status: 'IN_PROGRESS', done: 1 })

    c.set(new Date('2026-03-03T11:00:00Z'))
    await signIn(local, bob)
    await local.runJob(EXPIRE_JOB)
    await local.settle()
    expect(await progress(local, bob, id)).toMatchObject({ status: 'EXPIRED', done: 1, required: 3 })
    // Told in his inbox (QuestExpired), once, however often the job runs.
    await local.runJob(EXPIRE_JOB)
    await local.settle()
    const inbox = (await local.inject({ url: `/api/v1/avatars/${bob.avatarId}/notifications`, headers: bob.auth })).json()
    expect(inbox.items.filter((n: { type: string }) => n.type === 'QUEST_EXPIRED')).toEqual([
      expect.objectContaining({ title: 'Quest expired', data: { questId: id, done: 1, required: 3 } }),
    ])
    const bobs = await habitsOf(local, bob)
    expect(bobs.map((h) => [h.title, h.associatedQuestId]).sort()).toEqual([['Read 20 pages', null], ['Run 5 km', null]])
    // Bob earned only his two habit completions; no quest reward.
    const bobAvatar = await avatarOf(local, bob)
    expect(bobAvatar.level.currentExperience).toBe(20)
    expect(bobAvatar.money.amount).toBe(104)
    // Completed copies keep their link; the job changes nothing for Alice.
    expect((await habitsOf(local, alice)).map((h) => h.associatedQuestId)).toEqual([id, id])
    expect(await progress(local, alice, id)).toMatchObject({ status: 'COMPLETED' })
  })

  test('a reward above the ceiling pays exactly the ceiling', async ({ onTestFinished }) => {
    const c = new ManualClock(new Date('2026-03-05T00:00:00Z'))
    const local = await buildTestApp({ clock: c })
    onTestFinished(() => local.close())
    const p = await newPlayer(local)
    // Joined at midnight for a day: one DAILY window, so the ceiling is 20 experience and 10 money.
    const id = await createQuest(local, p, { duration: 'P1D', habits: [READ], reward: { experience: 100_000, money: 100_000 } })
    const joined = (await join(local, p, id)).json()
    expect(joined).toMatchObject({ required: 1, payout: { experience: 20, money: 10 } })
    expect((await local.inject({ url: questUrl(id, '/reward'), headers: p.auth })).json()).toEqual({ experience: 100_000, money: 100_000 })
    await attend(local, p, copyOf(joined, 'read'), '2026-03-05T00:30:00')
    await local.settle()
    expect(await progress(local, p, id)).toMatchObject({ status: 'COMPLETED' })
    const a = await avatarOf(local, p)
    // 10 + 20 experience; 100 + 2 + 10 money
    expect(a.level.currentExperience).toBe(30)
    expect(a.money.amount).toBe(112)
  })
})

describe("a quest in the avatar's day", () => {
  test('an avatar in Tokyo with days from 04:00 joins at 02:00: its window and required days are its own, and each can be done in time', async ({ onTestFinished }) => {
    // Monday 2 March 2026, 12:00 in Tokyo (UTC+9).
    const c = new ManualClock(new Date('2026-03-02T03:00:00Z'))
    const local = await buildTestApp({ clock: c, env: { ACCESS_TOKEN_TTL_SECONDS: '86400' } })
    onTestFinished(() => local.close())
    const p = await newPlayer(local)
    const settings = await local.inject({
      method: 'PATCH', url: `/api/v1/avatars/${p.avatarId}/settings`, headers: p.auth, payload: { timeZone: 'Asia/Tokyo', dayStartHour: 4 },
    })
    expect(settings.statusCode, settings.body).toBe(200)
    const on = async (utc: string) => {
      c.set(new Date(utc))
      await signIn(local, p)
    }
    // Wednesday 4 March, 02:00 in Tokyo: the avatar's day is still 3 March.
    await on('2026-03-03T17:00:00Z')
    const id = await createQuest(local, p, { duration: 'P2D', habits: [READ] })
    const joined = (await join(local, p, id)).json()
    // [4 March 02:00, 6 March 02:00) in Tokyo: the days 3, 4 and 5 March (the last until 6 March 04:00);
    // 6 March begins at 04:00, after the end, so it is not required. 3 completions: 60 experience, 30 money.
    expect(joined).toMatchObject({
      status: 'IN_PROGRESS', timeZone: 'Asia/Tokyo', window: { from: '2026-03-04T02:00:00', to: '2026-03-06T02:00:00' },
      habits: [{ habitId: 'read', required: 3, done: 0 }], required: 3, payout: { experience: 60, money: 30 },
    })
    const read = copyOf(joined, 'read')
    const ok = async (at: string) => expect((await attend(local, p, read, at)).statusCode, at).toBe(204)
    const done = async () => {
      await local.settle()
      return (await progress(local, p, id)).done
    }

    // 02:30 on 4 March counts for 3 March, the first required day.
    await on('2026-03-03T17:30:00Z')
    await ok('2026-03-04T02:30:00')
    expect(await done()).toBe(1)
    // Noon on 4 March.
    await on('2026-03-04T03:00:00Z')
    await ok('2026-03-04T12:00:00')
    expect(await done()).toBe(2)
    // 01:30 on 6 March, half an hour before the end, is still 5 March: the last one.
    await on('2026-03-05T16:30:00Z')
    await ok('2026-03-06T01:30:00')
    expect(await done()).toBe(3)
    await local.settle()
    expect(await progress(local, p, id)).toMatchObject({ status: 'COMPLETED', required: 3, done: 3, percent: 100 })
    // Three habit completions at 2 money each, and the quest's 30.
    expect((await avatarOf(local, p)).money.amount).toBe(100 + 3 * 2 + 30)
  })
})

describe('flexible schedules in a quest', () => {
  const windowStarts = async (a: TestApp, p: Player, habitId: string, from: string, to: string) => {
    const res = await a.inject({ url: `/api/v1/habits/${habitId}/windows?from=${from}&to=${to}`, headers: p.auth })
    expect(res.statusCode, res.body).toBe(200)
    return res.json().items.map((w: { start: string }) => w.start) as string[]
  }

  test('two done weeks of a 2-a-week habit and every 3-day window: the reward is paid once the last is in', async ({ onTestFinished }) => {
    // Wednesday 4 March 2026, 10:00 UTC.
    const c = new ManualClock(new Date('2026-03-04T10:00:00Z'))
    const local = await buildTestApp({ clock: c, env: { ACCESS_TOKEN_TTL_SECONDS: '86400' } })
    onTestFinished(() => local.close())
    const p = await newPlayer(local)
    const id = await createQuest(local, p, { duration: 'P7D', reward: { experience: 20, money: 500 }, habits: [GYM, CALL] })
    const joined = (await join(local, p, id)).json()
    // Until Wednesday 11 March 10:00: the weeks from Monday 2 and Monday 9 March; the 3-day windows from
    // 4, 7 and 10 March (the last runs past the end). 5 required completions cap the money at 50.
    expect(joined).toMatchObject({
      status: 'IN_PROGRESS', window: { from: '2026-03-04T10:00:00', to: '2026-03-11T10:00:00' },
      habits: [{ habitId: 'gym', required: 2, done: 0 }, { habitId: 'call', required: 3, done: 0 }],
      required: 5, done: 0, payout: { experience: 20, money: 50 },
    })
    const gym = copyOf(joined, 'gym')
    const call = copyOf(joined, 'call')
    const copies = await habitsOf(local, p)
    expect(copies.find((h) => h.id === gym)).toMatchObject({ recurrence: { type: 'TIMES_PER_WEEK', timesPerWeek: 2, everyNDays: null }, associatedQuestId: id })
    expect(copies.find((h) => h.id === call)).toMatchObject({ recurrence: { type: 'EVERY_N_DAYS', everyNDays: 3, timesPerWeek: null }, associatedQuestId: id })
    // The copy's windows are the ones the quest counts.
    expect(await windowStarts(local, p, call, '2026-03-04', '2026-03-13')).toEqual(['2026-03-04', '2026-03-07', '2026-03-10'])

    const on = async (instant: string) => {
      c.set(new Date(`${instant}Z`))
      await signIn(local, p)
    }
    const done = async () => {
      await local.settle()
      return (await progress(local, p, id)).habits.map((h: { done: number }) => h.done)
    }
    const ok = async (habitId: string, date: string) => expect((await attend(local, p, habitId, date)).statusCode, `${habitId} ${date}`).toBe(204)

    // Wednesday: the first of two this week leaves its week short (not counted); the 3-day window from 4 March is done.
    await ok(gym, '2026-03-04T11:00:00')
    await ok(call, '2026-03-04T12:00:00')
    expect(await done()).toEqual([0, 1])
    // Thursday: the second makes the first week done.
    await on('2026-03-05T10:00:00')
    await ok(gym, '2026-03-05T09:00:00')
    expect(await done()).toEqual([1, 1])
    await on('2026-03-08T10:00:00')
    await ok(call, '2026-03-08T09:00:00')
    expect(await done()).toEqual([1, 2])
    // Tuesday 10 March: Monday's visit (entered a day late) leaves the second week short; the window from 10 March is done.
    await on('2026-03-10T10:00:00')
    await ok(gym, '2026-03-09T18:00:00')
    await ok(call, '2026-03-10T09:00:00')
    expect(await done()).toEqual([1, 3])
    expect(await progress(local, p, id)).toMatchObject({ status: 'IN_PROGRESS', required: 5, done: 4, percent: 80 })
    // Six habit completions so far, 2 money each.
    expect((await avatarOf(local, p)).money.amount).toBe(100 + 6 * 2)

    await ok(gym, '2026-03-10T09:30:00')
    expect(await done()).toEqual([2, 3])
    await local.settle()
    expect(await progress(local, p, id)).toMatchObject({ status: 'COMPLETED', required: 5, done: 5, percent: 100 })
    // The last completion's 2 and the quest's 50, once, even when every quest event is delivered again.
    expect((await avatarOf(local, p)).money.amount).toBe(112 + 2 + 50)
    await local.database.db.execute(sql`update quest.outbox set published_at = null`)
    await local.settle()
    expect((await avatarOf(local, p)).money.amount).toBe(164)
  })

  test('an EVERY_N_DAYS copy counts its windows from the avatar\'s day of the join, as the quest does', async ({ onTestFinished }) => {
    const c = new ManualClock(new Date('2026-03-02T12:00:00Z'))
    const local = await buildTestApp({ clock: c, env: { ACCESS_TOKEN_TTL_SECONDS: '86400' } })
    onTestFinished(() => local.close())
    const p = await newPlayer(local)
    const settings = await local.inject({ method: 'PATCH', url: `/api/v1/avatars/${p.avatarId}/settings`, headers: p.auth, payload: { dayStartHour: 4 } })
    expect(settings.statusCode, settings.body).toBe(200)
    // Wednesday 4 March, 02:00 UTC: the avatar's day, starting at 04:00, is still 3 March.
    c.set(new Date('2026-03-04T02:00:00Z'))
    await signIn(local, p)
    const id = await createQuest(local, p, { duration: 'P3D', habits: [CALL] })
    const joined = (await join(local, p, id)).json()
    // [4 March 02:00, 7 March 02:00): the 3-day windows from 3 March (04:00) and 6 March (04:00).
    expect(joined).toMatchObject({ window: { from: '2026-03-04T02:00:00', to: '2026-03-07T02:00:00' }, habits: [{ habitId: 'call', required: 2 }], required: 2 })
    const call = copyOf(joined, 'call')
    // The copy's windows are those: its first is the window of the day of the join, 3 March.
    expect(await windowStarts(local, p, call, '2026-03-01', '2026-03-10')).toEqual(['2026-03-03', '2026-03-06', '2026-03-09'])
    // 03:00 on 4 March is still 3 March: the first window.
    expect((await attend(local, p, call, '2026-03-04T03:00:00')).statusCode).toBe(204)
    await local.settle()
    expect(await progress(local, p, id)).toMatchObject({ required: 2, done: 1 })
    // 01:00 on 7 March is 6 March, an hour before the end: the second.
    c.set(new Date('2026-03-07T01:00:00Z'))
    await signIn(local, p)
    expect((await attend(local, p, call, '2026-03-07T01:00:00')).statusCode).toBe(204)
    await local.settle()
    expect(await progress(local, p, id)).toMatchObject({ status: 'COMPLETED', required: 2, done: 2 })
  })
})

describe('a join cut short by a crash', () => {
  /**
   * Makes the chosen statement fail `times` times from its `nth` run (a sequence is not rolled back
   * with its transaction). The value is read once: BETWEEN would evaluate nextval twice.
   */
  async function failOnce(a: TestApp, name: string, trigger: string, nth: number, times = 1) {
    await a.database.db.execute(sql.raw(`create sequence ${name}_seq`))
    await a.database.db.execute(sql.raw(`create function ${name}() returns trigger language plpgsql as $$
      declare n bigint := nextval('${name}_seq');
      begin if n between ${nth} and ${nth + times - 1} then raise exception 'injected failure'; end if; return new; end $$`))
    await a.database.db.execute(sql.raw(`create trigger fail_once ${trigger} for each row execute function ${name}()`))
  }

  test('failing on the second copy: the retry, or the recovery job, ends with exactly one copy of each habit', async ({ onTestFinished }) => {
    const c = new ManualClock(new Date('2026-03-02T10:00:00Z'))
    const local = await buildTestApp({ clock: c, env: { ACCESS_TOKEN_TTL_SECONDS: '86400' } })
    onTestFinished(() => local.close())
    const p = await newPlayer(local)
    const q = await newPlayer(local)
    const id = await createQuest(local, p)
    // The second habit insert from now on fails, once; over HTTP (split services) the quest's
    // call to tracking is itself retried twice, so there it fails for those attempts too.
    await failOnce(local, 'tracking.fail_second_insert', 'before insert on tracking.habits', 2, 1 + callRetries)

    const crashed = await join(local, p, id)
    // In one process the failure is the quest's own (500); over HTTP tracking's failure makes it a 502.
    expect(crashed.statusCode).toBe(callRetries > 0 ? 502 : 500)
    expect(crashed.headers['content-type']).toMatch(/^application\/problem\+json/)
    expect(await habitsOf(local, p)).toHaveLength(1)

    const retried = await join(local, p, id)
    expect(retried.statusCode, retried.body).toBe(200)
    expect((await join(local, p, id)).statusCode).toBe(200)
    const copies = await habitsOf(local, p)
    expect(copies.map((h) => h.title).sort()).toEqual(['Read 20 pages', 'Run 5 km'])
    expect(copies.every((h) => h.associatedQuestId === id)).toBe(true)
    expect(copies.map((h) => h.id).sort()).toEqual(retried.json().habits.map((h: { copyHabitId: string }) => h.copyHabitId).sort())

    // Without a retry, the recovery job finishes the join a minute later.
    await local.database.db.execute(sql`alter sequence tracking.fail_second_insert_seq restart`)
    // The first join made the first copy; q's join now fails on its second insert again.
    expect((await join(local, q, id)).statusCode).toBe(callRetries > 0 ? 502 : 500)
    expect(await habitsOf(local, q)).toHaveLength(1)
    c.advance(2 * 60_000)
    await signIn(local, q)
    await local.runJob(FINISH_JOINS_JOB)
    expect((await habitsOf(local, q)).map((h) => h.title).sort()).toEqual(['Read 20 pages', 'Run 5 km'])
  })

  test('failing after tracking made every copy: the retry makes none again', async ({ onTestFinished }) => {
    const local = await buildTestApp()
    onTestFinished(() => local.close())
    const p = await newPlayer(local)
    const id = await createQuest(local, p)
    // Recording that the copies exist (the first participation update) fails, once.
    await failOnce(local, 'quest.fail_first_update', 'before update on quest.participations', 1)
    expect((await join(local, p, id)).statusCode).toBe(500)
    expect(await habitsOf(local, p)).toHaveLength(2)
    const retried = await join(local, p, id)
    expect(retried.statusCode, retried.body).toBe(200)
    const copies = await habitsOf(local, p)
    expect(copies).toHaveLength(2)
    expect(copies.map((h) => h.id).sort()).toEqual(retried.json().habits.map((h: { copyHabitId: string }) => h.copyHabitId).sort())
  })
})
