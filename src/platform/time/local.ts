/**
 * Local dates and date-times as the API writes them: calendar dates and wall-clock times with
 * no zone (DESIGN §4). They travel as text — `YYYY-MM-DD` and `YYYY-MM-DDTHH:mm:ss[.SSS]` — and
 * are stored as text; the arithmetic runs on Temporal's plain types, in the ISO calendar.
 *
 * Both texts are fixed width, so they order as the times they name and `<` compares them (a
 * fraction sorts after the whole second it belongs to). Years are four digits, 0000–9999.
 */
import { Temporal } from 'temporal-polyfill'

/** A calendar date, `YYYY-MM-DD`. */
export type LocalDate = string
/** A wall-clock date-time with no offset, `YYYY-MM-DDTHH:mm:ss` with an optional `.SSS`. */
export type LocalDateTime = string

/** Milliseconds in 24 hours: a UTC day, between instants (a day in a zone may run 23 or 25 hours). */
export const DAY_MS = 86_400_000

export const WEEKDAYS = ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY', 'SUNDAY'] as const
export type Weekday = (typeof WEEKDAYS)[number]

/** The API's shapes; the calendar (leap days, month lengths) is Temporal's to check. */
const LOCAL_DATE = /^\d{4}-\d{2}-\d{2}$/
/** A local date-time's shape, as a JSON Schema `pattern` too: months 01–12, days 01–31, hours 00–23, no offset. */
export const LOCAL_DATE_TIME_PATTERN = '^\\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\\d|3[01])T([01]\\d|2[0-3]):[0-5]\\d:[0-5]\\d(\\.\\d{1,3})?$'
const LOCAL_DATE_TIME = new RegExp(LOCAL_DATE_TIME_PATTERN)

/*
 * The texts are fixed width, so their numbers are read by position and handed to Temporal's
 * constructors, which refuse a day the month does not have (RangeError). That is several times
 * faster with the polyfill than Temporal's string parser, and these run on every request that
 * names a date.
 */
const numberAt = (text: string, from: number, to: number) => Number(text.slice(from, to))
const pad = (n: number, width = 2) => String(n).padStart(width, '0')

/** Whether a `YYYY-MM-DD` (already of that shape) names a day the calendar has. */
function isRealDate(text: string): boolean {
  try {
    plainDate(text)
    return true
  } catch (e) {
    if (e instanceof RangeError) return false
    throw e
  }
}

/** A calendar date as `YYYY-MM-DD`, or undefined for any other text or a day that does not exist. */
export function parseLocalDate(text: string): LocalDate | undefined {
  return LOCAL_DATE.test(text) && isRealDate(text) ? text : undefined
}

/**
 * Reads the API's local date-time: `YYYY-MM-DDTHH:mm:ss` with an optional `.S` to `.SSS`
 * fraction, no offset, a real calendar date, hours 00–23, no leap second. Returns it as
 * `YYYY-MM-DDTHH:mm:ss` (the fraction dropped), or undefined.
 */
export function parseLocalDateTime(text: string): LocalDateTime | undefined {
  return LOCAL_DATE_TIME.test(text) && isRealDate(text.slice(0, 10)) ? text.slice(0, 19) : undefined
}

/** Writes a Temporal date-time as the API does: whole seconds, or `.SSS` when it has milliseconds (finer parts dropped). */
export function formatLocalDateTime(t: Temporal.PlainDateTime): LocalDateTime {
  const text = `${pad(t.year, 4)}-${pad(t.month)}-${pad(t.day)}T${pad(t.hour)}:${pad(t.minute)}:${pad(t.second)}`
  return t.millisecond === 0 ? text : `${text}.${pad(t.millisecond, 3)}`
}

/** The Temporal value of a local date-time in the API's shape (check input with parseLocalDateTime first). */
export function plainDateTime(t: LocalDateTime): Temporal.PlainDateTime {
  const millisecond = t.length > 20 ? Number(t.slice(20).padEnd(3, '0')) : 0
  return new Temporal.PlainDateTime(
    numberAt(t, 0, 4), numberAt(t, 5, 7), numberAt(t, 8, 10), numberAt(t, 11, 13), numberAt(t, 14, 16), numberAt(t, 17, 19), millisecond,
  )
}

/** The Temporal value of a local date in the API's shape (check input with parseLocalDate first). */
export function plainDate(d: LocalDate): Temporal.PlainDate {
  return new Temporal.PlainDate(numberAt(d, 0, 4), numberAt(d, 5, 7), numberAt(d, 8, 10))
}

/** `2026-03-02T08:30:00` → `2026-03-02`. */
export const dateOf = (t: LocalDateTime): LocalDate => t.slice(0, 10)

/** Where a local day begins on the wall clock: its 00:00:00. */
export const startOfDay = (d: LocalDate): LocalDateTime => `${d}T00:00:00`

export function addDays(d: LocalDate, days: number): LocalDate {
  return plainDate(d).add({ days }).toString()
}

/** Whole days from `from` to `to` (negative when `to` is earlier). */
export function daysBetween(from: LocalDate, to: LocalDate): number {
  return Math.round((epochDay(to) - epochDay(from)))
}

/** Days since 1970-01-01 (UTC arithmetic: every calendar day is one). */
function epochDay(d: LocalDate): number {
  const t = new Date(0)
  t.setUTCFullYear(numberAt(d, 0, 4), numberAt(d, 5, 7) - 1, numberAt(d, 8, 10))
  return t.getTime() / DAY_MS
}

/** Moves a date by whole months, keeping the day, or taking the month's last day when it is shorter. */
export function addMonths(d: LocalDate, months: number): LocalDate {
  return plainDate(d).add({ months }, { overflow: 'constrain' }).toString()
}

/** Days in `month` (1–12) of `year`. */
export function daysInMonth(year: number, month: number): number {
  return Temporal.PlainYearMonth.from({ year, month }, { overflow: 'reject' }).daysInMonth
}

export function weekdayOf(d: LocalDate): Weekday {
  // Temporal numbers the days of the week 1 (Monday) to 7 (Sunday), as WEEKDAYS lists them.
  return WEEKDAYS[plainDate(d).dayOfWeek - 1]!
}

/**
 * Adds hours to a wall-clock date-time as naive arithmetic: no zone, so every day has 24 hours
 * (for "at most a day ahead" checks, not for what a clock in a zone will show).
 */
export function addHours(t: LocalDateTime, hours: number): LocalDateTime {
  return formatLocalDateTime(plainDateTime(t).add({ hours }))
}
