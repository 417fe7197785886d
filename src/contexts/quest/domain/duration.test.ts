import { describe, expect, test } from 'vitest'
import { addDuration, parseDuration } from './duration.js'
import { InvalidDuration } from './errors.js'

describe('reading ISO 8601 durations', () => {
  test.each([
    ['P7D', { months: 0, days: 7, seconds: 0 }],
    ['PT12H', { months: 0, days: 0, seconds: 43_200 }],
    ['P1Y', { months: 12, days: 0, seconds: 0 }],
    // every part: 0 years and 2 months; 4 h 5 min 6 s = 14,400 + 300 + 6
    ['P0Y2M3DT4H5M6S', { months: 2, days: 3, seconds: 14_706 }],
    ['P2W', { months: 0, days: 14, seconds: 0 }],
    ['P1W2D', { months: 0, days: 9, seconds: 0 }],
    ['PT90M', { months: 0, days: 0, seconds: 5400 }],
    // A fraction on the last part, with '.' or ',': 1.5 h, half a minute, a day and a half, half a week (3.5 days)
    ['PT1.5H', { months: 0, days: 0, seconds: 5400 }],
    ['PT0,5M', { months: 0, days: 0, seconds: 30 }],
    ['P1.5D', { months: 0, days: 1, seconds: 43_200 }],
    ['P0.5W', { months: 0, days: 0, seconds: 302_400 }],
    ['PT1.000S', { months: 0, days: 0, seconds: 1 }],
  ])('%s', (text, expected) => {
    expect(parseDuration(text)).toEqual(expected)
  })

  test.each(['P1Y', 'P12M', 'P365D', 'P52W', 'PT8760H', 'P11M30D', 'PT1S'])('%s is within one year', (text) => {
    expect(() => parseDuration(text)).not.toThrow()
  })

  test.each([
    // more than a year: a month counts 365/12 days, so 11 months and 31 days is 365.6 days
    'P2Y', 'P1Y1D', 'P1YT1S', 'P12M1D', 'P13M', 'P366D', 'P53W', 'PT8761H', 'P11M31D', 'P99999999999999999999D',
    // not positive
    'PT0S', 'P0D', 'P0Y0M0W0DT0H0M0S', 'PT0.0S',
    // not ISO 8601
    '7D', 'P', 'PT', 'P-1D', 'p7d', 'P7d', 'P1DT', 'PT1D', 'P1H', 'P1M1Y', 'P1D1D', 'P7.D', 'P.5D', ' P7D', 'P7D ', 'P 7D', '+P7D', '',
    'P1,5,5D', 'P7DT12',
    // fractions: not on years or months, only on the last part, never finer than a second
    'P0.5Y', 'P1.5M', 'PT1.5H30M', 'PT0.5S', 'PT1.0000000001S',
  ])('%s is refused', (text) => {
    expect(() => parseDuration(text)).toThrow(InvalidDuration)
  })

  test('a refusal is a 400 naming the value', () => {
    const e = (() => {
      try {
        parseDuration('P-1D')
      } catch (err) {
        return err as InvalidDuration
      }
    })()
    expect(e).toMatchObject({ status: 400, slug: 'invalid-duration' })
    expect(e?.message).toContain("'P-1D'")
  })
})

describe('moving a local date-time on by a duration', () => {
  test.each([
    ['2026-03-02T10:00:00', 'P1D', '2026-03-03T10:00:00'],
    ['2026-03-02T10:00:00', 'P7D', '2026-03-09T10:00:00'],
    ['2026-12-31T23:30:00', 'PT1H', '2027-01-01T00:30:00'],
    // months keep the day, or take the month's last day when it is shorter
    ['2026-01-31T08:00:00', 'P1M', '2026-02-28T08:00:00'],
    ['2024-01-31T08:00:00', 'P1M', '2024-02-29T08:00:00'],
    ['2024-02-29T00:00:00', 'P1Y', '2025-02-28T00:00:00'],
    // months first, then days: 31 Jan + 1 month = 28 Feb, + 1 day = 1 Mar
    ['2026-01-31T00:00:00', 'P1M1D', '2026-03-01T00:00:00'],
    ['2026-03-02T10:00:00', 'P1.5D', '2026-03-03T22:00:00'],
    ['2026-03-02T10:00:00', 'PT1S', '2026-03-02T10:00:01'],
  ])('%s + %s = %s', (from, text, to) => {
    expect(addDuration(from, parseDuration(text))).toBe(to)
  })
})
