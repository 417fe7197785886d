import fc from 'fast-check'
import { Temporal } from 'temporal-polyfill'
import { describe, expect, test } from 'vitest'
import { dayOf, dayOfLocal, dayStart, windowInstants, type DayFrame } from './day.js'
import { addDays, DAY_MS, WEEKDAYS } from './local.js'
import { nextWindow, previousWindow, windowContaining, type Recurrence } from './schedule.js'

const ZONES = Intl.supportedValuesOf('timeZone')
const FROM = Date.UTC(2000, 0, 1)
const UNTIL = Date.UTC(2100, 0, 1)
const HOUR = 3_600_000

const frame = fc.record({ timeZone: fc.constantFrom(...ZONES, 'UTC', 'Pacific/Apia', 'Pacific/Kiritimati', 'Australia/Lord_Howe', 'America/Santiago'), dayStartHour: fc.integer({ min: 0, max: 23 }) })
const anyInstant = fc.integer({ min: FROM, max: UNTIL })

/** An instant within a day of one of the zone's clock changes (or anywhere, for a zone without any). */
function nearAClockChange(f: DayFrame, seed: number, offset: number): number {
  const start = Temporal.Instant.fromEpochMilliseconds(FROM + (seed % (UNTIL - FROM))).toZonedDateTimeISO(f.timeZone)
  const change = start.getTimeZoneTransition('next')
  const at = change && change.epochMilliseconds < UNTIL ? change.epochMilliseconds : start.epochMilliseconds
  return at + offset
}
const instantFor = (f: DayFrame) => fc.oneof(
  anyInstant,
  fc.tuple(fc.integer({ min: 0, max: UNTIL - FROM }), fc.integer({ min: -26 * HOUR, max: 26 * HOUR })).map(([seed, offset]) => nearAClockChange(f, seed, offset)),
)
const framedInstant = frame.chain((f) => instantFor(f).map((t) => ({ f, t: new Date(t) })))

const date = fc.integer({ min: Date.UTC(2000, 0, 1) / DAY_MS, max: Date.UTC(2099, 11, 31) / DAY_MS })
  .map((d) => new Date(d * DAY_MS).toISOString().slice(0, 10))
/** Dates around the end of February, leap years included. */
const nearLeapDay = fc.tuple(fc.integer({ min: 2000, max: 2099 }), fc.integer({ min: -3, max: 3 }))
  .map(([y, shift]) => addDays(`${y}-02-28`, shift))
const recurrence: fc.Arbitrary<Recurrence> = fc.oneof(
  fc.constant<Recurrence>({ type: 'DAILY' }),
  fc.constantFrom(...WEEKDAYS).map((dayOfWeek): Recurrence => ({ type: 'WEEKLY', dayOfWeek })),
  fc.integer({ min: 1, max: 31 }).map((dayOfMonth): Recurrence => ({ type: 'MONTHLY', dayOfMonth })),
  fc.integer({ min: 1, max: 7 }).map((timesPerWeek): Recurrence => ({ type: 'TIMES_PER_WEEK', timesPerWeek })),
  fc.tuple(fc.integer({ min: 2, max: 365 }), date).map(([everyNDays, anchor]): Recurrence => ({ type: 'EVERY_N_DAYS', everyNDays, anchor })),
)

const RUNS = { numRuns: 400 }

describe('a player\'s days tile time (property)', () => {
  test('every instant falls in exactly one day: the one dayOf names starts at or before it and its successor after it', () => {
    fc.assert(fc.property(framedInstant, ({ f, t }) => {
      const d = dayOf(t, f)
      expect(dayStart(d, f).getTime()).toBeLessThanOrEqual(t.getTime())
      expect(dayStart(addDays(d, 1), f).getTime()).toBeGreaterThan(t.getTime())
    }), RUNS)
  })

  test('day starts never go back, and a day lasts at most 50 hours (a clock change, a zone moving by a day)', () => {
    fc.assert(fc.property(frame, fc.oneof(date, nearLeapDay), (f, d) => {
      const length = dayStart(addDays(d, 1), f).getTime() - dayStart(d, f).getTime()
      expect(length).toBeGreaterThanOrEqual(0)
      expect(length).toBeLessThanOrEqual(50 * HOUR)
    }), RUNS)
  })

  test('a wall-clock time of the zone lands in the day holding its instant', () => {
    fc.assert(fc.property(framedInstant, ({ f, t }) => {
      const wall = Temporal.Instant.fromEpochMilliseconds(t.getTime()).toZonedDateTimeISO(f.timeZone).toPlainDateTime().toString().slice(0, 19)
      const d = dayOfLocal(wall, f)
      // The wall clock may name an instant an hour off where it repeats; the day holds that instant.
      const named = Temporal.PlainDateTime.from(wall).toZonedDateTime(f.timeZone, { disambiguation: 'compatible' }).epochMilliseconds
      expect(dayStart(d, f).getTime()).toBeLessThanOrEqual(named)
      expect(dayStart(addDays(d, 1), f).getTime()).toBeGreaterThan(named)
    }), RUNS)
  })
})

describe('a recurrence\'s windows tile the days (property)', () => {
  test('the window holding a day holds it, its neighbours touch it, and no window is empty of days', () => {
    fc.assert(fc.property(recurrence, fc.oneof(date, nearLeapDay), (r, d) => {
      const w = windowContaining(r, d)
      expect(w.start <= d && d < w.end).toBe(true)
      expect(nextWindow(r, w).start).toBe(w.end)
      expect(previousWindow(r, w).end).toBe(w.start)
      expect(windowContaining(r, w.start)).toEqual(w)
      expect(windowContaining(r, addDays(w.end, -1))).toEqual(w)
    }), RUNS)
  })

  test('as instants: the window of the day holding an instant holds the instant', () => {
    fc.assert(fc.property(recurrence, framedInstant, (r, { f, t }) => {
      const { start, end } = windowInstants(windowContaining(r, dayOf(t, f)), f)
      expect(start.getTime()).toBeLessThanOrEqual(t.getTime())
      expect(end.getTime()).toBeGreaterThan(t.getTime())
    }), RUNS)
  })
})

describe('days, by example', () => {
  const berlin4: DayFrame = { timeZone: 'Europe/Berlin', dayStartHour: 4 }
  test('with a day start of 4, 01:30 belongs to the day before', () => {
    expect(dayOfLocal('2026-03-03T01:30:00', berlin4)).toBe('2026-03-02')
    expect(dayOfLocal('2026-03-03T04:00:00', berlin4)).toBe('2026-03-03')
  })

  test('a day start the clock skips moves forward by the gap (Berlin, 29 March 2026, 02:00 → 03:00)', () => {
    const f = { timeZone: 'Europe/Berlin', dayStartHour: 2 }
    expect(dayStart('2026-03-29', f)).toEqual(new Date('2026-03-29T01:00:00Z')) // 03:00 CEST
    // The 29th starts an hour late and ends on time: 23 hours; the 28th ends an hour late: 24.
    expect(dayStart('2026-03-30', f).getTime() - dayStart('2026-03-29', f).getTime()).toBe(23 * HOUR)
    expect(dayStart('2026-03-29', f).getTime() - dayStart('2026-03-28', f).getTime()).toBe(24 * HOUR)
  })

  test('a day the zone skipped is empty (Samoa, 30 December 2011)', () => {
    const f = { timeZone: 'Pacific/Apia', dayStartHour: 0 }
    expect(dayStart('2011-12-30', f)).toEqual(dayStart('2011-12-31', f))
    expect(dayOf(new Date('2011-12-30T10:00:00Z'), f)).toBe('2011-12-31')
  })
})
