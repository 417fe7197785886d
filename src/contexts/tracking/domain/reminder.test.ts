import { describe, expect, test } from 'vitest'
import { windowInstants, type Recurrence } from '../../../platform/time/index.js'
import { InvalidReminderTime } from './errors.js'
import { newHabit, type Habit } from './habit.js'
import { checkReminder as check, habitFrame, reminderOf, reminderRecordsEndedBefore, reminderTimeOf, setReminder as set } from './reminder.js'
import { changeSettings, defaultHistory, type SettingsEntry } from './settings.js'

const base = { id: 'h', avatarId: 'a', ownerId: 'o', title: 'T', description: '', tags: [], associatedQuestId: null }
const at = (iso: string) => new Date(iso)
const utc = defaultHistory()
/** Settings with a day start (in force from before the habit was made). */
const startingAt = (dayStartHour: number): SettingsEntry[] => changeSettings(utc, { timeZone: 'UTC', dayStartHour, vacation: null }, '2026-01-01')
const setReminder = (h: Habit, reminderTime: string | null, now: Date, history = utc) => set(h, habitFrame(h, history), reminderTime, now)
const checkReminder = (h: Habit, completed: ReadonlySet<string>, now: Date, history = utc) => check(h, history, completed, now)

/** A habit made on Monday 2 March 2026 (local), its reminder set at `setAt`. */
function habit(recurrence: Recurrence, reminderTime: string, setAt: string, timeZone: string | null = null, history = utc): Habit {
  return setReminder(newHabit({ ...base, recurrence, ownTimeZone: timeZone }, '2026-03-02', history), reminderTime, at(setAt), history)
}
const daily = (reminderTime = '09:00', setAt = '2026-03-02T08:00:00Z', timeZone: string | null = null) => habit({ type: 'DAILY' }, reminderTime, setAt, timeZone)
const none = new Set<string>()

describe('the reminder time', () => {
  test('is HH:mm from 00:00 to 23:59, two digits each; null or absent means none', () => {
    expect(['00:00', '09:05', '23:59'].map((t) => reminderTimeOf(t))).toEqual(['00:00', '09:05', '23:59'])
    expect(reminderTimeOf(null)).toBeNull()
    expect(reminderTimeOf(undefined)).toBeNull()
    for (const bad of ['24:00', '9:30', '09:60', '09:30:00', '0930', '', ' 09:30', '09:30\n', '１９:３０']) {
      expect(() => reminderTimeOf(bad), bad).toThrow(InvalidReminderTime)
    }
  })

  test('a refusal names the field it was given as', () => {
    try {
      reminderTimeOf('25:00', '/reminderTime')
      expect.unreachable()
    } catch (e) {
      expect((e as InvalidReminderTime).errors).toEqual([{ path: '/reminderTime', message: 'must be a time of day HH:mm, 00:00–23:59' }])
    }
  })
})

describe('when a window is reminded of: its reminder time on its last day', () => {
  test('DAILY: the day itself', () => {
    expect(reminderOf({ start: '2026-03-02', end: '2026-03-03' }, '09:00')).toBe('2026-03-02T09:00:00')
  })

  test('WEEKLY on Monday: the Sunday before the next Monday', () => {
    const h = habit({ type: 'WEEKLY', dayOfWeek: 'MONDAY' }, '18:00', '2026-03-02T09:00:00Z')
    // The window of Monday 2 March runs to Monday 9 March: its last day is Sunday 8 March.
    expect(h.remindAt).toEqual(at('2026-03-08T18:00:00Z'))
    const c = checkReminder(h, none, at('2026-03-08T18:00:00Z'))
    expect(c.due).toEqual({ window: { start: '2026-03-02', end: '2026-03-09' }, reminderTime: '18:00' })
    expect(c.habit.remindAt).toEqual(at('2026-03-15T18:00:00Z'))
    // Before it (Saturday, or Sunday morning) nothing is due yet.
    expect(checkReminder(h, none, at('2026-03-08T17:59:59Z')).due).toBeNull()
  })

  test('MONTHLY on the 31st: the day before the month\'s last day', () => {
    const h = habit({ type: 'MONTHLY', dayOfMonth: 31 }, '20:00', '2026-03-02T09:00:00Z')
    // 2 March lies in the window from 28 February (February's last day) to 31 March: its last day is 30 March.
    expect(h.remindAt).toEqual(at('2026-03-30T20:00:00Z'))
    const c = checkReminder(h, none, at('2026-03-30T20:00:30Z'))
    expect(c.due?.window).toEqual({ start: '2026-02-28', end: '2026-03-31' })
    // The next window, 31 March to 30 April (April's last day), ends on 29 April.
    expect(c.habit.remindAt).toEqual(at('2026-04-29T20:00:00Z'))
  })
})

describe('the reminder job\'s decision', () => {
  test('not before the reminder time; at it, once the window is not completed; the next one on the next day', () => {
    const h = daily()
    expect(h.remindAt).toEqual(at('2026-03-02T09:00:00Z'))
    const early = checkReminder(h, none, at('2026-03-02T08:59:59Z'))
    expect(early.due).toBeNull()
    expect(early.habit.remindAt).toEqual(at('2026-03-02T09:00:00Z'))

    const due = checkReminder(h, none, at('2026-03-02T09:00:00Z'))
    expect(due.due).toEqual({ window: { start: '2026-03-02', end: '2026-03-03' }, reminderTime: '09:00' })
    expect(due.habit.remindAt).toEqual(at('2026-03-03T09:00:00Z'))
  })

  test('a completed window is not reminded of', () => {
    const c = checkReminder(daily(), new Set(['2026-03-02']), at('2026-03-02T09:00:00Z'))
    expect(c.due).toBeNull()
    expect(c.habit.remindAt).toEqual(at('2026-03-03T09:00:00Z'))
  })

  test('a job that ran late reminds of the current window only, never of windows gone', () => {
    const h = daily()
    // Down from 2 March 08:00 to 4 March 10:00: only the window of 4 March, whose time has come.
    const late = checkReminder(h, none, at('2026-03-04T10:00:00Z'))
    expect(late.due?.window).toEqual({ start: '2026-03-04', end: '2026-03-05' })
    expect(late.habit.remindAt).toEqual(at('2026-03-05T09:00:00Z'))
    // Back on 4 March at 08:00: the windows of 2 and 3 March are gone, the 4th's time is ahead.
    const before = checkReminder(h, none, at('2026-03-04T08:00:00Z'))
    expect(before.due).toBeNull()
    expect(before.habit.remindAt).toEqual(at('2026-03-04T09:00:00Z'))
  })

  test('a reminder set after its time of the day starts with the next window', () => {
    const h = daily('09:00', '2026-03-02T10:00:00Z')
    expect(h.remindAt).toEqual(at('2026-03-03T09:00:00Z'))
    // Even if asked on the day it was set, the window of 2 March gets none.
    expect(checkReminder(h, none, at('2026-03-02T10:00:00Z')).due).toBeNull()
    expect(checkReminder(h, none, at('2026-03-03T09:00:00Z')).due?.window.start).toBe('2026-03-03')
  })

  test('the time is the habit zone\'s wall clock', () => {
    // Berlin is UTC+1 in March before the change: 09:00 there is 08:00 UTC.
    const h = daily('09:00', '2026-03-02T06:00:00Z', 'Europe/Berlin')
    expect(h.remindAt).toEqual(at('2026-03-02T08:00:00Z'))
    expect(checkReminder(h, none, at('2026-03-02T07:59:00Z')).due).toBeNull()
    expect(checkReminder(h, none, at('2026-03-02T08:00:00Z')).due?.window.start).toBe('2026-03-02')
    // Just after midnight in Berlin (23:30 UTC) the current window is already 3 March's.
    expect(checkReminder(h, none, at('2026-03-02T23:30:00Z')).habit.remindAt).toEqual(at('2026-03-03T08:00:00Z'))
  })

  test('a time the clock skips (New York springs forward at 02:00 on 8 March 2026) reminds when the clock has passed it', () => {
    const h = daily('02:30', '2026-03-08T06:00:00Z', 'America/New_York')
    // 02:30 does not exist that night: 03:30 EDT, 07:30 UTC. The next day 02:30 EDT is 06:30 UTC.
    expect(h.remindAt).toEqual(at('2026-03-08T07:30:00Z'))
    const c = checkReminder(h, none, at('2026-03-08T07:30:00Z'))
    expect(c.due?.window.start).toBe('2026-03-08')
    expect(c.habit.remindAt).toEqual(at('2026-03-09T06:30:00Z'))
  })

  test('a habit without a reminder time is never reminded of and waits for nothing', () => {
    const h = newHabit({ ...base, recurrence: { type: 'DAILY' }, ownTimeZone: null }, '2026-03-02', utc)
    expect(h).toMatchObject({ reminderTime: null, remindAt: null })
    const c = checkReminder(h, none, at('2026-03-02T23:00:00Z'))
    expect(c.due).toBeNull()
    expect(c.habit.remindAt).toBeNull()
    expect(setReminder(daily(), null, at('2026-03-02T08:00:00Z'))).toMatchObject({ reminderTime: null, remindAt: null })
  })
})

describe('a day start and a not-due window', () => {
  test('with days starting at 04:00, a reminder at 01:00 falls in the small hours after the last day\'s date', () => {
    const history = startingAt(4)
    expect(reminderOf({ start: '2026-03-02', end: '2026-03-03' }, '01:00', 4)).toBe('2026-03-03T01:00:00')
    const h = habit({ type: 'DAILY' }, '01:00', '2026-03-02T05:00:00Z', null, history)
    // The day of 2 March runs from 04:00 on the 2nd to 04:00 on the 3rd: its 01:00 is on the 3rd.
    expect(h.remindAt).toEqual(at('2026-03-03T01:00:00Z'))
    expect(checkReminder(h, none, at('2026-03-03T01:00:00Z'), history).due?.window.start).toBe('2026-03-02')
  })

  test('a rest day has no reminder', () => {
    // 3 March 2026 is a Tuesday.
    const h: Habit = { ...daily('09:00', '2026-03-03T08:00:00Z'), restDays: ['TUESDAY'] }
    expect(checkReminder(h, none, at('2026-03-03T09:00:00Z')).due).toBeNull()
    expect(checkReminder(h, none, at('2026-03-04T09:00:00Z')).due?.window.start).toBe('2026-03-04')
  })
})

test('the event\'s window runs from its first day start to the one after its last day', () => {
  expect(windowInstants({ start: '2026-03-02', end: '2026-03-09' }, { timeZone: 'Europe/Berlin', dayStartHour: 0 }))
    .toEqual({ start: at('2026-03-01T23:00:00Z'), end: at('2026-03-08T23:00:00Z') })
})

test('records of windows that ended before yesterday (UTC) may go: they are over in every zone and for every day start', () => {
  expect(reminderRecordsEndedBefore(at('2026-03-05T01:00:00Z'))).toBe('2026-03-04')
})
