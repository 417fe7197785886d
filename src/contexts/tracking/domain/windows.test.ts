import { describe, expect, test } from 'vitest'
import {
  addDays, addHours, daysInMonth, isValidTimeZone, localDateTimeIn, nextWindow, parseLocalDateTime, previousWindow,
  weekdayOf, windowContaining, windowsEndedBetween, windowsOverlapping, type Recurrence,
} from './windows.js'

const daily: Recurrence = { type: 'DAILY' }
const monday: Recurrence = { type: 'WEEKLY', dayOfWeek: 'MONDAY' }
const monthly = (dayOfMonth: number): Recurrence => ({ type: 'MONTHLY', dayOfMonth })

describe('calendar arithmetic', () => {
  test('days in February follow the leap-year rules', () => {
    expect(daysInMonth(1900, 2)).toBe(28) // divisible by 100, not by 400
    expect(daysInMonth(2000, 2)).toBe(29) // divisible by 400
    expect(daysInMonth(2024, 2)).toBe(29)
    expect(daysInMonth(2026, 2)).toBe(28)
    expect(daysInMonth(2026, 4)).toBe(30)
    expect(daysInMonth(2026, 12)).toBe(31)
  })

  test('weekdays of known dates', () => {
    expect(weekdayOf('2026-11-22')).toBe('SUNDAY')
    expect(weekdayOf('2000-01-01')).toBe('SATURDAY')
    expect(weekdayOf('2026-03-02')).toBe('MONDAY')
  })

  test('adding days crosses months, leap days and years', () => {
    expect(addDays('2024-02-28', 1)).toBe('2024-02-29')
    expect(addDays('2023-02-28', 1)).toBe('2023-03-01')
    expect(addDays('2026-12-31', 1)).toBe('2027-01-01')
    expect(addDays('2026-01-01', -1)).toBe('2025-12-31')
  })

  test('adding hours to a wall-clock time', () => {
    expect(addHours('2026-03-02T08:00:00', 24)).toBe('2026-03-03T08:00:00')
    expect(addHours('2026-12-31T23:30:15', 1)).toBe('2027-01-01T00:30:15')
    expect(addHours('2024-02-28T12:00:00', 36)).toBe('2024-03-01T00:00:00')
  })
})

describe('windows', () => {
  test('a daily window is the day itself', () => {
    expect(windowContaining(daily, '2026-03-02')).toEqual({ start: '2026-03-02', end: '2026-03-03' })
  })

  test('a weekly window starts on the latest chosen weekday, the day itself included', () => {
    // 2 March 2026 is a Monday; 8 March a Sunday.
    expect(windowContaining(monday, '2026-03-02')).toEqual({ start: '2026-03-02', end: '2026-03-09' })
    expect(windowContaining(monday, '2026-03-08')).toEqual({ start: '2026-03-02', end: '2026-03-09' })
    expect(windowContaining({ type: 'WEEKLY', dayOfWeek: 'WEDNESDAY' }, '2026-03-02')).toEqual({ start: '2026-02-25', end: '2026-03-04' })
  })

  test('weekly windows cross month and year ends', () => {
    // 28 December 2026 is a Monday: its window runs into 2027.
    expect(windowContaining(monday, '2026-12-31')).toEqual({ start: '2026-12-28', end: '2027-01-04' })
    expect(windowContaining(monday, '2027-01-03')).toEqual({ start: '2026-12-28', end: '2027-01-04' })
  })

  test('a monthly 31st falls on the last day of shorter months', () => {
    expect(windowContaining(monthly(31), '2023-02-10')).toEqual({ start: '2023-01-31', end: '2023-02-28' })
    expect(windowContaining(monthly(31), '2023-02-28')).toEqual({ start: '2023-02-28', end: '2023-03-31' })
    expect(windowContaining(monthly(31), '2024-02-29')).toEqual({ start: '2024-02-29', end: '2024-03-31' })
    expect(windowContaining(monthly(30), '2024-03-01')).toEqual({ start: '2024-02-29', end: '2024-03-30' })
    expect(windowContaining(monthly(31), '2026-04-30')).toEqual({ start: '2026-04-30', end: '2026-05-31' })
  })

  test('a monthly window on the 1st, and one crossing the year end', () => {
    expect(windowContaining(monthly(1), '2026-03-01')).toEqual({ start: '2026-03-01', end: '2026-04-01' })
    expect(windowContaining(monthly(1), '2026-03-31')).toEqual({ start: '2026-03-01', end: '2026-04-01' })
    expect(windowContaining(monthly(15), '2026-01-03')).toEqual({ start: '2025-12-15', end: '2026-01-15' })
  })

  test('next and previous windows chain without gaps', () => {
    const w = windowContaining(monthly(31), '2023-01-31')
    const next = nextWindow(monthly(31), w)
    expect(next).toEqual({ start: '2023-02-28', end: '2023-03-31' })
    expect(previousWindow(monthly(31), next)).toEqual(w)
    expect(previousWindow(monday, { start: '2027-01-04', end: '2027-01-11' })).toEqual({ start: '2026-12-28', end: '2027-01-04' })
    expect(nextWindow(daily, { start: '2024-02-28', end: '2024-02-29' })).toEqual({ start: '2024-02-29', end: '2024-03-01' })
  })
})

describe('spans of windows', () => {
  test('a one-day span joined at 10:00 overlaps two daily windows; joined at midnight, one', () => {
    expect(windowsOverlapping(daily, '2026-03-02T10:00:00', '2026-03-03T10:00:00')).toEqual([
      { start: '2026-03-02', end: '2026-03-03' },
      { start: '2026-03-03', end: '2026-03-04' },
    ])
    expect(windowsOverlapping(daily, '2026-03-02T00:00:00', '2026-03-03T00:00:00')).toEqual([{ start: '2026-03-02', end: '2026-03-03' }])
  })

  test('a seven-day span from a Wednesday overlaps two Monday windows', () => {
    // Wed 4 March 10:00 to Wed 11 March 10:00: windows from Mon 2 and Mon 9 March.
    expect(windowsOverlapping(monday, '2026-03-04T10:00:00', '2026-03-11T10:00:00')).toEqual([
      { start: '2026-03-02', end: '2026-03-09' },
      { start: '2026-03-09', end: '2026-03-16' },
    ])
  })

  test('a monthly span', () => {
    expect(windowsOverlapping(monthly(10), '2026-03-15T00:00:00', '2026-04-15T00:00:00')).toEqual([
      { start: '2026-03-10', end: '2026-04-10' },
      { start: '2026-04-10', end: '2026-05-10' },
    ])
  })

  test('windows that have ended, from a start date, up to a limit', () => {
    expect(windowsEndedBetween(daily, '2026-03-03', '2026-03-05')).toEqual([
      { start: '2026-03-03', end: '2026-03-04' },
      { start: '2026-03-04', end: '2026-03-05' },
    ])
    expect(windowsEndedBetween(daily, '2026-03-03', '2026-03-03')).toEqual([])
    expect(windowsEndedBetween(daily, '2026-01-01', '2026-12-31', 3)).toHaveLength(3)
    expect(windowsEndedBetween(monday, '2026-03-09', '2026-03-22')).toEqual([{ start: '2026-03-09', end: '2026-03-16' }])
  })
})

describe('local date-times', () => {
  test('parses contract date-times and rejects anything else', () => {
    expect(parseLocalDateTime('2026-03-02T08:30:00')).toBe('2026-03-02T08:30:00')
    expect(parseLocalDateTime('2026-03-02T08:30:00.5')).toBe('2026-03-02T08:30:00')
    expect(parseLocalDateTime('2024-02-29T23:59:59.999')).toBe('2024-02-29T23:59:59')
    for (const bad of ['2023-02-29T00:00:00', '2026-13-01T00:00:00', '2026-02-30T00:00:00', '2026-03-02T24:00:00',
      '2026-03-02T08:30:00Z', '2026-03-02T08:30:00+02:00', '2026-03-02', '2026-03-02 08:30:00', '']) {
      expect(parseLocalDateTime(bad), bad).toBeUndefined()
    }
  })

  test('the wall clock of an instant in several zones, across DST and the date line', () => {
    // Berlin springs forward at 01:00 UTC on 29 March 2026 (02:00 → 03:00 local).
    expect(localDateTimeIn(new Date('2026-03-29T00:30:00Z'), 'Europe/Berlin')).toBe('2026-03-29T01:30:00')
    expect(localDateTimeIn(new Date('2026-03-29T01:30:00Z'), 'Europe/Berlin')).toBe('2026-03-29T03:30:00')
    expect(localDateTimeIn(new Date('2026-03-02T08:00:00Z'), 'Pacific/Kiritimati')).toBe('2026-03-02T22:00:00') // +14
    expect(localDateTimeIn(new Date('2026-03-02T08:00:00Z'), 'Pacific/Honolulu')).toBe('2026-03-01T22:00:00') // −10
    expect(localDateTimeIn(new Date('2026-03-02T20:00:00Z'), 'Asia/Kolkata')).toBe('2026-03-03T01:30:00') // +05:30
    expect(localDateTimeIn(new Date('2026-01-01T00:00:00Z'), 'UTC')).toBe('2026-01-01T00:00:00')
  })

  test('time zone names are checked', () => {
    expect(isValidTimeZone('Europe/Berlin')).toBe(true)
    expect(isValidTimeZone('UTC')).toBe(true)
    expect(isValidTimeZone('Mars/Olympus')).toBe(false)
  })
})
