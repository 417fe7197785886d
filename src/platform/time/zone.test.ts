import { describe, expect, test } from 'vitest'
import { instantIn, isValidTimeZone, localDateTimeIn, startOfDayIn } from './zone.js'

const at = (iso: string) => new Date(iso)
const HOUR_MS = 3_600_000

describe('the wall clock of an instant', () => {
  test('across Berlin DST changes', () => {
    // Berlin springs forward at 01:00 UTC on 29 March 2026: before it +01:00, after it +02:00.
    expect(localDateTimeIn(at('2026-03-29T00:30:00Z'), 'Europe/Berlin')).toBe('2026-03-29T01:30:00')
    expect(localDateTimeIn(at('2026-03-29T00:59:59.999Z'), 'Europe/Berlin')).toBe('2026-03-29T01:59:59')
    expect(localDateTimeIn(at('2026-03-29T01:00:00Z'), 'Europe/Berlin')).toBe('2026-03-29T03:00:00') // the transition itself
    expect(localDateTimeIn(at('2026-03-29T01:30:00Z'), 'Europe/Berlin')).toBe('2026-03-29T03:30:00')
    // It falls back at 01:00 UTC on 25 October 2026: two instants an hour apart read 02:30.
    expect(localDateTimeIn(at('2026-10-25T00:30:00Z'), 'Europe/Berlin')).toBe('2026-10-25T02:30:00')
    expect(localDateTimeIn(at('2026-10-25T01:30:00Z'), 'Europe/Berlin')).toBe('2026-10-25T02:30:00')
  })

  test('asked in any order around a transition (the offset each zone keeps is remembered)', () => {
    // After, before, exactly at, long before and long after the spring change in Berlin.
    const asked: [string, string][] = [
      ['2026-03-29T01:00:00.001Z', '2026-03-29T03:00:00'],
      ['2026-03-29T00:59:59Z', '2026-03-29T01:59:59'],
      ['2026-03-29T01:00:00Z', '2026-03-29T03:00:00'],
      ['2025-07-01T12:00:00Z', '2025-07-01T14:00:00'], // the summer before: +02:00
      ['2026-12-01T12:00:00Z', '2026-12-01T13:00:00'], // the winter after: +01:00
      ['2026-03-29T00:00:00Z', '2026-03-29T01:00:00'],
    ]
    for (const [instant, wall] of asked) expect(localDateTimeIn(at(instant), 'Europe/Berlin'), instant).toBe(wall)
  })

  test('in New York, across a date and DST changes', () => {
    expect(localDateTimeIn(at('2026-03-02T03:00:00Z'), 'America/New_York')).toBe('2026-03-01T22:00:00') // EST −5, the day before
    // DST starts Sunday 8 March 2026 at 02:00 EST = 07:00 UTC.
    expect(localDateTimeIn(at('2026-03-08T06:30:00Z'), 'America/New_York')).toBe('2026-03-08T01:30:00')
    expect(localDateTimeIn(at('2026-03-08T07:30:00Z'), 'America/New_York')).toBe('2026-03-08T03:30:00')
    // DST ends Sunday 1 November 2026 at 02:00 EDT = 06:00 UTC.
    expect(localDateTimeIn(at('2026-11-01T05:30:00Z'), 'America/New_York')).toBe('2026-11-01T01:30:00')
    expect(localDateTimeIn(at('2026-11-01T06:30:00Z'), 'America/New_York')).toBe('2026-11-01T01:30:00')
  })

  test('on both sides of the date line, and at half-hour offsets', () => {
    // One instant, 10:00 UTC on 31 December 2026: already 2027 at +14, still the morning of the 31st at −10.
    expect(localDateTimeIn(at('2026-12-31T10:00:00Z'), 'Pacific/Kiritimati')).toBe('2027-01-01T00:00:00')
    expect(localDateTimeIn(at('2026-12-31T10:00:00Z'), 'Pacific/Honolulu')).toBe('2026-12-31T00:00:00')
    expect(localDateTimeIn(at('2026-03-02T08:00:00Z'), 'Pacific/Kiritimati')).toBe('2026-03-02T22:00:00')
    expect(localDateTimeIn(at('2026-03-02T20:00:00Z'), 'Asia/Kolkata')).toBe('2026-03-03T01:30:00') // +05:30
    expect(localDateTimeIn(at('2026-01-01T00:00:00.999Z'), 'UTC')).toBe('2026-01-01T00:00:00') // milliseconds dropped
  })

  test('Kiritimati skipped 31 December 1994 whole, moving from −10:00 to +14:00', () => {
    expect(localDateTimeIn(at('1994-12-31T09:59:59Z'), 'Pacific/Kiritimati')).toBe('1994-12-30T23:59:59')
    expect(localDateTimeIn(at('1994-12-31T10:00:00Z'), 'Pacific/Kiritimati')).toBe('1995-01-01T00:00:00')
  })
})

describe('the instant of a wall clock', () => {
  test('an ordinary time is one instant', () => {
    expect(instantIn('2026-03-02T08:30:00', 'Europe/Berlin')).toEqual(at('2026-03-02T07:30:00Z')) // +01:00
    expect(instantIn('2026-07-02T08:30:00', 'Europe/Berlin')).toEqual(at('2026-07-02T06:30:00Z')) // +02:00
    expect(instantIn('2027-01-01T00:00:00', 'Pacific/Kiritimati')).toEqual(at('2026-12-31T10:00:00Z')) // +14:00
  })

  test('a time the clock skips is moved forward by the gap', () => {
    // Berlin, 29 March 2026: 02:00 CET becomes 03:00 CEST. 02:30 read at +01:00 is 01:30 UTC, which the clock shows as 03:30.
    expect(instantIn('2026-03-29T02:30:00', 'Europe/Berlin')).toEqual(at('2026-03-29T01:30:00Z'))
    expect(localDateTimeIn(instantIn('2026-03-29T02:30:00', 'Europe/Berlin'), 'Europe/Berlin')).toBe('2026-03-29T03:30:00')
    // New York, 8 March 2026: 02:30 read at EST (−5) is 07:30 UTC, 03:30 EDT.
    expect(instantIn('2026-03-08T02:30:00', 'America/New_York')).toEqual(at('2026-03-08T07:30:00Z'))
    // Kiritimati skipped 31 December 1994 (24 hours): noon that day read at −10 is 22:00 UTC, noon on 1 January at +14.
    expect(instantIn('1994-12-31T12:00:00', 'Pacific/Kiritimati')).toEqual(at('1994-12-31T22:00:00Z'))
  })

  test('a time the clock shows twice is the earlier one', () => {
    // Berlin, 25 October 2026: 02:30 CEST (00:30 UTC), then 02:30 CET (01:30 UTC).
    expect(instantIn('2026-10-25T02:30:00', 'Europe/Berlin')).toEqual(at('2026-10-25T00:30:00Z'))
    // New York, 1 November 2026: 01:30 EDT (05:30 UTC), then 01:30 EST (06:30 UTC).
    expect(instantIn('2026-11-01T01:30:00', 'America/New_York')).toEqual(at('2026-11-01T05:30:00Z'))
  })
})

describe('day boundaries', () => {
  test('a day begins at its midnight; DST days in Berlin are 23 and 25 hours long', () => {
    expect(startOfDayIn('2026-03-29', 'Europe/Berlin')).toEqual(at('2026-03-28T23:00:00Z'))
    expect(startOfDayIn('2026-03-30', 'Europe/Berlin')).toEqual(at('2026-03-29T22:00:00Z'))
    expect(startOfDayIn('2026-03-30', 'Europe/Berlin').getTime() - startOfDayIn('2026-03-29', 'Europe/Berlin').getTime()).toBe(23 * HOUR_MS)
    expect(startOfDayIn('2026-10-26', 'Europe/Berlin').getTime() - startOfDayIn('2026-10-25', 'Europe/Berlin').getTime()).toBe(25 * HOUR_MS)
    expect(startOfDayIn('2024-02-29', 'UTC')).toEqual(at('2024-02-29T00:00:00Z'))
  })

  test('where the clock skips midnight, the day begins at the first time it shows', () => {
    // São Paulo, 4 November 2018: DST began at 00:00, so the day began at 01:00 −02:00 = 03:00 UTC.
    expect(startOfDayIn('2018-11-04', 'America/Sao_Paulo')).toEqual(at('2018-11-04T03:00:00Z'))
    // Kiritimati's skipped 31 December 1994 "begins" where 1 January 1995 does: 00:00 +14:00.
    expect(startOfDayIn('1994-12-31', 'Pacific/Kiritimati')).toEqual(at('1994-12-31T10:00:00Z'))
    expect(startOfDayIn('1995-01-01', 'Pacific/Kiritimati')).toEqual(at('1994-12-31T10:00:00Z'))
  })
})

describe('time zone names', () => {
  test('IANA names are accepted, in any case', () => {
    for (const tz of ['Europe/Berlin', 'America/New_York', 'UTC', 'Pacific/Kiritimati', 'Asia/Kolkata', 'Etc/GMT+5', 'europe/berlin']) {
      expect(isValidTimeZone(tz), tz).toBe(true)
    }
  })

  test('unknown names, offsets and date-time strings are refused', () => {
    for (const tz of ['Mars/Olympus', '', '+02:00', '-05:00', 'Z', '2026-03-02T00:00Z', '20260302T00Z', '2026-03-02T00:00[Europe/Berlin]', ' UTC']) {
      expect(isValidTimeZone(tz), tz).toBe(false)
    }
  })
})
