import { describe, expect, test } from 'vitest'
import { AttendInFuture, BeforeFirstWindow, InvalidRecurrence, WindowAlreadyCompleted } from './errors.js'
import * as rules from './habit.js'
import { newHabit, type Habit } from './habit.js'
import * as fields from './habit-fields.js'
import { habitTemplate, normalizeTags } from './habit-fields.js'
import { judgeMissedWindows } from './missed-windows.js'
import { experienceForStreak } from './rules.js'
import { defaultHistory } from './settings.js'

const base = { id: 'h', avatarId: 'a', ownerId: 'o', title: 'T', description: '', tags: [], ownTimeZone: null, associatedQuestId: null }
const utc = defaultHistory()
const daily = (today = '2026-03-02'): Habit => newHabit({ ...base, recurrence: { type: 'DAILY' } }, today, utc)
/** Local times here are UTC's. */
const instant = (local: string) => new Date(`${local.length === 10 ? `${local}T00:00:00` : local}Z`)
const attend = (h: Habit, slots: ReadonlySet<string>, attendedAt: string, now: string) => rules.attend(h, utc, slots, attendedAt, instant(now))
const currentStreak = (h: Habit, today: string) => rules.currentStreak(h, utc, instant(today))
const nextRecurrenceDate = (h: Habit) => rules.nextRecurrenceDate(h, utc)
const missed = (h: Habit, slots: ReadonlySet<string>, today: string) => {
  const r = judgeMissedWindows(h, utc, slots, instant(today), 400)
  return { habit: r.habit, missed: r.judged.filter((j) => j.outcome === 'MISSED').map((j) => j.window) }
}
const toRecurrence = (type: Parameters<typeof fields.toRecurrence>[0], dayOfWeek?: string | null, dayOfMonth?: number | null) => fields.toRecurrence(type, { dayOfWeek, dayOfMonth })

describe('recurrence from the contract fields', () => {
  test('each type takes only its own field', () => {
    expect(toRecurrence('DAILY', null, null)).toEqual({ type: 'DAILY' })
    expect(toRecurrence('WEEKLY', 'FRIDAY', undefined)).toEqual({ type: 'WEEKLY', dayOfWeek: 'FRIDAY' })
    expect(toRecurrence('MONTHLY', undefined, 31)).toEqual({ type: 'MONTHLY', dayOfMonth: 31 })
    expect(() => toRecurrence('WEEKLY', null, null)).toThrow(InvalidRecurrence)
    expect(() => toRecurrence('WEEKLY', 'MONDAY', 3)).toThrow(InvalidRecurrence)
    expect(() => toRecurrence('MONTHLY', null, 0)).toThrow(InvalidRecurrence)
    expect(() => toRecurrence('DAILY', 'MONDAY', null)).toThrow(InvalidRecurrence)
  })

  test('tags are trimmed and de-duplicated', () => {
    expect(normalizeTags([' a', 'a ', 'b'])).toEqual(['a', 'b'])
    expect(() => normalizeTags(['  '])).toThrow()
  })

  test('a template from elsewhere (a quest) is checked and normalised like a habit', () => {
    expect(habitTemplate({ title: ' Run ', tags: ['x', ' x'], recurrence: { type: 'WEEKLY', dayOfWeek: 'MONDAY', dayOfMonth: null } }))
      .toEqual({ title: 'Run', description: '', tags: ['x'], recurrence: { type: 'WEEKLY', dayOfWeek: 'MONDAY' } })
    expect(() => habitTemplate({ title: '  ', recurrence: { type: 'DAILY' } })).toThrow(/title/)
    expect(() => habitTemplate({ title: 'x'.repeat(201), recurrence: { type: 'DAILY' } })).toThrow(/title/)
    expect(() => habitTemplate({ title: 'T', description: 'd'.repeat(2001), recurrence: { type: 'DAILY' } })).toThrow(/description/)
    expect(() => habitTemplate({ title: 'T', recurrence: { type: 'MONTHLY', dayOfMonth: 0 } })).toThrow(InvalidRecurrence)
  })
})

describe('attending', () => {
  test('the reward grows by one per streak step up to +10', () => {
    expect([1, 2, 3, 11, 12, 50].map(experienceForStreak)).toEqual([10, 11, 12, 20, 20, 20])
  })

  test('a first completion makes a streak of 1 and moves the next recurrence date', () => {
    const a = attend(daily(), new Set(), '2026-03-02T07:00:00', '2026-03-02T08:00:00')
    expect(a.window).toEqual({ start: '2026-03-02', end: '2026-03-03' })
    expect(a).toMatchObject({ streak: 1, reward: { experience: 10, money: 2 } })
    expect(a.habit).toMatchObject({ lastAttendedAt: '2026-03-02T07:00:00', streak: 1, bestStreak: 1 })
    expect(nextRecurrenceDate(a.habit)).toBe('2026-03-03T00:00:00')
  })

  test('refusals: a completed window, before the first window, more than a day ahead', () => {
    const h = daily()
    expect(() => attend(h, new Set(['2026-03-02']), '2026-03-02T09:00:00', '2026-03-02T10:00:00')).toThrow(WindowAlreadyCompleted)
    expect(() => attend(h, new Set(), '2026-03-01T09:00:00', '2026-03-02T10:00:00')).toThrow(BeforeFirstWindow)
    expect(() => attend(h, new Set(), '2026-03-03T10:00:01', '2026-03-02T10:00:00')).toThrow(AttendInFuture)
    expect(attend(h, new Set(), '2026-03-03T10:00:00', '2026-03-02T10:00:00').window.start).toBe('2026-03-03')
  })

  test('back-filling a gap joins two runs', () => {
    // Completed 2, 3 and 5 March; attending the 4th makes a run of 4 ending on the 5th.
    const h: Habit = { ...daily(), lastCompletedWindowStart: '2026-03-05', streak: 1, bestStreak: 2 }
    const a = attend(h, new Set(['2026-03-02', '2026-03-03', '2026-03-05']), '2026-03-04T12:00:00', '2026-03-05T12:00:00')
    expect(a.streak).toBe(3) // 2, 3, 4 March end at the attended window
    expect(a.reward).toEqual({ experience: 12, money: 2 })
    expect(a.habit).toMatchObject({ lastCompletedWindowStart: '2026-03-05', streak: 4, bestStreak: 4 })
  })

  test('the shown streak drops to 0 once a window passes uncompleted', () => {
    const h: Habit = { ...daily(), lastCompletedWindowStart: '2026-03-04', streak: 3 }
    expect(currentStreak(h, '2026-03-04')).toBe(3)
    expect(currentStreak(h, '2026-03-05')).toBe(3) // the 5th may still be completed
    expect(currentStreak(h, '2026-03-06')).toBe(0)
  })
})

describe('missed windows', () => {
  test('the first window is never judged; ended uncompleted windows are, once', () => {
    const h = daily('2026-03-02')
    expect(h.missCheckFrom).toBe('2026-03-03')
    // On the 6th: windows of the 3rd, 4th and 5th have ended; the 4th was completed.
    const r = missed(h, new Set(['2026-03-04']), '2026-03-06')
    expect(r.missed.map((w) => w.start)).toEqual(['2026-03-03', '2026-03-05'])
    expect(r.habit).toMatchObject({ missCheckFrom: '2026-03-06', missCheckAt: instant('2026-03-07') })
    expect(missed(r.habit, new Set(), '2026-03-06').missed).toEqual([])
  })

  test('weekly habits are judged when their week ends', () => {
    const h = newHabit({ ...base, recurrence: { type: 'WEEKLY', dayOfWeek: 'MONDAY' } }, '2026-03-04', utc)
    // First window [2 Mar, 9 Mar); the next [9, 16) is judged from the 16th.
    expect(h).toMatchObject({ firstWindowStart: '2026-03-02', missCheckFrom: '2026-03-09', missCheckAt: instant('2026-03-16') })
    expect(missed(h, new Set(), '2026-03-15').missed).toEqual([])
    expect(missed(h, new Set(), '2026-03-16').missed).toEqual([{ start: '2026-03-09', end: '2026-03-16' }])
  })
})
