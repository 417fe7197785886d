/**
 * Streak freezes and the daily cap on missed-habit damage, the avatar's side (DESIGN §9.3): the
 * Ice Crystal bought and used, and how an avatar settles the HabitMissed events tracking sends.
 * Those events are first written to tracking's outbox by hand, as a relay would find them, so the
 * avatar's rules (and a redelivery) are checked apart from the missed-window job; the last tests
 * go through tracking end to end: the job, the FROZEN window, a streak that earns a freeze.
 */
import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { MISSED_WINDOWS_JOB } from '../src/contexts/tracking/index.js'
import { ManualClock } from '../src/platform/clock.js'
import { newId } from '../src/platform/ids.js'
import { buildTestApp, type TestApp } from './support/app.js'
import { attend, avatarOf, newHabit } from './support/habits.js'
import { buy, marketplaceOf } from './support/marketplaces.js'
import { newPlayer, signIn, type Player } from './support/players.js'

// Monday 2 March 2026, 08:00 UTC.
const clock = new ManualClock(new Date('2026-03-02T08:00:00Z'))
let app: TestApp
beforeAll(async () => {
  app = await buildTestApp({ clock, env: { ACCESS_TOKEN_TTL_SECONDS: '86400' } })
})
afterAll(() => app.close())

const CRYSTAL = 'Ice Crystal'
const post = (p: Player, rest: string, payload: object) =>
  app.inject({ method: 'POST', url: `/api/v1/avatars/${p.avatarId}${rest}`, headers: p.auth, payload })
const useCrystal = (p: Player) => post(p, '/inventory/items/use', { name: CRYSTAL })

/** A player at level 3, where the Ice Crystal is sold, with money for `crystals` of them. */
async function crystalBuyer(crystals: number): Promise<{ p: Player; marketplaceId: string }> {
  const p = await newPlayer(app)
  // 250 experience: level 1 → 3 (100 + 150), +40 money: 140.
  expect((await post(p, '/experience/grant', { amount: 250 })).statusCode).toBe(204)
  const short = crystals * 60 - 140
  if (short > 0) expect((await post(p, '/money/earn', { amount: short })).statusCode).toBe(204)
  return { p, marketplaceId: await marketplaceOf(app, p) }
}

async function buyAndUse(p: Player, marketplaceId: string) {
  const bought = await buy(app, p, marketplaceId, CRYSTAL)
  expect(bought.statusCode, bought.body).toBe(204)
  return useCrystal(p)
}

/** A player holding `held` streak freezes, from Ice Crystals. */
async function playerWithFreezes(held: number): Promise<Player> {
  const { p, marketplaceId } = await crystalBuyer(held)
  for (let i = 0; i < held; i++) expect((await buyAndUse(p, marketplaceId)).statusCode).toBe(200)
  return p
}

interface Missed { eventId: string; habitId: string; windowStart: string; windowEnd: string }

/**
 * A HabitMissed of a DAILY habit's window (penalty 5), as the missed-window job writes it: from its
 * day to the next (exclusive), on which its penalty falls.
 */
async function habitMissed(p: Player, windowStart: string, windowEnd: string, habitId = newId()): Promise<Missed> {
  const eventId = newId()
  const payload = { habitId, avatarId: p.avatarId, questId: null, windowStart, windowEnd, damage: 5 }
  await app.database.db.execute(sql`insert into tracking.outbox (id, type, aggregate_id, version, occurred_at, payload)
    values (${eventId}, 'HabitMissed', ${habitId}, 2, now(), ${JSON.stringify(payload)}::jsonb)`)
  return { eventId, habitId, windowStart, windowEnd }
}

/** The relay crashed after publishing these and before marking them: they go out again. */
async function deliverAgain(events: Missed[]): Promise<void> {
  for (const e of events) await app.database.db.execute(sql`update tracking.outbox set published_at = null where id = ${e.eventId}`)
  await app.settle()
}

async function notifications(p: Player): Promise<{ type: string; body: string; data: Record<string, unknown> }[]> {
  const res = await app.inject({ url: `/api/v1/avatars/${p.avatarId}/notifications?limit=100`, headers: p.auth })
  expect(res.statusCode, res.body).toBe(200)
  return res.json().items
}

describe('the Ice Crystal', () => {
  test('sold from level 3 for 60; using it adds a streak freeze; at 2 held it is refused and kept', async () => {
    const { p, marketplaceId } = await crystalBuyer(3)
    const fresh = await avatarOf(app, p)
    expect(fresh.streakFreezes).toEqual({ held: 0, max: 2 })
    expect(fresh.money.amount).toBe(180)

    const first = await buyAndUse(p, marketplaceId)
    expect(first.statusCode, first.body).toBe(200)
    expect(first.json()).toMatchObject({ health: { current: 120, max: 120 }, streakFreezes: { held: 1, max: 2 } })
    let a = await avatarOf(app, p)
    expect(a.streakFreezes).toEqual({ held: 1, max: 2 })
    expect(a.money.amount).toBe(120)
    expect(a.inventory.items).toEqual([])

    expect((await buyAndUse(p, marketplaceId)).json().streakFreezes).toEqual({ held: 2, max: 2 })

    const third = await buyAndUse(p, marketplaceId)
    expect(third.statusCode).toBe(400)
    expect(third.headers['content-type']).toMatch(/^application\/problem\+json/)
    expect(third.json()).toMatchObject({ type: '/problems/freezes-full', status: 400, title: 'Streak freezes full' })
    expect(third.json().detail).toMatch(/2 streak freezes/)
    a = await avatarOf(app, p)
    expect(a.streakFreezes).toEqual({ held: 2, max: 2 })
    expect(a.money.amount).toBe(0)
    expect(a.inventory.items).toMatchObject([{ type: 'CONSUMABLE', name: CRYSTAL, effect: 'FREEZE' }])
  })

  test('below level 3 it is not sold', async () => {
    const p = await newPlayer(app)
    const res = await buy(app, p, await marketplaceOf(app, p), CRYSTAL)
    expect(res.statusCode).toBe(400)
    expect((await avatarOf(app, p)).money.amount).toBe(100)
  })
})

describe('missed windows, as the avatar settles them', () => {
  test('a freeze held takes the penalty instead of health, once, however often the event is delivered', async () => {
    const p = await playerWithFreezes(2)
    const first = await habitMissed(p, '2026-03-02', '2026-03-03')
    await app.settle()
    let a = await avatarOf(app, p)
    expect(a.health.current).toBe(120)
    expect(a.streakFreezes).toEqual({ held: 1, max: 2 })

    // Delivered again, it takes no second freeze (nor damage).
    await deliverAgain([first])
    a = await avatarOf(app, p)
    expect(a.health.current).toBe(120)
    expect(a.streakFreezes.held).toBe(1)

    // The next takes the last freeze; with none left, the one after costs its 5. Delivered again, nothing more.
    const second = await habitMissed(p, '2026-03-02', '2026-03-03')
    await app.settle()
    const damaged = await habitMissed(p, '2026-03-02', '2026-03-03')
    await app.settle()
    await deliverAgain([first, second, damaged])
    a = await avatarOf(app, p)
    expect(a.health.current).toBe(115)
    expect(a.streakFreezes.held).toBe(0)

    // Newest first, one each; the level-up that made the crystals affordable is older.
    const told = (await notifications(p)).filter((n) => n.type !== 'LEVEL_UP')
    expect(told.map((n) => n.type)).toEqual(['HABIT_MISSED', 'STREAK_FROZEN', 'STREAK_FROZEN'])
    expect(told[2]).toMatchObject({
      data: { habitId: first.habitId, windowStart: '2026-03-02', windowEnd: '2026-03-03', freezesHeld: 1 },
      body: 'A window of one of your habits ended without a completion: a streak freeze took the blow and the streak is kept (1 freeze left).',
    })
    expect(told[1]).toMatchObject({ data: { habitId: second.habitId, freezesHeld: 0 } })
    expect(told[0]).toMatchObject({ data: { habitId: damaged.habitId, damage: 5 } })
  })

  test('six windows missed on one day cost 25 in all; the next day has its own 25', async () => {
    const p = await newPlayer(app)
    for (let i = 0; i < 6; i++) await habitMissed(p, '2026-03-02', '2026-03-03')
    await app.settle()
    expect((await avatarOf(app, p)).health.current).toBe(75)
    const told = await notifications(p)
    expect(told.map((n) => n.data.damage).sort()).toEqual([0, 5, 5, 5, 5, 5])
    expect(told.find((n) => n.data.damage === 0)?.body)
      .toBe("A window of one of your habits ended without a completion: 0 damage: the day's cap of 25 is reached.")

    await habitMissed(p, '2026-03-03', '2026-03-04')
    await app.settle()
    expect((await avatarOf(app, p)).health.current).toBe(70)
  })
})

describe('through the missed-window job', () => {
  interface WindowItem { start: string; end: string; status: string }
  async function windows(p: Player, id: string, from: string, to: string): Promise<WindowItem[]> {
    const res = await app.inject({ url: `/api/v1/habits/${id}/windows?from=${from}&to=${to}`, headers: p.auth })
    expect(res.statusCode, res.body).toBe(200)
    return res.json().items
  }
  /** Moves the clock, runs the missed-window job and lets its events (and what they cause) land. */
  async function judgeAt(iso: string, p: Player): Promise<void> {
    clock.set(new Date(iso))
    await signIn(app, p)
    await app.runJob(MISSED_WINDOWS_JOB)
    await app.settle()
  }

  test('a DAILY habit missed with a freeze held: no damage, one freeze used, the window FROZEN, the streak kept, STREAK_FROZEN told', async () => {
    clock.set(new Date('2026-03-02T08:00:00Z'))
    const p = await playerWithFreezes(1)
    const id = await newHabit(app, p)
    expect((await attend(app, p, id, '2026-03-02T08:00:00')).statusCode).toBe(204)
    await app.settle()
    // Tuesday's window is missed; it is judged once it has ended.
    await judgeAt('2026-03-04T00:30:00Z', p)
    const a = await avatarOf(app, p)
    expect(a.health.current).toBe(120)
    expect(a.streakFreezes).toEqual({ held: 0, max: 2 })
    expect((await windows(p, id, '2026-03-02', '2026-03-04')).map((w) => w.status)).toEqual(['COMPLETED', 'FROZEN'])
    const told = await notifications(p)
    expect(told.map((n) => n.type)).toContain('STREAK_FROZEN')
    expect(told.map((n) => n.type)).not.toContain('HABIT_MISSED')
    // The streak carries over the frozen window: Monday, (Tuesday frozen), Wednesday.
    expect((await attend(app, p, id, '2026-03-04T08:00:00')).statusCode).toBe(204)
    const h = (await app.inject({ url: `/api/v1/habits/${id}`, headers: p.auth })).json()
    expect(h.streak).toBe(2)
  })

  test('six daily habits all missed on one day cost 25 in all', async () => {
    clock.set(new Date('2026-03-02T08:00:00Z'))
    const p = await newPlayer(app)
    for (let i = 0; i < 6; i++) await newHabit(app, p, { title: `Habit ${i}` })
    // Monday's windows are the first (never penalised); Tuesday's six are missed.
    await judgeAt('2026-03-04T00:30:00Z', p)
    expect((await avatarOf(app, p)).health.current).toBe(75)
  })

  test('a streak of 7 days earns a streak freeze', async () => {
    clock.set(new Date('2026-03-02T08:00:00Z'))
    const p = await newPlayer(app)
    const id = await newHabit(app, p)
    for (let day = 2; day <= 7; day++) {
      clock.set(new Date(`2026-03-0${day}T09:00:00Z`))
      await signIn(app, p)
      expect((await attend(app, p, id, `2026-03-0${day}T08:00:00`)).statusCode).toBe(204)
    }
    await app.settle()
    expect((await avatarOf(app, p)).streakFreezes.held).toBe(0)
    clock.set(new Date('2026-03-08T09:00:00Z'))
    await signIn(app, p)
    expect((await attend(app, p, id, '2026-03-08T08:00:00')).statusCode).toBe(204)
    await app.settle()
    expect((await avatarOf(app, p)).streakFreezes.held).toBe(1)
  })
})
