import { describe, expect, test } from 'vitest'
import { addDuration, readDuration, type Duration } from './duration.js'

const read = (text: string, maxDays?: number): Duration => {
  const r = readDuration(text, maxDays === undefined ? {} : { maxDays })
  if (!r.ok) throw new Error(`${text}: ${r.reason}`)
  return r.duration
}
const reasonFor = (text: string, maxDays?: number): string => {
  const r = readDuration(text, maxDays === undefined ? {} : { maxDays })
  if (r.ok) throw new Error(`${text} was read as ${r.duration.toString()}`)
  return r.reason
}
const parts = (d: Duration) => ({
  years: d.years, months: d.months, weeks: d.weeks, days: d.days, hours: d.hours, minutes: d.minutes, seconds: d.seconds,
})
const none = { years: 0, months: 0, weeks: 0, days: 0, hours: 0, minutes: 0, seconds: 0 }

describe('reading ISO 8601 durations', () => {
  test.each([
    ['P7D', { days: 7 }],
    ['PT12H', { hours: 12 }],
    ['P1Y', { years: 1 }],
    ['P0Y2M3DT4H5M6S', { months: 2, days: 3, hours: 4, minutes: 5, seconds: 6 }],
    ['P2W', { weeks: 2 }],
    ['P1W2D', { weeks: 1, days: 2 }],
    ['PT90M', { minutes: 90 }],
    // a fraction on the last time part, with '.' or ',': 1.5 h = 1 h 30 min, half a minute = 30 s
    ['PT1.5H', { hours: 1, minutes: 30 }],
    ['PT0,5M', { seconds: 30 }],
    ['PT1.000S', { seconds: 1 }],
    ['PT0.25H', { minutes: 15 }],
  ])('%s', (text, expected) => {
    expect(parts(read(text))).toEqual({ ...none, ...expected })
  })

  test.each([
    // not positive
    ['PT0S', 'longer than zero'], ['P0D', 'longer than zero'], ['P0Y0M0W0DT0H0M0S', 'longer than zero'], ['PT0.0S', 'longer than zero'],
    // finer than a second: 0.5 s; 0.0001 h = 0.36 s
    ['PT0.5S', 'finer than a second'], ['PT0.0001H', 'finer than a second'], ['PT1.5S', 'finer than a second'],
    // fractions on the calendar parts: Temporal reads none
    ['P1.5D', 'take no fraction'], ['P0,5D', 'take no fraction'], ['P0.5W', 'take no fraction'], ['P0.5Y', 'take no fraction'],
    ['P1.5M', 'take no fraction'], ['P1M1.5D', 'take no fraction'],
    // a fraction only on the last part
    ['PT1.5H30M', 'only the last part'], ['PT0.5M1S', 'only the last part'],
  ])('%s is refused: %s', (text, why) => {
    expect(reasonFor(text)).toContain(why)
  })

  test.each([
    // not the API's ISO 8601: signs, lower case, blanks, empty or misplaced parts
    '7D', 'P', 'PT', 'P-1D', '-P7D', '+P7D', 'p7d', 'P7d', 'pT1H', 'P1DT', 'PT1D', 'P1H', 'P1M1Y', 'P1D1D', 'P7.D', 'P.5D', ' P7D',
    'P7D ', 'P 7D', '', 'P1,5,5D', 'P7DT12', 'PT1.0000000001S', 'P99999999999999999999D',
  ])('%j is not an ISO 8601 duration', (text) => {
    expect(reasonFor(text)).toContain('not an ISO 8601 duration')
  })

  test('a day and a half is written in hours', () => {
    expect(reasonFor('P1.5D')).toContain('P1DT12H')
    expect(parts(read('P1DT12H'))).toEqual({ ...none, days: 1, hours: 12 })
  })
})

describe('the longest allowed', () => {
  // With a limit of 365 days, a year is 365 days and a month a twelfth of that (30.41… days).
  test.each(['P1Y', 'P12M', 'P365D', 'P52W', 'P52W1D', 'PT8760H', 'PT525600M', 'P11M30D', 'P6M182DT12H'])('%s is within 365 days', (text) => {
    expect(readDuration(text, { maxDays: 365 }).ok).toBe(true)
  })

  // 11 months and 31 days = 334.58… + 31 days; 6 months and 182 days 12 h 1 s is one second over.
  test.each(['P2Y', 'P1Y1D', 'P1YT1S', 'P12M1D', 'P13M', 'P366D', 'P53W', 'PT8761H', 'PT8760H1S', 'P11M31D', 'P6M182DT12H1S'])('%s is over 365 days', (text) => {
    expect(reasonFor(text, 365)).toContain('at most 365 days')
  })

  test('another limit, and none', () => {
    expect(readDuration('P7D', { maxDays: 7 }).ok).toBe(true)
    expect(readDuration('P7DT1S', { maxDays: 7 }).ok).toBe(false)
    expect(readDuration('P1M', { maxDays: 30 }).ok).toBe(false) // 30.41… days
    expect(readDuration('P10Y').ok).toBe(true)
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
    // and then the time: 28 Feb 23:00 + 2 h = 1 Mar 01:00
    ['2026-01-31T23:00:00', 'P1MT2H', '2026-03-01T01:00:00'],
    ['2026-03-02T10:00:00', 'P1DT12H', '2026-03-03T22:00:00'],
    ['2026-03-02T10:00:00', 'PT1S', '2026-03-02T10:00:01'],
    // 8,760 hours from the start of leap year 2024 end on its 366th day
    ['2024-01-01T00:00:00', 'PT8760H', '2024-12-31T00:00:00'],
    // no zone: 02:30 on Berlin's spring-forward night is just a wall-clock reading here
    ['2026-03-29T01:30:00', 'PT1H', '2026-03-29T02:30:00'],
  ])('%s + %s = %s', (from, text, to) => {
    expect(addDuration(from, read(text))).toBe(to)
  })
})
