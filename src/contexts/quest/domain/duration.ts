/**
 * Quest durations: ISO 8601 `PnYnMnWnDTnHnMnS`, kept as the text the owner set and read here
 * into calendar months, days and seconds. Pure.
 */
import { InvalidDuration } from './errors.js'
import {
  DAYS_PER_WEEK, DURATION_FRACTION_DIGITS_MAX, DURATION_MAX_DAYS, MONTHS_PER_YEAR, SECONDS_PER_DAY, SECONDS_PER_HOUR,
  SECONDS_PER_MINUTE,
} from './rules.js'

/** A length of time as calendar months, then days, then seconds (applied in that order). */
export interface Duration {
  months: number
  days: number
  seconds: number
}

type Unit = 'Y' | 'M' | 'W' | 'D' | 'H' | 'MIN' | 'S'

/** Designators in the order ISO 8601 writes them; M means months before T and minutes after. */
const SHAPE = /^P(?:(\d+(?:[.,]\d+)?)Y)?(?:(\d+(?:[.,]\d+)?)M)?(?:(\d+(?:[.,]\d+)?)W)?(?:(\d+(?:[.,]\d+)?)D)?(?:T(?:(\d+(?:[.,]\d+)?)H)?(?:(\d+(?:[.,]\d+)?)M)?(?:(\d+(?:[.,]\d+)?)S)?)?$/
const UNITS: Unit[] = ['Y', 'M', 'W', 'D', 'H', 'MIN', 'S']

/** Seconds in one of a unit with a fixed length; years and months have none. */
const FIXED_SECONDS: Partial<Record<Unit, number>> = {
  W: DAYS_PER_WEEK * SECONDS_PER_DAY, D: SECONDS_PER_DAY, H: SECONDS_PER_HOUR, MIN: SECONDS_PER_MINUTE, S: 1,
}

/**
 * Reads an ISO 8601 duration. Upper-case designators in their order, at least one part, a `T`
 * only before time parts, a fraction (`.` or `,`) only on the last part and never on years or
 * months, and whole seconds in all. It must be positive and at most one year (rules.ts).
 * Throws InvalidDuration.
 */
export function parseDuration(text: string): Duration {
  const m = SHAPE.exec(text)
  if (!m || text === 'P' || text.endsWith('T')) throw new InvalidDuration(text, 'not an ISO 8601 duration')
  const parts = UNITS.map((unit, i) => ({ unit, value: m[i + 1] })).filter((p): p is { unit: Unit; value: string } => p.value !== undefined)

  const d: Duration = { months: 0, days: 0, seconds: 0 }
  for (const [i, { unit, value }] of parts.entries()) {
    const [whole, rawFraction = ''] = value.split(/[.,]/) as [string, string?]
    const fraction = rawFraction.replace(/0+$/, '')
    if (fraction && i !== parts.length - 1) throw new InvalidDuration(text, 'only the last part may have a fraction')
    const n = Number(whole)
    if (unit === 'Y' || unit === 'M') {
      if (fraction) throw new InvalidDuration(text, 'years and months have no fixed length, so they take no fraction')
      d.months += unit === 'Y' ? n * MONTHS_PER_YEAR : n
      continue
    }
    const perUnit = FIXED_SECONDS[unit]!
    if (unit === 'W' || unit === 'D') d.days += n * (unit === 'W' ? DAYS_PER_WEEK : 1)
    else d.seconds += n * perUnit
    if (fraction) d.seconds += fractionSeconds(text, fraction, perUnit)
  }
  const twelfths = d.months * DURATION_MAX_DAYS * SECONDS_PER_DAY + MONTHS_PER_YEAR * (d.days * SECONDS_PER_DAY + d.seconds)
  if (twelfths === 0) throw new InvalidDuration(text, 'it must be longer than zero')
  if (twelfths > MONTHS_PER_YEAR * DURATION_MAX_DAYS * SECONDS_PER_DAY) throw new InvalidDuration(text, 'it may be at most one year')
  return d
}

/** Whole seconds in `0.<fraction>` of a unit `perUnit` seconds long, computed exactly. */
function fractionSeconds(text: string, fraction: string, perUnit: number): number {
  if (fraction.length > DURATION_FRACTION_DIGITS_MAX) throw new InvalidDuration(text, 'the fraction is finer than a second')
  const scale = 10 ** fraction.length
  const scaled = Number(fraction) * perUnit
  if (scaled % scale !== 0) throw new InvalidDuration(text, 'the fraction is finer than a second')
  return scaled / scale
}

const DAY_MS = SECONDS_PER_DAY * 1000
const pad = (n: number, width = 2) => String(n).padStart(width, '0')

/**
 * A local date-time 'YYYY-MM-DDTHH:mm:ss' moved on by a duration as wall-clock time: months
 * first (the day kept, or the month's last day when it is shorter), then days, then seconds.
 */
export function addDuration(t: string, d: Duration): string {
  const [year, month, day, hour, minute, second] = [t.slice(0, 4), t.slice(5, 7), t.slice(8, 10), t.slice(11, 13), t.slice(14, 16), t.slice(17, 19)].map(Number) as
    [number, number, number, number, number, number]
  const index = year * MONTHS_PER_YEAR + (month - 1) + d.months
  const [y, mo] = [Math.floor(index / MONTHS_PER_YEAR), index % MONTHS_PER_YEAR]
  const lastDay = new Date(Date.UTC(y, mo + 1, 0)).getUTCDate()
  const at = new Date(Date.UTC(y, mo, Math.min(day, lastDay), hour, minute, second) + d.days * DAY_MS + d.seconds * 1000)
  return `${pad(at.getUTCFullYear(), 4)}-${pad(at.getUTCMonth() + 1)}-${pad(at.getUTCDate())}T${pad(at.getUTCHours())}:${pad(at.getUTCMinutes())}:${pad(at.getUTCSeconds())}`
}
