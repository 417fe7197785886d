import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { addDays } from '../../../platform/time/index.js'
import { completionRate, countInPeriod, countWindows, habitRates, periodHolding, reportDay, strength, type CountedWindow } from './stats.js'
import type { WindowStatus } from './window-status.js'

/** Daily windows ending on `today` (the last one today's), one per status, oldest first. */
function daily(today: string, statuses: WindowStatus[]): CountedWindow[] {
  return statuses.map((status, i) => {
    const start = addDays(today, i - statuses.length + 1)
    return { start, end: addDays(start, 1), status }
  })
}

const STATUSES: WindowStatus[] = ['COMPLETED', 'MISSED', 'FROZEN', 'NOT_DUE', 'OPEN', 'PENDING', 'PARTIAL', 'UPCOMING']
const NOT_COUNTED: WindowStatus[] = ['NOT_DUE', 'OPEN', 'PENDING', 'PARTIAL', 'UPCOMING']

describe('completion rates', () => {
  test('count the due windows of the last N days, today included; not-due, open and pending ones are in no denominator', () => {
    const today = '2026-03-10'
    // 03-01 … 03-10: done ×3, not due, missed, frozen, done, pending, done, open (today)
    const windows = daily(today, ['COMPLETED', 'COMPLETED', 'COMPLETED', 'NOT_DUE', 'MISSED', 'FROZEN', 'COMPLETED', 'PENDING', 'COMPLETED', 'OPEN'])
    // last 7 days (03-04 … 03-10): not due, missed, frozen, done, pending, done, open → 2 done of 4 due
    expect(completionRate(windows, today, 7)).toBe(2 / 4)
    // last 30: all ten → 5 done of 7 due
    expect(completionRate(windows, today, 30)).toBe(5 / 7)
    // today's window, once done, counts
    expect(completionRate(daily(today, ['MISSED', 'COMPLETED']), today, 1)).toBe(1)
    expect(completionRate(daily(today, ['MISSED', 'OPEN']), today, 1)).toBeNull()
  })

  test('a window under way that ends after today counts once done; one that ended before the span does not', () => {
    const weeks: CountedWindow[] = [
      { start: '2026-02-23', end: '2026-03-02', status: 'MISSED' }, // last day 03-01: 9 days before 03-10
      { start: '2026-03-02', end: '2026-03-09', status: 'MISSED' }, // last day 03-08
      { start: '2026-03-09', end: '2026-03-16', status: 'COMPLETED' }, // under way, done
    ]
    expect(completionRate(weeks, '2026-03-10', 7)).toBe(1 / 2)
    expect(completionRate(weeks, '2026-03-10', 10)).toBe(1 / 3)
  })

  test('nothing due: null, not 0', () => {
    expect(completionRate([], '2026-03-10', 7)).toBeNull()
    expect(completionRate(daily('2026-03-10', ['NOT_DUE', 'NOT_DUE']), '2026-03-10', 7)).toBeNull()
  })
})

describe('strength', () => {
  test('a moving average of done (1) and missed (0), the latest weighing most; frozen and not-due windows skipped', () => {
    const at = (...statuses: WindowStatus[]) => strength(daily('2026-03-10', statuses))
    expect(at()).toBe(0)
    expect(at('COMPLETED')).toBe(100)
    expect(at('MISSED')).toBe(0)
    // weights 0.9 and 1: done then missed = 0.9 / 1.9 = 47.4 %; missed then done = 1 / 1.9 = 52.6 %
    expect(at('COMPLETED', 'MISSED')).toBe(47)
    expect(at('MISSED', 'COMPLETED')).toBe(53)
    expect(at('COMPLETED', 'FROZEN', 'NOT_DUE', 'MISSED', 'PENDING')).toBe(47)
    // done, done, missed: (0.81 + 0.9) / (0.81 + 0.9 + 1) = 63.1 %
    expect(at('COMPLETED', 'COMPLETED', 'MISSED')).toBe(63)
  })

  test('habitRates takes strength over the windows of the last 365 days only', () => {
    const today = '2026-12-31'
    const old: CountedWindow = { start: '2025-12-01', end: '2025-12-02', status: 'MISSED' } // ended over a year ago
    const recent = daily(today, ['COMPLETED', 'COMPLETED'])
    expect(habitRates([old, ...recent], today)).toEqual({ completionRate: { days7: 1, days30: 1, days365: 1 }, strength: 100 })
  })
})

describe('properties', () => {
  const statuses = fc.array(fc.constantFrom(...STATUSES), { maxLength: 120 })
  const today = '2026-06-15'

  test('rates are in [0, 1] or null; strength is in [0, 100]; due = done + missed + frozen', () => {
    fc.assert(fc.property(statuses, fc.integer({ min: 1, max: 400 }), (s, days) => {
      const windows = daily(today, s)
      const rate = completionRate(windows, today, days)
      expect(rate === null || (rate >= 0 && rate <= 1)).toBe(true)
      const power = strength(windows)
      expect(Number.isInteger(power) && power >= 0 && power <= 100).toBe(true)
      const c = countWindows(windows)
      expect(c.due).toBe(c.done + c.missed + c.frozen)
    }))
  })

  test('always done: rate 1 and strength 100; never done: rate 0 and strength 0, whatever does not count is between', () => {
    const between = fc.array(fc.constantFrom(...NOT_COUNTED), { maxLength: 5 })
    const run = (kind: WindowStatus) => fc.array(fc.tuple(fc.constant(kind), between), { minLength: 1, maxLength: 60 })
      .map((xs) => xs.flatMap(([k, rest]) => [k, ...rest]))
    fc.assert(fc.property(run('COMPLETED'), (s) => {
      const windows = daily(today, s)
      expect(strength(windows)).toBe(100)
      expect(completionRate(windows, today, 400)).toBe(1)
    }))
    fc.assert(fc.property(run('MISSED'), (s) => {
      const windows = daily(today, s)
      expect(strength(windows)).toBe(0)
      expect(completionRate(windows, today, 400)).toBe(0)
    }))
  })

  test('windows that do not count change nothing, wherever they fall', () => {
    fc.assert(fc.property(statuses, fc.array(fc.tuple(fc.nat(), fc.constantFrom(...NOT_COUNTED)), { maxLength: 20 }), (s, extra) => {
      const padded = [...s]
      for (const [at, status] of extra) padded.splice(at % (padded.length + 1), 0, status)
      expect(strength(daily(today, padded))).toBe(strength(daily(today, s)))
      expect(countWindows(daily(today, padded))).toEqual(countWindows(daily(today, s)))
    }))
  })
})

describe('reports', () => {
  test('a week runs from Monday, a month from the 1st', () => {
    expect(periodHolding('week', '2026-03-04')).toEqual({ from: '2026-03-02', to: '2026-03-09' }) // a Wednesday
    expect(periodHolding('week', '2026-03-02')).toEqual({ from: '2026-03-02', to: '2026-03-09' })
    expect(periodHolding('week', '2026-03-08')).toEqual({ from: '2026-03-02', to: '2026-03-09' }) // a Sunday
    expect(periodHolding('month', '2026-02-28')).toEqual({ from: '2026-02-01', to: '2026-03-01' })
    expect(periodHolding('month', '2026-12-31')).toEqual({ from: '2026-12-01', to: '2027-01-01' })
  })

  test('a window belongs to the period its last day falls in', () => {
    const windows: CountedWindow[] = [
      { start: '2026-02-15', end: '2026-03-15', status: 'COMPLETED' }, // ends in March
      { start: '2026-03-15', end: '2026-04-15', status: 'MISSED' }, // ends in April
      { start: '2026-01-15', end: '2026-02-15', status: 'FROZEN' }, // ends in February
    ]
    expect(countInPeriod(windows, periodHolding('month', '2026-03-20'))).toEqual({ due: 1, done: 1, missed: 0, frozen: 0 })
    expect(countInPeriod(windows, periodHolding('month', '2026-02-01'))).toEqual({ due: 1, done: 0, missed: 0, frozen: 1 })
  })

  test('a report is for today or an earlier day, named as a date', () => {
    expect(reportDay(undefined, '2026-03-10')).toBe('2026-03-10')
    expect(reportDay('2026-01-31', '2026-03-10')).toBe('2026-01-31')
    const refusal = (asked: string) => {
      try {
        reportDay(asked, '2026-03-10')
      } catch (e) {
        return e
      }
      return undefined
    }
    for (const bad of ['2026-03-11', '2026-02-30', '1999-12-31', 'yesterday']) {
      expect(refusal(bad), bad).toMatchObject({ status: 400, errors: [{ path: '/date' }] })
    }
  })
})
