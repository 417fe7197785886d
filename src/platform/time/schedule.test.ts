import { describe, expect, test } from 'vitest'
import {
  nextWindow, previousWindow, recurrenceFields, windowContaining, windowsEndedBetween, windowsOverlapping, type Recurrence, type Window,
} from './schedule.js'

// Calendar anchors used below, each worked out from a known date:
// 2026-03-02 is a Monday (so 2026-03-01 is a Sunday); 2026-11-22 is a Sunday, so
// 2026-11-23 and 2026-12-28 (35 days on) are Mondays and 2026-12-31 is a Thursday.
// 2024-01-01 is a Monday; January has 31 = 4·7 + 3 days, so 2024-02-01 and 2024-02-29 are Thursdays.

const daily: Recurrence = { type: 'DAILY' }
const weekly = (dayOfWeek: 'MONDAY' | 'WEDNESDAY' | 'THURSDAY' | 'SUNDAY'): Recurrence => ({ type: 'WEEKLY', dayOfWeek })
const monday = weekly('MONDAY')
const monthly = (dayOfMonth: number): Recurrence => ({ type: 'MONTHLY', dayOfMonth })
const w = (start: string, end: string): Window => ({ start, end })

describe('windows', () => {
  test('a daily window is the day itself', () => {
    expect(windowContaining(daily, '2026-03-02')).toEqual(w('2026-03-02', '2026-03-03'))
    expect(windowContaining(daily, '2024-02-29')).toEqual(w('2024-02-29', '2024-03-01'))
    expect(windowContaining(daily, '2026-12-31')).toEqual(w('2026-12-31', '2027-01-01'))
  })

  test('a weekly window starts on the latest chosen weekday, the day itself included', () => {
    expect(windowContaining(monday, '2026-03-02')).toEqual(w('2026-03-02', '2026-03-09')) // a Monday
    expect(windowContaining(monday, '2026-03-08')).toEqual(w('2026-03-02', '2026-03-09')) // the Sunday after
    expect(windowContaining(weekly('SUNDAY'), '2026-11-22')).toEqual(w('2026-11-22', '2026-11-29')) // a Sunday
    expect(windowContaining(weekly('SUNDAY'), '2026-11-21')).toEqual(w('2026-11-15', '2026-11-22')) // the Saturday before
  })

  test('weekly windows cross month ends, leap days and year ends', () => {
    // Monday 2 March 2026 − 5 days = Wednesday 25 February.
    expect(windowContaining(weekly('WEDNESDAY'), '2026-03-02')).toEqual(w('2026-02-25', '2026-03-04'))
    // 2024-02-29 is a Thursday; Wednesday 6 March is six days later.
    expect(windowContaining(weekly('THURSDAY'), '2024-03-06')).toEqual(w('2024-02-29', '2024-03-07'))
    // Thursday 31 December 2026 belongs to the week from Monday 28 December.
    expect(windowContaining(monday, '2026-12-31')).toEqual(w('2026-12-28', '2027-01-04'))
    expect(windowContaining(monday, '2027-01-03')).toEqual(w('2026-12-28', '2027-01-04'))
    expect(windowContaining(monday, '2027-01-04')).toEqual(w('2027-01-04', '2027-01-11'))
  })

  test('a monthly 31st falls on the last day of shorter months', () => {
    expect(windowContaining(monthly(31), '2023-02-10')).toEqual(w('2023-01-31', '2023-02-28'))
    expect(windowContaining(monthly(31), '2023-02-28')).toEqual(w('2023-02-28', '2023-03-31'))
    expect(windowContaining(monthly(31), '2024-02-28')).toEqual(w('2024-01-31', '2024-02-29'))
    expect(windowContaining(monthly(31), '2024-02-29')).toEqual(w('2024-02-29', '2024-03-31'))
    expect(windowContaining(monthly(31), '2026-04-30')).toEqual(w('2026-04-30', '2026-05-31'))
  })

  test('a monthly 30th or 29th in February', () => {
    // March's 30th is after the 15th, so the window started on February's last day.
    expect(windowContaining(monthly(30), '2023-03-15')).toEqual(w('2023-02-28', '2023-03-30'))
    expect(windowContaining(monthly(30), '2024-03-01')).toEqual(w('2024-02-29', '2024-03-30'))
    expect(windowContaining(monthly(29), '2023-02-27')).toEqual(w('2023-01-29', '2023-02-28'))
    expect(windowContaining(monthly(29), '2023-02-28')).toEqual(w('2023-02-28', '2023-03-29'))
  })

  test('TIMES_PER_WEEK: the ISO week from Monday, whatever the count', () => {
    expect(windowContaining({ type: 'TIMES_PER_WEEK', timesPerWeek: 3 }, '2026-03-08')).toEqual(w('2026-03-02', '2026-03-09')) // a Sunday
    expect(windowContaining({ type: 'TIMES_PER_WEEK', timesPerWeek: 7 }, '2026-12-31')).toEqual(w('2026-12-28', '2027-01-04'))
  })

  test('EVERY_N_DAYS: windows of N days from the anchor, before it too, across a leap day', () => {
    const every3: Recurrence = { type: 'EVERY_N_DAYS', everyNDays: 3, anchor: '2024-02-27' }
    expect(windowContaining(every3, '2024-02-27')).toEqual(w('2024-02-27', '2024-03-01'))
    expect(windowContaining(every3, '2024-02-29')).toEqual(w('2024-02-27', '2024-03-01'))
    expect(windowContaining(every3, '2024-03-01')).toEqual(w('2024-03-01', '2024-03-04'))
    expect(windowContaining(every3, '2024-02-26')).toEqual(w('2024-02-24', '2024-02-27'))
    expect(windowContaining({ type: 'EVERY_N_DAYS', everyNDays: 365, anchor: '2026-01-01' }, '2027-01-01')).toEqual(w('2027-01-01', '2028-01-01'))
  })

  test('a monthly window on the 1st, and ones crossing the year end', () => {
    expect(windowContaining(monthly(1), '2026-03-01')).toEqual(w('2026-03-01', '2026-04-01'))
    expect(windowContaining(monthly(1), '2026-03-31')).toEqual(w('2026-03-01', '2026-04-01'))
    expect(windowContaining(monthly(15), '2026-01-03')).toEqual(w('2025-12-15', '2026-01-15'))
    expect(windowContaining(monthly(31), '2026-12-31')).toEqual(w('2026-12-31', '2027-01-31'))
  })

  test('next and previous windows chain without gaps', () => {
    expect(nextWindow(daily, w('2024-02-28', '2024-02-29'))).toEqual(w('2024-02-29', '2024-03-01'))
    expect(previousWindow(daily, w('2027-01-01', '2027-01-02'))).toEqual(w('2026-12-31', '2027-01-01'))
    expect(nextWindow(monday, w('2026-12-28', '2027-01-04'))).toEqual(w('2027-01-04', '2027-01-11'))
    expect(previousWindow(monday, w('2027-01-04', '2027-01-11'))).toEqual(w('2026-12-28', '2027-01-04'))
    // The 31st through 2024: Jan 31 → Feb 29 → Mar 31 → Apr 30.
    expect(nextWindow(monthly(31), w('2024-01-31', '2024-02-29'))).toEqual(w('2024-02-29', '2024-03-31'))
    expect(nextWindow(monthly(31), w('2024-02-29', '2024-03-31'))).toEqual(w('2024-03-31', '2024-04-30'))
    expect(previousWindow(monthly(31), w('2024-03-31', '2024-04-30'))).toEqual(w('2024-02-29', '2024-03-31'))
    expect(previousWindow(monthly(31), w('2024-02-29', '2024-03-31'))).toEqual(w('2024-01-31', '2024-02-29'))
    expect(previousWindow(monthly(15), w('2026-01-15', '2026-02-15'))).toEqual(w('2025-12-15', '2026-01-15'))
  })

  test('next then previous, and previous then next, come back to the same window', () => {
    const cases: [Recurrence, Window][] = [
      [daily, w('2026-12-31', '2027-01-01')],
      [monday, w('2026-12-28', '2027-01-04')],
      [monthly(31), w('2023-01-31', '2023-02-28')],
      [monthly(30), w('2024-02-29', '2024-03-30')],
    ]
    for (const [r, win] of cases) {
      expect(previousWindow(r, nextWindow(r, win)), `${r.type} ${win.start}`).toEqual(win)
      expect(nextWindow(r, previousWindow(r, win)), `${r.type} ${win.start}`).toEqual(win)
    }
  })

  test('a window asked for again is the same, and no caller can change it', () => {
    const first = windowContaining(monthly(31), '2024-02-10')
    expect(windowContaining(monthly(31), '2024-02-10')).toEqual(w('2024-01-31', '2024-02-29'))
    expect(() => {
      ;(first as { start: string }).start = '2024-01-01'
    }).toThrow(TypeError)
    expect(windowContaining(monthly(31), '2024-02-10')).toEqual(w('2024-01-31', '2024-02-29'))
    // the same day under another recurrence is another question
    expect(windowContaining(monthly(30), '2024-02-10')).toEqual(w('2024-01-30', '2024-02-29'))
    expect(windowContaining(monday, '2024-02-10')).toEqual(w('2024-02-05', '2024-02-12'))
  })

  test('a recurrence as flat fields: the fields that do not apply are null', () => {
    const none = { dayOfWeek: null, dayOfMonth: null, timesPerWeek: null, everyNDays: null }
    expect(recurrenceFields(daily)).toEqual({ type: 'DAILY', ...none })
    expect(recurrenceFields(monday)).toEqual({ type: 'WEEKLY', ...none, dayOfWeek: 'MONDAY' })
    expect(recurrenceFields(monthly(31))).toEqual({ type: 'MONTHLY', ...none, dayOfMonth: 31 })
    expect(recurrenceFields({ type: 'TIMES_PER_WEEK', timesPerWeek: 3 })).toEqual({ type: 'TIMES_PER_WEEK', ...none, timesPerWeek: 3 })
    expect(recurrenceFields({ type: 'EVERY_N_DAYS', everyNDays: 4, anchor: '2026-03-02' })).toEqual({ type: 'EVERY_N_DAYS', ...none, everyNDays: 4 })
  })
})

describe('spans of windows', () => {
  test('a one-day span joined at 10:00 overlaps two daily windows; joined at midnight, one (DESIGN)', () => {
    expect(windowsOverlapping(daily, '2026-03-02T10:00:00', '2026-03-03T10:00:00')).toEqual([
      w('2026-03-02', '2026-03-03'),
      w('2026-03-03', '2026-03-04'),
    ])
    expect(windowsOverlapping(daily, '2026-03-02T00:00:00', '2026-03-03T00:00:00')).toEqual([w('2026-03-02', '2026-03-03')])
  })

  test('span edges: the last second of a day, a fraction past midnight, an empty span', () => {
    expect(windowsOverlapping(daily, '2026-03-02T23:59:59', '2026-03-03T00:00:00')).toEqual([w('2026-03-02', '2026-03-03')])
    // ends one millisecond into 3 March, so it touches that day's window too
    expect(windowsOverlapping(daily, '2026-03-02T00:00:00', '2026-03-03T00:00:00.001')).toEqual([
      w('2026-03-02', '2026-03-03'),
      w('2026-03-03', '2026-03-04'),
    ])
    expect(windowsOverlapping(daily, '2026-03-02T10:00:00', '2026-03-02T10:00:00')).toEqual([])
  })

  test('a seven-day span overlaps two weekly windows unless it starts on the occurrence at midnight', () => {
    // Wed 4 March 10:00 to Wed 11 March 10:00: the windows from Mon 2 and Mon 9 March.
    expect(windowsOverlapping(monday, '2026-03-04T10:00:00', '2026-03-11T10:00:00')).toEqual([
      w('2026-03-02', '2026-03-09'),
      w('2026-03-09', '2026-03-16'),
    ])
    // Mon 2 March 00:00 to Mon 9 March 00:00: exactly one window.
    expect(windowsOverlapping(monday, '2026-03-02T00:00:00', '2026-03-09T00:00:00')).toEqual([w('2026-03-02', '2026-03-09')])
    // Over the year end: Thu 31 Dec 2026 to Thu 7 Jan 2027.
    expect(windowsOverlapping(monday, '2026-12-31T08:00:00', '2027-01-07T08:00:00')).toEqual([
      w('2026-12-28', '2027-01-04'),
      w('2027-01-04', '2027-01-11'),
    ])
  })

  test('monthly spans', () => {
    expect(windowsOverlapping(monthly(10), '2026-03-15T00:00:00', '2026-04-15T00:00:00')).toEqual([
      w('2026-03-10', '2026-04-10'),
      w('2026-04-10', '2026-05-10'),
    ])
    // All of February 2023 against the 31st: Jan 31 → Feb 28 → Mar 31.
    expect(windowsOverlapping(monthly(31), '2023-02-01T00:00:00', '2023-03-01T00:00:00')).toEqual([
      w('2023-01-31', '2023-02-28'),
      w('2023-02-28', '2023-03-31'),
    ])
  })

  test('windows that have ended, from the one holding the start date', () => {
    expect(windowsEndedBetween(daily, '2026-03-03', '2026-03-05')).toEqual([
      w('2026-03-03', '2026-03-04'),
      w('2026-03-04', '2026-03-05'),
    ])
    expect(windowsEndedBetween(daily, '2026-03-03', '2026-03-03')).toEqual([]) // the 3rd has not ended yet
    // from a Wednesday: its window began on Monday 9 March; the one ending on the 30th has not ended by the 23rd
    expect(windowsEndedBetween(monday, '2026-03-11', '2026-03-23')).toEqual([
      w('2026-03-09', '2026-03-16'),
      w('2026-03-16', '2026-03-23'),
    ])
    expect(windowsEndedBetween(monday, '2026-03-09', '2026-03-22')).toEqual([w('2026-03-09', '2026-03-16')])
    expect(windowsEndedBetween(monthly(31), '2023-01-31', '2023-04-30')).toEqual([
      w('2023-01-31', '2023-02-28'),
      w('2023-02-28', '2023-03-31'),
      w('2023-03-31', '2023-04-30'),
    ])
  })

  test('windows that have ended stop at the limit, 400 by default', () => {
    expect(windowsEndedBetween(daily, '2026-01-01', '2026-12-31', 3)).toEqual([
      w('2026-01-01', '2026-01-02'),
      w('2026-01-02', '2026-01-03'),
      w('2026-01-03', '2026-01-04'),
    ])
    // Two years of daily windows, cut at 400: the last starts 399 days after 2025-01-01,
    // i.e. 365 days to 2026-01-01 and 34 more to 4 February 2026.
    const capped = windowsEndedBetween(daily, '2025-01-01', '2027-01-01')
    expect(capped).toHaveLength(400)
    expect(capped[0]).toEqual(w('2025-01-01', '2025-01-02'))
    expect(capped[399]).toEqual(w('2026-02-04', '2026-02-05'))
  })
})
