import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { addDays, dayOf, localNow, nextWindow, windowContaining, type Recurrence } from '../../../platform/time/index.js'
import { BeforeFirstWindow, DayAlreadyCompleted, InvalidRecurrence, WindowAlreadyCompleted } from './errors.js'
import * as rules from './habit.js'
import { newHabit, type Habit } from './habit.js'
import * as fields from './habit-fields.js'
import { judgeMissedWindows } from './missed-windows.js'
import {
  changeSettings, checkSettings, currentSettings, defaultHistory, frameOf, hasEnded, settingsFor, todayOf, windowEnd, type DaySettings, type SettingsEntry,
} from './settings.js'

const base = { id: 'h', avatarId: 'a', ownerId: 'o', title: 'T', description: '', tags: [], ownTimeZone: null, associatedQuestId: null }
const utc = defaultHistory()
const at = (iso: string) => new Date(iso)
const make = (recurrence: Recurrence, today = '2026-03-02', restDays: Habit['restDays'] = []) => newHabit({ ...base, recurrence, restDays }, today, utc)
/** Settings changed on `day` (in force for the windows after it). */
const changedOn = (day: string, change: Partial<DaySettings>, history: SettingsEntry[] = utc) => changeSettings(history, { ...currentSettings(history), ...change }, day)

/** Attends in order, each at its own instant (UTC wall clock unless the settings say otherwise). */
function attendAll(h: Habit, history: SettingsEntry[], times: string[]) {
  const slots = new Set<string>()
  const out: rules.Attendance[] = []
  for (const t of times) {
    const a = rules.attend(h, history, slots, t, at(`${t}Z`))
    slots.add(a.slot)
    out.push(a)
    h = a.habit
  }
  return { habit: h, slots, attendances: out }
}

const judge = (h: Habit, history: SettingsEntry[], slots: ReadonlySet<string>, now: string) => judgeMissedWindows(h, history, slots, at(now), 400)

describe('TIMES_PER_WEEK', () => {
  const thrice: Recurrence = { type: 'TIMES_PER_WEEK', timesPerWeek: 3 }

  test('each completion is rewarded; the week is done at the third; one a day; none past done', () => {
    const h = make(thrice)
    const { habit, slots, attendances } = attendAll(h, utc, ['2026-03-02T08:00:00', '2026-03-04T08:00:00', '2026-03-06T08:00:00'])
    expect(attendances.map((a) => [a.windowCompleted, a.streak, a.reward.experience])).toEqual([[false, 1, 10], [false, 1, 10], [true, 1, 10]])
    expect(habit).toMatchObject({ lastCompletedWindowStart: '2026-03-02', streak: 1 })
    expect(() => rules.attend(make(thrice), utc, new Set(['2026-03-02']), '2026-03-02T20:00:00', at('2026-03-02T21:00:00Z'))).toThrow(DayAlreadyCompleted)
    expect(() => rules.attend(habit, utc, slots, '2026-03-07T08:00:00', at('2026-03-07T09:00:00Z'))).toThrow(WindowAlreadyCompleted)
  })

  test('the streak counts done weeks; a week ending short is one missed window', () => {
    const week1 = ['2026-03-02T08:00:00', '2026-03-03T08:00:00', '2026-03-04T08:00:00']
    const week2 = ['2026-03-09T08:00:00', '2026-03-10T08:00:00', '2026-03-11T08:00:00']
    const { habit, slots } = attendAll(make(thrice), utc, [...week1, ...week2, '2026-03-16T08:00:00', '2026-03-17T08:00:00'])
    expect(habit.streak).toBe(2)
    const r = judge(habit, utc, slots, '2026-03-23T00:00:00Z')
    expect(r.judged).toEqual([{ window: { start: '2026-03-16', end: '2026-03-23' }, outcome: 'MISSED' }])
    expect(rules.currentStreak(r.habit, utc, at('2026-03-23T00:00:00Z'))).toBe(0)
  })

  test('bounds: 0 or 8 times a week, and fields of other types, are refused', () => {
    expect(() => fields.toRecurrence('TIMES_PER_WEEK', { timesPerWeek: 0 })).toThrow(InvalidRecurrence)
    expect(() => fields.toRecurrence('TIMES_PER_WEEK', { timesPerWeek: 8 })).toThrow(InvalidRecurrence)
    expect(() => fields.toRecurrence('TIMES_PER_WEEK', { timesPerWeek: 3, dayOfWeek: 'MONDAY' })).toThrow(/dayOfWeek/)
    expect(() => fields.toRecurrence('DAILY', { everyNDays: 3 })).toThrow(/everyNDays/)
    expect(() => fields.toRecurrence('EVERY_N_DAYS', { everyNDays: 1 })).toThrow(InvalidRecurrence)
    expect(() => fields.toRecurrence('EVERY_N_DAYS', { everyNDays: 366 })).toThrow(InvalidRecurrence)
  })
})

describe('EVERY_N_DAYS', () => {
  test('windows of N days from the habit\'s first day; the next recurrence after a completion', () => {
    const h = make(fields.toRecurrence('EVERY_N_DAYS', { everyNDays: 3 }), '2026-03-02')
    expect(h.recurrence).toEqual({ type: 'EVERY_N_DAYS', everyNDays: 3, anchor: '2026-03-02' })
    expect(h).toMatchObject({ firstWindowStart: '2026-03-02', missCheckFrom: '2026-03-05', missCheckAt: at('2026-03-08T00:00:00Z') })
    const { habit, slots } = attendAll(h, utc, ['2026-03-04T08:00:00', '2026-03-05T08:00:00'])
    expect(habit.streak).toBe(2)
    expect(rules.nextRecurrenceDate(habit, utc)).toBe('2026-03-08T00:00:00')
    expect(judge(habit, utc, slots, '2026-03-11T00:00:00Z').judged.map((j) => j.window)).toEqual([{ start: '2026-03-08', end: '2026-03-11' }])
  })
})

describe('not-due windows: rest days and vacations', () => {
  test('rest days are not due, are recorded NOT_DUE, and the streak carries over them', () => {
    // 7 and 8 March 2026 are a Saturday and a Sunday; completing a rest day is rewarded and counts.
    const h = make({ type: 'DAILY' }, '2026-03-05', ['SATURDAY', 'SUNDAY'])
    const { habit, slots, attendances } = attendAll(h, utc, ['2026-03-05T08:00:00', '2026-03-06T08:00:00', '2026-03-07T08:00:00', '2026-03-09T08:00:00'])
    expect(attendances.map((a) => [a.streak, a.reward.experience])).toEqual([[1, 10], [2, 11], [3, 12], [4, 13]])
    expect(judge(habit, utc, slots, '2026-03-10T00:00:00Z').judged).toEqual([{ window: { start: '2026-03-08', end: '2026-03-09' }, outcome: 'NOT_DUE' }])
    expect(rules.currentStreak(habit, utc, at('2026-03-11T12:00:00Z'))).toBe(0)
    expect(rules.currentStreak(habit, utc, at('2026-03-10T12:00:00Z'))).toBe(4)
  })

  test('only DAILY habits rest, never all week; a change governs the windows from tomorrow', () => {
    expect(() => fields.restDaysOf('WEEKLY', ['MONDAY'])).toThrow(/DAILY/)
    expect(() => fields.restDaysOf('DAILY', ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY', 'SUNDAY'])).toThrow(/every day/)
    expect(fields.restDaysOf('DAILY', ['SUNDAY', 'MONDAY', 'SUNDAY'])).toEqual(['MONDAY', 'SUNDAY'])
    // Made a rest day on Friday 6 March itself: that day stays due; from Saturday on, Fridays rest.
    const h = rules.changeRestDays(make({ type: 'DAILY' }, '2026-03-02'), ['FRIDAY'], '2026-03-06')
    expect(rules.isDue(h, utc, { start: '2026-03-06', end: '2026-03-07' })).toBe(true)
    expect(rules.isDue(h, utc, { start: '2026-03-13', end: '2026-03-14' })).toBe(false)
  })

  test('a vacation holds whole windows only, and not one already under way when it was set', () => {
    const h = make({ type: 'DAILY' }, '2026-03-02')
    const history = changedOn('2026-03-04', { vacation: { from: '2026-03-04', to: '2026-03-06' } })
    expect(rules.isDue(h, history, { start: '2026-03-04', end: '2026-03-05' })).toBe(true) // set that day
    expect(rules.isDue(h, history, { start: '2026-03-05', end: '2026-03-06' })).toBe(false)
    expect(rules.isDue(h, history, { start: '2026-03-07', end: '2026-03-08' })).toBe(true)
    const weekly = make({ type: 'WEEKLY', dayOfWeek: 'MONDAY' }, '2026-03-02')
    expect(rules.isDue(weekly, history, { start: '2026-03-09', end: '2026-03-16' })).toBe(true)
  })

  test('vacation bounds: at most 90 days, not ending before it starts', () => {
    const now = currentSettings(utc)
    expect(checkSettings(now, { vacation: { from: '2026-01-01', to: '2026-03-31' } }).vacation).toEqual({ from: '2026-01-01', to: '2026-03-31' })
    expect(() => checkSettings(now, { vacation: { from: '2026-01-01', to: '2026-04-01' } })).toThrow(/90 days/)
    expect(() => checkSettings(now, { vacation: { from: '2026-03-02', to: '2026-03-01' } })).toThrow(/before it starts/)
    expect(() => checkSettings(now, { timeZone: 'Mars/Olympus' })).toThrow(/IANA/)
    expect(() => checkSettings(now, { dayStartHour: 24 })).toThrow(/0 to 23/)
  })
})

describe('streak freezes', () => {
  test('a frozen window is passed over: the shown streak holds, and a later completion continues the run', () => {
    const { habit, slots } = attendAll(make({ type: 'DAILY' }), utc, ['2026-03-02T08:00:00', '2026-03-03T08:00:00'])
    expect(rules.currentStreak(habit, utc, at('2026-03-05T12:00:00Z'))).toBe(0)
    const frozen = rules.freezeWindow(habit, utc, slots, '2026-03-04')
    expect(rules.currentStreak(frozen, utc, at('2026-03-05T12:00:00Z'))).toBe(2)
    expect(rules.attend(frozen, utc, slots, '2026-03-05T08:00:00', at('2026-03-05T09:00:00Z')).streak).toBe(3)
  })
})

describe('the day start and changes of settings', () => {
  test('with days starting at 04:00, a completion at 01:30 counts for the day before', () => {
    const history = changedOn('2026-02-01', { dayStartHour: 4 })
    const a = rules.attend(make({ type: 'DAILY' }, '2026-03-02'), history, new Set(), '2026-03-03T01:30:00', at('2026-03-03T02:00:00Z'))
    expect(a.window.start).toBe('2026-03-02')
  })

  test('a window under way ends no earlier than the settings it started with said', () => {
    const w = { start: '2026-03-02', end: '2026-03-03' }
    // On 2 March, the avatar moves from Pago Pago (UTC−11) to Kiritimati (UTC+14): there it is already 3 March.
    const history = changedOn('2026-03-02', { timeZone: 'Pacific/Kiritimati' }, changedOn('2026-01-01', { timeZone: 'Pacific/Pago_Pago' }))
    expect(hasEnded(history, null, w, at('2026-03-02T12:00:00Z'))).toBe(false) // Kiritimati: 3 March 02:00
    expect(hasEnded(history, null, w, at('2026-03-03T11:00:00Z'))).toBe(true) // Pago Pago: 3 March 00:00
    // The next window is the new zone's.
    expect(hasEnded(history, null, { start: '2026-03-03', end: '2026-03-04' }, at('2026-03-03T10:00:00Z'))).toBe(true)
  })
})

describe('the instant the next window to judge ends (what the missed-window job waits for)', () => {
  test("in the habit's zone and the avatar's day start; a start the clock skips is moved forward by the gap", () => {
    const tokyo4 = changedOn('2026-01-01', { timeZone: 'Asia/Tokyo', dayStartHour: 4 })
    // The first window is 2 March's; the next, 3 March's, ends on 4 March at 04:00 in Tokyo (UTC+9).
    expect(newHabit({ ...base, recurrence: { type: 'DAILY' } }, '2026-03-02', tokyo4).missCheckAt).toEqual(at('2026-03-03T19:00:00Z'))
    // A habit with its own zone: 04:00 in New York (UTC−5).
    const own = newHabit({ ...base, recurrence: { type: 'DAILY' }, ownTimeZone: 'America/New_York' }, '2026-03-02', tokyo4)
    expect(own.missCheckAt).toEqual(at('2026-03-04T09:00:00Z'))
    // New York springs forward on 8 March from 02:00 to 03:00: a day starting at 02:00 starts at 03:00 EDT (UTC−4).
    const ny2 = changedOn('2026-01-01', { timeZone: 'America/New_York', dayStartHour: 2 })
    expect(newHabit({ ...base, recurrence: { type: 'DAILY' } }, '2026-03-06', ny2).missCheckAt).toEqual(at('2026-03-08T07:00:00Z'))
    // A weekly window ends with its week: Monday 16 March 02:00 EDT.
    expect(newHabit({ ...base, recurrence: { type: 'WEEKLY', dayOfWeek: 'MONDAY' } }, '2026-03-04', ny2).missCheckAt).toEqual(at('2026-03-16T06:00:00Z'))
  })

  test('a change of settings while the window runs moves its end only later; the job judges it from that instant', () => {
    const tokyo = changedOn('2026-01-01', { timeZone: 'Asia/Tokyo' })
    const h = newHabit({ ...base, recurrence: { type: 'DAILY' } }, '2026-03-02', tokyo)
    expect(h.missCheckAt).toEqual(at('2026-03-03T15:00:00Z')) // 4 March 00:00 in Tokyo
    // On 3 March the avatar moves to New York (from 4 March on): 3 March's window ends by New York's clock too.
    const west = changedOn('2026-03-03', { timeZone: 'America/New_York' }, tokyo)
    expect(rules.missCheckAt(h, west)).toEqual(at('2026-03-04T05:00:00Z'))
    expect(judgeMissedWindows(h, west, new Set(), at('2026-03-04T04:59:59.999Z'), 400).judged).toEqual([])
    expect(judgeMissedWindows(h, west, new Set(), at('2026-03-04T05:00:00Z'), 400).judged).toHaveLength(1)
    // Moving east instead never cuts the window short: it ends by New York's clock still.
    const ny = changedOn('2026-01-01', { timeZone: 'America/New_York' })
    const fromNy = newHabit({ ...base, recurrence: { type: 'DAILY' } }, '2026-03-02', ny)
    expect(rules.missCheckAt(fromNy, changedOn('2026-03-03', { timeZone: 'Asia/Tokyo' }, ny))).toEqual(at('2026-03-04T05:00:00Z'))
  })

  test("is where the window's day-by-day reading turns, in every zone and day start (property)", () => {
    const zone = fc.constantFrom('UTC', 'Pacific/Kiritimati', 'Pacific/Pago_Pago', 'Europe/Berlin', 'America/New_York', 'Australia/Lord_Howe', 'Asia/Kolkata', 'Pacific/Apia')
    const frame = fc.record({ timeZone: zone, dayStartHour: fc.integer({ min: 0, max: 23 }) })
    const start = fc.oneof(fc.integer({ min: 0, max: 730 }).map((n) => addDays('2025-12-01', n)), fc.constantFrom('2011-12-28', '2011-12-29', '2011-12-30'))
    fc.assert(fc.property(frame, fc.option(frame), start, fc.integer({ min: 1, max: 3 }), (first, second, s, length) => {
      const w = { start: s, end: addDays(s, length) }
      let history = changedOn('2000-01-01', first)
      if (second) history = changeSettings(history, { ...second, vacation: null }, addDays(s, length - 1))
      // The settings it started with, and those of a change made while it ran.
      const frames = [settingsFor(history, w.start), ...history.filter((e) => e.from > w.start && e.from <= w.end)]
      const end = windowEnd(history, null, w)
      const ended = (t: Date) => frames.every((f) => dayOf(t, frameOf(f, null)) >= w.end)
      expect(ended(new Date(end.getTime() - 1))).toBe(false)
      expect(ended(end)).toBe(true)
    }), { numRuns: 300 })
  })
})

describe('each window is judged once and none is skipped, whatever the settings do (property)', () => {
  const zone = fc.constantFrom('UTC', 'Pacific/Kiritimati', 'Pacific/Pago_Pago', 'Europe/Berlin', 'America/New_York', 'Australia/Lord_Howe', 'Asia/Kolkata')
  const recurrence = fc.constantFrom<Recurrence>(
    { type: 'DAILY' }, { type: 'WEEKLY', dayOfWeek: 'WEDNESDAY' }, { type: 'MONTHLY', dayOfMonth: 31 },
    { type: 'TIMES_PER_WEEK', timesPerWeek: 2 }, { type: 'EVERY_N_DAYS', everyNDays: 3, anchor: '0001-01-01' },
  )
  const step = fc.record({
    hours: fc.integer({ min: 1, max: 60 }),
    change: fc.option(fc.record({ timeZone: zone, dayStartHour: fc.integer({ min: 0, max: 23 }), vacationIn: fc.option(fc.integer({ min: 0, max: 5 })) }), { freq: 3 }),
    attend: fc.boolean(),
  })

  test('over 90 days of job runs, attends and settings changes', () => {
    fc.assert(fc.property(recurrence, zone, fc.array(step, { minLength: 10, maxLength: 60 }), (r, startZone, steps) => {
      let history = changedOn('2026-01-01', { timeZone: startZone })
      let now = new Date('2026-03-02T12:00:00Z')
      let habit = newHabit({ ...base, recurrence: r }, todayOf(history, null, now), history)
      const slots = new Set<string>()
      const judged: string[] = []
      for (const s of steps) {
        now = new Date(now.getTime() + s.hours * 3_600_000)
        if (s.change) {
          const today = todayOf(history, null, now)
          const vacation = s.change.vacationIn === null ? null : { from: addDays(today, s.change.vacationIn), to: addDays(today, s.change.vacationIn + 4) }
          history = changeSettings(history, { timeZone: s.change.timeZone, dayStartHour: s.change.dayStartHour, vacation }, today)
          // As a change of settings does for each of the avatar's habits.
          habit = { ...habit, missCheckAt: rules.missCheckAt(habit, history) }
        }
        if (s.attend) {
          try {
            const a = rules.attend(habit, history, slots, localNow(now, frameOf(currentSettings(history), null)), now)
            slots.add(a.slot)
            habit = a.habit
          } catch (e) {
            if (!(e instanceof WindowAlreadyCompleted || e instanceof DayAlreadyCompleted || e instanceof BeforeFirstWindow)) throw e
          }
        }
        const j = judgeMissedWindows(habit, history, slots, now, 400)
        // The job claims the habit exactly when it has a window to judge, and leaves it waiting for a later instant.
        expect(habit.missCheckAt <= now).toBe(j.habit.missCheckFrom !== habit.missCheckFrom)
        expect(j.habit.missCheckAt > now).toBe(true)
        judged.push(...j.judged.map((x) => x.window.start))
        habit = j.habit
      }
      expect(new Set(judged).size).toBe(judged.length)
      // Every window from the second to the last one judged past is done or judged.
      const done = rules.doneWindows(habit.recurrence, slots)
      const seen = new Set(judged)
      for (let w = nextWindow(habit.recurrence, windowContaining(habit.recurrence, habit.firstWindowStart)); w.start < habit.missCheckFrom; w = nextWindow(habit.recurrence, w)) {
        expect(done.has(w.start) || seen.has(w.start), w.start).toBe(true)
      }
    }), { numRuns: 150 })
  })
})
