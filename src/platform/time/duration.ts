/**
 * ISO 8601 durations as the API takes them (`P7D`, `PT12H`, `P1M2D`): read by Temporal, then held
 * to the API's own limits. Kept by callers as the text that was sent; read here when used.
 */
import { Temporal } from 'temporal-polyfill'
import { formatLocalDateTime, plainDateTime, type LocalDateTime } from './local.js'

export type Duration = Temporal.Duration

export type DurationReading = { ok: true; duration: Duration } | { ok: false; reason: string }

export interface DurationLimits {
  /**
   * The longest allowed, in days. Durations that mix calendar parts with days and times are
   * compared with a year as 365 days and a month as a twelfth of that (P1Y = P12M = P365D).
   */
  maxDays?: number
}

const DAYS_PER_YEAR = 365
const MONTHS_PER_YEAR = 12
const DAYS_PER_WEEK = 7
const SECONDS_PER_DAY = 86_400

/**
 * Temporal also reads lower-case designators and a leading sign (`p7d`, `+P7D`, `-P7D`); the API
 * does not. Everything else about the grammar is Temporal's.
 */
const API_SHAPE = /^P[0-9YMWDTHS.,]*$/
/** Only for a clearer refusal: a fraction on years, months, weeks or days (a part after P or a date part). */
const DATE_PART_FRACTION = /[PYMWD]\d+[.,]\d+[YMWD]/
/** Only for a clearer refusal: a fraction followed by another part. */
const FRACTION_NOT_LAST = /\d[.,]\d+[A-Z]\d/

function refusedShape(text: string): string {
  if (DATE_PART_FRACTION.test(text)) {
    return 'years, months, weeks and days take no fraction; give the rest in hours, minutes or seconds (a day and a half is P1DT12H)'
  }
  if (FRACTION_NOT_LAST.test(text)) return 'only the last part may have a fraction'
  return 'not an ISO 8601 duration (or a number in it is too large)'
}

/**
 * Reads an ISO 8601 duration `PnYnMnWnDTnHnMnS`: upper-case designators in that order, no sign,
 * at least one part, a fraction (`.` or `,`, up to 9 digits) only on the last part and only on
 * hours, minutes or seconds (Temporal's rule). Then the API's limits: longer than zero, whole
 * seconds, and at most `maxDays` when given. Never throws for bad text: says why instead.
 */
export function readDuration(text: string, limits: DurationLimits = {}): DurationReading {
  if (!API_SHAPE.test(text)) return { ok: false, reason: 'not an ISO 8601 duration' }
  let d: Temporal.Duration
  try {
    d = Temporal.Duration.from(text)
  } catch (e) {
    if (e instanceof RangeError) return { ok: false, reason: refusedShape(text) }
    throw e
  }
  if (d.milliseconds !== 0 || d.microseconds !== 0 || d.nanoseconds !== 0) return { ok: false, reason: 'the fraction is finer than a second' }
  if (d.sign === 0) return { ok: false, reason: 'it must be longer than zero' }
  if (limits.maxDays !== undefined && twelfthsOfSeconds(d) > MONTHS_PER_YEAR * limits.maxDays * SECONDS_PER_DAY) {
    return { ok: false, reason: `it may be at most ${limits.maxDays} days (a year counts as ${DAYS_PER_YEAR}, a month as a twelfth of that)` }
  }
  return { ok: true, duration: d }
}

/**
 * The length of a positive whole-second duration in twelfths of a second, with a month as a
 * twelfth of a 365-day year: whole numbers, so the comparison with a limit is exact.
 */
function twelfthsOfSeconds(d: Temporal.Duration): number {
  const months = d.years * MONTHS_PER_YEAR + d.months
  const seconds = (d.weeks * DAYS_PER_WEEK + d.days) * SECONDS_PER_DAY + d.hours * 3600 + d.minutes * 60 + d.seconds
  return months * DAYS_PER_YEAR * SECONDS_PER_DAY + MONTHS_PER_YEAR * seconds
}

/**
 * A local date-time moved on by a duration as wall-clock time (no zone): years and months
 * first (the day kept, or the month's last day when it is shorter), then weeks, days and time.
 * 31 January + P1M1D is 1 March: 28 February, then a day.
 */
export function addDuration(t: LocalDateTime, d: Duration): LocalDateTime {
  return formatLocalDateTime(plainDateTime(t).add(d, { overflow: 'constrain' }))
}
