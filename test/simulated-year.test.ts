/**
 * A simulated year: one avatar in Berlin with days starting at 03:00, habits of every
 * schedule (a DAILY one resting on Sundays, TIMES_PER_WEEK, EVERY_N_DAYS, WEEKLY, MONTHLY), a
 * ten-day vacation and streak freezes, driven day by day on the test clock: each morning the
 * missed-window job, each noon the planned completions. A ledger computed by hand from the plan
 * (the game's numbers, not its code) must equal what the API shows at the end: every window's
 * fate, and the avatar's experience, money, health and freezes. At most one window is planned
 * missed per day, so which habit a freeze covers does not depend on the job's order.
 */
import { Temporal } from 'temporal-polyfill'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { MISSED_WINDOWS_JOB } from '../src/contexts/tracking/index.js'
import { ManualClock } from '../src/platform/clock.js'
import { addDays, nextWindow, weekdayOf, windowContaining, type Recurrence, type Window } from '../src/platform/time/index.js'
import { buildTestApp, type TestApp } from './support/app.js'
import { attend, avatarOf, newHabit } from './support/habits.js'
import { newPlayer, type Player } from './support/players.js'

const ZONE = 'Europe/Berlin'
const DAY_START = 3
const FIRST = '2026-01-05' // a Monday
const DAYS = 365
const LAST = addDays(FIRST, DAYS - 1)
const VACATION = { from: addDays(FIRST, 160), to: addDays(FIRST, 169) }
const VACATION_SET_ON = addDays(FIRST, 150)
const MISS_RATE = 0.1

const instant = (local: string) => new Date(Temporal.PlainDateTime.from(local).toZonedDateTime(ZONE).epochMilliseconds)

/** A small seeded generator (mulberry32): the same plan every run. */
function random(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

interface Plan {
  key: string
  body: Record<string, unknown>
  recurrence: Recurrence
  restDays: string[]
  /** Completions a window needs. */
  needs: number
}
const PLANS: Plan[] = [
  { key: 'daily', body: { recurrenceType: 'DAILY', restDays: ['SUNDAY'] }, recurrence: { type: 'DAILY' }, restDays: ['SUNDAY'], needs: 1 },
  { key: 'thrice', body: { recurrenceType: 'TIMES_PER_WEEK', timesPerWeek: 3 }, recurrence: { type: 'TIMES_PER_WEEK', timesPerWeek: 3 }, restDays: [], needs: 3 },
  { key: 'every4', body: { recurrenceType: 'EVERY_N_DAYS', everyNDays: 4 }, recurrence: { type: 'EVERY_N_DAYS', everyNDays: 4, anchor: FIRST }, restDays: [], needs: 1 },
  { key: 'friday', body: { recurrenceType: 'WEEKLY', dayOfWeek: 'FRIDAY' }, recurrence: { type: 'WEEKLY', dayOfWeek: 'FRIDAY' }, restDays: [], needs: 1 },
  { key: 'monthly', body: { recurrenceType: 'MONTHLY', dayOfMonth: 31 }, recurrence: { type: 'MONTHLY', dayOfMonth: 31 }, restDays: [], needs: 1 },
]

type Fate = 'COMPLETED' | 'MISSED' | 'FROZEN' | 'NOT_DUE'
interface PlannedWindow { habit: Plan; window: Window; due: boolean; attendOn: string[]; first: boolean; fate?: Fate; done: number }

/** Which windows are completed (on which days) and which are missed: at most one planned miss a day. */
function planYear(): PlannedWindow[] {
  const rand = random(17)
  const missOn = new Set<string>()
  const out: PlannedWindow[] = []
  for (const habit of PLANS) {
    let first = true
    for (let w = windowContaining(habit.recurrence, FIRST); w.start <= LAST; w = nextWindow(habit.recurrence, w)) {
      const days: string[] = []
      for (let d = w.start; d < w.end; d = addDays(d, 1)) if (d >= FIRST && d <= LAST) days.push(d)
      const onVacation = (d: string) => d >= VACATION.from && d <= VACATION.to
      // The vacation was set before it began: a window wholly inside it is not due.
      const due = !(w.start >= VACATION.from && addDays(w.end, -1) <= VACATION.to) && !habit.restDays.includes(weekdayOf(w.start))
      const open = days.filter((d) => !onVacation(d))
      let attendOn: string[] = []
      const miss = !first && due && w.end <= LAST && !missOn.has(w.end) && rand() < MISS_RATE
      if (miss) missOn.add(w.end)
      if (due && open.length >= habit.needs) {
        const pool = [...open]
        const count = miss ? Math.floor(rand() * habit.needs) : habit.needs
        for (let i = 0; i < count; i++) attendOn.push(pool.splice(Math.floor(rand() * pool.length), 1)[0]!)
        attendOn = attendOn.sort()
      }
      if (!miss && due && attendOn.length < habit.needs && w.end <= LAST && !first) missOn.add(w.end)
      out.push({ habit, window: w, due, attendOn, first, done: 0 })
      first = false
    }
  }
  return out
}

/** The avatar by the game's numbers (DESIGN §6 and §9.3). */
class Ledger {
  level = 1
  experience = 0
  money = 100
  health = 100
  maxHealth = 100
  freezes = 0

  reward(streak: number): void {
    this.money += 2
    this.experience += 10 + Math.min(streak - 1, 10)
    while (this.experience >= 50 * this.level + 50) {
      this.experience -= 50 * this.level + 50
      this.level++
      this.maxHealth += 10
      this.health = this.maxHealth
      this.money += 20
    }
  }

  damage(amount: number): void {
    this.health -= amount
    if (this.health > 0) return
    this.experience = 0
    this.money -= Math.floor(this.money / 10)
    this.health = this.maxHealth
  }
}

/** Done windows before `w` of the same habit, over frozen and not-due ones, plus one. */
function streakAt(windows: PlannedWindow[], w: PlannedWindow): number {
  const mine = windows.filter((x) => x.habit === w.habit && x.window.start < w.window.start).reverse()
  let n = 1
  for (const x of mine) {
    if (x.done >= x.habit.needs) n++
    else if (!(x.fate === 'FROZEN' || !x.due)) break
  }
  return n
}

let app: TestApp
const clock = new ManualClock(instant(`${addDays(FIRST, -1)}T12:00:00`))
beforeAll(async () => {
  app = await buildTestApp({ clock })
})
afterAll(() => app.close())

test('a year of mixed schedules, a vacation and freezes: every window judged once, damage and rewards as the ledger says', async () => {
  const p: Player = await newPlayer(app)
  // Settings govern the windows after today: the habits start tomorrow, Monday 5 January.
  expect((await app.inject({ method: 'PATCH', url: `/api/v1/avatars/${p.avatarId}/settings`, headers: p.auth, payload: { timeZone: ZONE, dayStartHour: DAY_START } })).statusCode).toBe(200)
  clock.set(instant(`${FIRST}T0${DAY_START}:30:00`))
  p.auth = { authorization: `Bearer ${await app.issueToken(p.userId, 'player')}` }
  const ids = new Map<Plan, string>()
  for (const plan of PLANS) ids.set(plan, await newHabit(app, p, { title: plan.key, ...plan.body }))

  const windows = planYear()
  const ledger = new Ledger()
  for (let i = 0; i < DAYS; i++) {
    const day = addDays(FIRST, i)
    // Morning: the windows that ended at this day's start are judged.
    clock.set(instant(`${day}T0${DAY_START}:30:00`))
    // The clock outruns any token's life: a fresh one at each step.
    p.auth = { authorization: `Bearer ${await app.issueToken(p.userId, 'player')}` }
    await app.runJob(MISSED_WINDOWS_JOB)
    await app.settle()
    for (const w of windows.filter((x) => x.window.end === day && !x.first)) {
      if (w.done >= w.habit.needs) continue
      if (!w.due) w.fate = 'NOT_DUE'
      else if (ledger.freezes > 0) {
        ledger.freezes--
        w.fate = 'FROZEN'
      } else {
        w.fate = 'MISSED'
        ledger.damage(5)
      }
    }
    if (day === VACATION_SET_ON) {
      const res = await app.inject({ method: 'PATCH', url: `/api/v1/avatars/${p.avatarId}/settings`, headers: p.auth, payload: { vacation: VACATION } })
      expect(res.statusCode, res.body).toBe(200)
    }
    // Noon: the planned completions.
    clock.set(instant(`${day}T12:00:00`))
    p.auth = { authorization: `Bearer ${await app.issueToken(p.userId, 'player')}` }
    for (const w of windows.filter((x) => x.attendOn.includes(day))) {
      const res = await attend(app, p, ids.get(w.habit)!, `${day}T12:00:00`)
      expect(res.statusCode, `${w.habit.key} ${day}: ${res.body}`).toBe(204)
      const streak = streakAt(windows, w)
      w.done++
      ledger.reward(streak)
      if (w.done === w.habit.needs) {
        w.fate = 'COMPLETED'
        if (streak % 7 === 0 && ledger.freezes < 2) ledger.freezes++
      }
    }
    await app.settle()
  }

  p.auth = { authorization: `Bearer ${await app.issueToken(p.userId, 'player')}` }
  for (const plan of PLANS) {
    const mine = windows.filter((w) => w.habit === plan)
    const res = await app.inject({ url: `/api/v1/habits/${ids.get(plan)}/windows?from=${mine[0]!.window.start}&to=${addDays(LAST, 1)}`, headers: p.auth })
    expect(res.statusCode, res.body).toBe(200)
    const shown = res.json().items as { start: string; end: string; status: string }[]
    const starts = shown.map((w) => w.start)
    expect(new Set(starts).size, plan.key).toBe(starts.length)
    for (let i = 1; i < shown.length; i++) expect(shown[i]!.start).toBe(shown[i - 1]!.end)
    const ended = (list: { start: string; end: string; status?: string; fate?: Fate }[]) => list.filter((w) => w.end <= LAST)
    expect(ended(shown).map((w) => `${w.start} ${w.status}`), plan.key)
      .toEqual(ended(mine.map((w) => ({ ...w.window, fate: w.first && !w.fate ? 'COMPLETED' : w.fate }))).map((w) => `${w.start} ${w.fate}`))
  }
  const avatar = await avatarOf(app, p)
  expect({
    level: avatar.level.levelNumber, experience: avatar.level.currentExperience, money: avatar.money.amount, health: avatar.health.current,
    freezes: avatar.streakFreezes?.held,
  }).toEqual({ level: ledger.level, experience: ledger.experience, money: ledger.money, health: ledger.health, freezes: ledger.freezes })
  // The plan exercised what it is about.
  expect(windows.filter((w) => w.fate === 'FROZEN').length).toBeGreaterThan(0)
  expect(windows.filter((w) => w.fate === 'MISSED').length).toBeGreaterThan(0)
  expect(windows.filter((w) => w.fate === 'NOT_DUE' && w.window.start >= VACATION.from).length).toBeGreaterThan(0)
  // 365 days of a job, settles and check-ins: ~17 s alone, past a minute beside CI's other worker.
}, 180_000)
