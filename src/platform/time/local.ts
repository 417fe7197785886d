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

export const WEEKDAYS = ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY', 'SUNDAY'] as const
export type Weekday = (typeof WEEKDAYS)[number]

/** The API's shapes; the calendar (leap days, month lengths) is Temporal's to check. */
const LOCAL_DATE = /^\d{4}-\d{2}-\d{2}$/
const LOCAL_DATE_TIME = /^\d{4}-\d{2}-\d{2}T(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d(?:\.\d{1,3})?$/

/** Temporal reads `YYYY-MM-DD` strictly: a day the month does not have is a RangeError. */
function realDate(text: string): Temporal.PlainDate | undefined {
  try {
    return Temporal.PlainDate.from(text, { overflow: 'reject' })
  } catch (e) {
    if (e instanceof RangeError) return undefined
    throw e
  }
}

/** A calendar date as `YYYY-MM-DD`, or undefined for any other text or a day that does not exist. */
export function parseLocalDate(text: string): LocalDate | undefined {
  return LOCAL_DATE.test(text) && realDate(text) ? text : undefined
}

/**
 * Reads the API's local date-time: `YYYY-MM-DDTHH:mm:ss` with an optional `.S` to `.SSS`
 * fraction, no offset, a real calendar date, hours 00–23, no leap second. Returns it as
 * `YYYY-MM-DDTHH:mm:ss` (the fraction dropped), or undefined.
 */
export function parseLocalDateTime(text: string): LocalDateTime | undefined {
  return LOCAL_DATE_TIME.test(text) && realDate(text.slice(0, 10)) ? text.slice(0, 19) : undefined
}

/** Writes a Temporal date-time as the API does: whole seconds, or milliseconds when it has them. */
export function formatLocalDateTime(t: Temporal.PlainDateTime): LocalDateTime {
  const fraction = t.millisecond !== 0 || t.microsecond !== 0 || t.nanosecond !== 0
  return t.toString({ smallestUnit: fraction ? 'millisecond' : 'second', roundingMode: 'trunc' })
}

/** The Temporal value of a local date-time the API wrote (use parseLocalDateTime on input first). */
export const plainDateTime = (t: LocalDateTime): Temporal.PlainDateTime => Temporal.PlainDateTime.from(t)
/** The Temporal value of a local date. */
export const plainDate = (d: LocalDate): Temporal.PlainDate => Temporal.PlainDate.from(d)

/** `2026-03-02T08:30:00` → `2026-03-02`. */
export const dateOf = (t: LocalDateTime): LocalDate => t.slice(0, 10)

/** Where a local day begins on the wall clock: its 00:00:00. */
export const startOfDay = (d: LocalDate): LocalDateTime => `${d}T00:00:00`

export function addDays(d: LocalDate, days: number): LocalDate {
  return plainDate(d).add({ days }).toString()
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
