import { describe, expect, test } from 'vitest'
import {
  addDays, addHours, addMonths, dateOf, daysInMonth, parseLocalDate, parseLocalDateTime, startOfDay, weekdayOf,
} from './local.js'

// Anchors: 2026-03-02 is a Monday; 2026-11-22 a Sunday; 2000-01-01 a Saturday; 2024-01-01 a
// Monday, and January has 31 = 4·7 + 3 days, so 2024-02-01 and 2024-02-29 are Thursdays.

describe('calendar arithmetic', () => {
  test('days in February follow the leap-year rules', () => {
    expect(daysInMonth(1900, 2)).toBe(28) // divisible by 100, not by 400
    expect(daysInMonth(2000, 2)).toBe(29) // divisible by 400
    expect(daysInMonth(2024, 2)).toBe(29) // divisible by 4
    expect(daysInMonth(2026, 2)).toBe(28)
    expect(daysInMonth(0, 2)).toBe(29) // year 0 is divisible by 400 (not read as 1900)
  })

  test('days in the other months', () => {
    expect(daysInMonth(2026, 1)).toBe(31)
    expect(daysInMonth(2026, 4)).toBe(30)
    expect(daysInMonth(2026, 9)).toBe(30)
    expect(daysInMonth(2026, 12)).toBe(31)
    expect(() => daysInMonth(2026, 13)).toThrow(RangeError)
  })

  test('weekdays of known dates', () => {
    expect(weekdayOf('2026-11-22')).toBe('SUNDAY')
    expect(weekdayOf('2000-01-01')).toBe('SATURDAY')
    expect(weekdayOf('2026-03-02')).toBe('MONDAY')
    expect(weekdayOf('2024-02-29')).toBe('THURSDAY')
    // 400 Gregorian years are 146,097 days = 20,871 weeks, so 0001-01-01 falls on the same weekday
    // as 2001-01-01: 2000-01-01 (Saturday) + 366 days (52 weeks + 2) = Monday.
    expect(weekdayOf('0001-01-01')).toBe('MONDAY')
  })

  test('adding days crosses months, leap days and years', () => {
    expect(addDays('2024-02-28', 1)).toBe('2024-02-29')
    expect(addDays('2023-02-28', 1)).toBe('2023-03-01')
    expect(addDays('2026-12-31', 1)).toBe('2027-01-01')
    expect(addDays('2026-01-01', -1)).toBe('2025-12-31')
    expect(addDays('2024-03-01', -1)).toBe('2024-02-29')
    expect(addDays('2024-01-01', 366)).toBe('2025-01-01') // 2024 has 366 days
    expect(addDays('2026-03-02', 0)).toBe('2026-03-02')
  })

  test('two-digit years are taken literally, not as 19xx', () => {
    expect(addDays('0050-02-28', 1)).toBe('0050-03-01') // 50 is not a multiple of 4
    expect(addDays('0099-12-31', 1)).toBe('0100-01-01')
  })

  test('adding months keeps the day, or takes the last day of a shorter month', () => {
    expect(addMonths('2026-01-15', 1)).toBe('2026-02-15')
    expect(addMonths('2026-01-31', 1)).toBe('2026-02-28')
    expect(addMonths('2024-01-31', 1)).toBe('2024-02-29') // leap year
    expect(addMonths('2026-03-31', 1)).toBe('2026-04-30')
    expect(addMonths('2026-03-31', -1)).toBe('2026-02-28')
    expect(addMonths('2026-11-30', 3)).toBe('2027-02-28') // over the year end
    expect(addMonths('2024-02-29', 12)).toBe('2025-02-28')
  })

  test('adding hours to a wall-clock time is naive arithmetic', () => {
    expect(addHours('2026-03-02T08:00:00', 24)).toBe('2026-03-03T08:00:00')
    expect(addHours('2026-03-02T23:30:00', 1)).toBe('2026-03-03T00:30:00') // midnight
    expect(addHours('2026-12-31T23:30:15', 1)).toBe('2027-01-01T00:30:15') // year end
    // Feb 28 12:00 + 12 h = Feb 29 00:00 (2024 is a leap year), + 24 h = Mar 1 00:00
    expect(addHours('2024-02-28T12:00:00', 36)).toBe('2024-03-01T00:00:00')
    expect(addHours('2026-03-01T01:00:00', -2)).toBe('2026-02-28T23:00:00') // back over a month start
    // 02:30 does not exist in Berlin that night; no zone here, so every day has 24 hours.
    expect(addHours('2026-03-29T01:30:00', 1)).toBe('2026-03-29T02:30:00')
    // a fraction is kept, written as the API writes it (.SSS)
    expect(addHours('2026-03-02T23:59:59.250', 1)).toBe('2026-03-03T00:59:59.250')
    expect(addHours('2026-03-02T23:59:59.5', 1)).toBe('2026-03-03T00:59:59.500')
    expect(addHours('2026-03-02T23:59:59.05', 1)).toBe('2026-03-03T00:59:59.050')
  })

  test('the date of a date-time, and where a day begins', () => {
    expect(dateOf('2026-03-02T23:59:59.999')).toBe('2026-03-02')
    expect(startOfDay('2024-02-29')).toBe('2024-02-29T00:00:00')
  })
})

describe('local date-times and dates as the API writes them', () => {
  test('parses contract date-times, dropping any fraction', () => {
    expect(parseLocalDateTime('2026-03-02T08:30:00')).toBe('2026-03-02T08:30:00')
    expect(parseLocalDateTime('2026-03-02T08:30:00.5')).toBe('2026-03-02T08:30:00')
    expect(parseLocalDateTime('2026-03-02T08:30:00.123')).toBe('2026-03-02T08:30:00')
    expect(parseLocalDateTime('2024-02-29T23:59:59.999')).toBe('2024-02-29T23:59:59') // leap day
    expect(parseLocalDateTime('2000-02-29T00:00:00')).toBe('2000-02-29T00:00:00') // divisible by 400
    expect(parseLocalDateTime('2026-12-31T00:00:00')).toBe('2026-12-31T00:00:00')
  })

  test('rejects offsets, impossible dates and times, and other shapes', () => {
    for (const bad of [
      '2026-03-02T08:30:00Z', '2026-03-02T08:30:00+02:00', '2026-03-02T08:30:00[Europe/Berlin]', // offsets, zones
      '2023-02-29T00:00:00', '1900-02-29T00:00:00', '2026-02-30T00:00:00', '2026-04-31T00:00:00', // no such day
      '2026-13-01T00:00:00', '2026-00-10T00:00:00', '2026-03-00T00:00:00', // no such month/day number
      '2026-03-02T24:00:00', '2026-03-02T08:60:00', '2026-03-02T08:30:60', // no such time, no leap second
      '2026-03-02', '2026-03-02T08:30', '2026-03-02 08:30:00', '2026-03-02t08:30:00', '20260302T083000', // other shapes
      '2026-3-2T08:30:00', '2026-03-02T08:30:00.', '2026-03-02T08:30:00.1234', ' 2026-03-02T08:30:00', '+002026-03-02T08:30:00', '',
    ]) {
      expect(parseLocalDateTime(bad), bad).toBeUndefined()
    }
  })

  test('local dates: real calendar days only, in YYYY-MM-DD', () => {
    expect(parseLocalDate('2024-02-29')).toBe('2024-02-29')
    expect(parseLocalDate('2026-12-31')).toBe('2026-12-31')
    for (const bad of ['2023-02-29', '2026-04-31', '2026-13-01', '2026-03-02T00:00:00', '20260302', '2026-3-2', '']) {
      expect(parseLocalDate(bad), bad).toBeUndefined()
    }
  })
})
