/**
 * A quest run to its outcome (DESIGN §6): paid once when completed, expired with its copies kept,
 * counted in the avatar's own days. Each test has an app and a clock of its own.
 */
import { sql } from 'drizzle-orm'
import { describe, expect, test } from 'vitest'
import { EXPIRE_JOB } from '../src/contexts/quest/index.js'
import { ManualClock } from '../src/platform/clock.js'
import { buildTestApp } from './support/app.js'
import { attend, avatarOf } from './support/habits.js'
import { newPlayer, signIn } from './support/players.js'
import { copyOf, createQuest, habitsOf, join, progress, questUrl, READ } from './support/quests.js'

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

    // Each event carries its participation's version after the change: joined (1), copies made (2), then one
    // per completion counted (Alice's third completes it at 5; Bob's one at 3), and the expiry (Bob's 4).
    const eventsOf = async (participationId: string) => {
      const rows = await local.database.db.execute(sql`select type, version from quest.outbox where aggregate_id = ${participationId} order by seq`)
      return (rows as unknown as { rows: { type: string; version: number }[] }).rows.map((r) => [r.type, r.version])
    }
    expect(await eventsOf(a.id)).toEqual([['QuestCompleted', 5]])
    expect(await eventsOf(b.id)).toEqual([['QuestExpired', 4]])
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
