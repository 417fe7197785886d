/**
 * Quest habits on flexible schedules (TIMES_PER_WEEK, EVERY_N_DAYS): what a participant must do,
 * and when it is paid. Each test has an app and a clock of its own.
 */
import { sql } from 'drizzle-orm'
import { describe, expect, test } from 'vitest'
import { ManualClock } from '../src/platform/clock.js'
import { buildTestApp, type TestApp } from './support/app.js'
import { attend, avatarOf } from './support/habits.js'
import { newPlayer, signIn, type Player } from './support/players.js'
import { CALL, copyOf, createQuest, GYM, habitsOf, join, progress } from './support/quests.js'

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
