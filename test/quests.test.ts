/**
 * Quests (DESIGN §6): making and changing one, its habit entries, who may do what, and joining and
 * leaving one.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { ManualClock } from '../src/platform/clock.js'
import { buildTestApp, type TestApp } from './support/app.js'
import { newGuild, joinGuild } from './support/guilds.js'
import { newPlayer, type Player } from './support/players.js'
import { CALL, copyOf, createQuest, GYM, habitsOf, join, questUrl, READ } from './support/quests.js'

// Monday 2 March 2026, 10:00 UTC.
const clock = new ManualClock(new Date('2026-03-02T10:00:00Z'))
let app: TestApp
beforeAll(async () => {
  app = await buildTestApp({ clock, env: { ACCESS_TOKEN_TTL_SECONDS: '86400' } })
})
afterAll(() => app.close())

const MISSING = '7d4a7c1e-6a5e-4c5e-9b1e-1d2c3b4a5f60'

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
    // The schema refuses it (one variant per recurrence type), naming the field, before the quest's own rules.
    expect(refused.json().errors).toEqual([{ path: 'body/habits/1/recurrence/timesPerWeek', message: 'must be null' }])
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
