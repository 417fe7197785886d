/**
 * Recurrence windows, in calendar dates with no zone. An occurrence's window runs from its
 * date (inclusive) to the next occurrence's date (exclusive). Pure: callers pass instants.
 * Arithmetic runs on UTC-midnight timestamps, never the host's local zone.
 *
 * Dates are proleptic Gregorian, years 0000–9999 (the contract's four-digit years).
 */
export type LocalDate = string
export type LocalDateTime = string

export const WEEKDAYS = ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY', 'SUNDAY'] as const
export type Weekday = (typeof WEEKDAYS)[number]

export type Recurrence =
  | { type: 'DAILY' }
  | { type: 'WEEKLY'; dayOfWeek: Weekday }
  /** 1–31; 31 (or 29/30) means the month's last day when the month is shorter. */
  | { type: 'MONTHLY'; dayOfMonth: number }

/** A recurrence as flat fields (the API's and the table's shape): the day that does not apply is null. */
export const recurrenceFields = (r: Recurrence) => ({
  type: r.type,
  dayOfWeek: r.type === 'WEEKLY' ? r.dayOfWeek : null,
  dayOfMonth: r.type === 'MONTHLY' ? r.dayOfMonth : null,
})

/** A window runs from an occurrence's date (inclusive) to the next occurrence's date (exclusive). */
export interface Window {
  start: LocalDate
  end: LocalDate
}

const DAY_MS = 86_400_000
const HOUR_MS = 3_600_000
const pad = (n: number, width = 2) => String(n).padStart(width, '0')

/**
 * UTC-midnight timestamp of a calendar date. `Date.UTC` reads years 0–99 as 1900–1999, so the
 * year is set with `setUTCFullYear`, which takes it literally.
 */
function utcMs(year: number, monthIndex: number, day: number): number {
  const t = new Date(0)
  t.setUTCFullYear(year, monthIndex, day)
  return t.getTime()
}

const toMs = (d: LocalDate): number => utcMs(Number(d.slice(0, 4)), Number(d.slice(5, 7)) - 1, Number(d.slice(8, 10)))

function fromMs(ms: number): LocalDate {
  const t = new Date(ms)
  return `${pad(t.getUTCFullYear(), 4)}-${pad(t.getUTCMonth() + 1)}-${pad(t.getUTCDate())}`
}

export function addDays(d: LocalDate, n: number): LocalDate {
  return fromMs(toMs(d) + n * DAY_MS)
}

const MONTH_LENGTHS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31] as const

const isLeapYear = (year: number) => (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0

/** Days in `month` (1–12) of `year`. */
export function daysInMonth(year: number, month: number): number {
  if (month === 2 && isLeapYear(year)) return 29
  const days = MONTH_LENGTHS[month - 1]
  if (days === undefined) throw new RangeError(`month ${month} is not 1–12`)
  return days
}

export function weekdayOf(d: LocalDate): Weekday {
  // getUTCDay: 0 = Sunday … 6 = Saturday; WEEKDAYS starts on Monday.
  return WEEKDAYS[(new Date(toMs(d)).getUTCDay() + 6) % 7]!
}

/** The date of the occurrence in a month: the day, or the month's last day when it is shorter. */
function monthlyOccurrence(year: number, month: number, dayOfMonth: number): LocalDate {
  return `${pad(year, 4)}-${pad(month)}-${pad(Math.min(dayOfMonth, daysInMonth(year, month)))}`
}

function shiftMonth(year: number, month: number, by: number): [number, number] {
  const index = year * 12 + (month - 1) + by
  return [Math.floor(index / 12), (index % 12) + 1]
}

export function windowContaining(r: Recurrence, date: LocalDate): Window {
  if (r.type === 'DAILY') return { start: date, end: addDays(date, 1) }
  if (r.type === 'WEEKLY') {
    const back = (WEEKDAYS.indexOf(weekdayOf(date)) - WEEKDAYS.indexOf(r.dayOfWeek) + 7) % 7
    const start = addDays(date, -back)
    return { start, end: addDays(start, 7) }
  }
  const year = Number(date.slice(0, 4))
  const month = Number(date.slice(5, 7))
  const thisMonth = monthlyOccurrence(year, month, r.dayOfMonth)
  const [sy, sm] = date >= thisMonth ? [year, month] : shiftMonth(year, month, -1)
  const [ey, em] = shiftMonth(sy, sm, 1)
  return { start: monthlyOccurrence(sy, sm, r.dayOfMonth), end: monthlyOccurrence(ey, em, r.dayOfMonth) }
}

/** The window starting at `w.end`. */
export function nextWindow(r: Recurrence, w: Window): Window {
  return windowContaining(r, w.end)
}

/** The window ending at `w.start`. */
export function previousWindow(r: Recurrence, w: Window): Window {
  return windowContaining(r, addDays(w.start, -1))
}

export const dateOf = (t: LocalDateTime): LocalDate => t.slice(0, 10)

/**
 * Every window that overlaps the half-open local-time span [from, to) (to > from), in order.
 * A window [s, e) overlaps when s 00:00 < to and e 00:00 > from; the first is the one holding
 * `from`. Fixed-width ISO strings order like the times they name (a fraction sorts after the
 * whole second), so they are compared as strings.
 */
export function windowsOverlapping(r: Recurrence, from: LocalDateTime, to: LocalDateTime): Window[] {
  const out: Window[] = []
  if (to <= from) return out
  for (let w = windowContaining(r, dateOf(from)); `${w.start}T00:00:00` < to; w = nextWindow(r, w)) out.push(w)
  return out
}

/**
 * Windows whose end is ≤ `until`, starting with the window containing `from` (for catching up
 * on missed windows). At most `limit`.
 */
export function windowsEndedBetween(r: Recurrence, from: LocalDate, until: LocalDate, limit = 400): Window[] {
  const out: Window[] = []
  for (let w = windowContaining(r, from); w.end <= until && out.length < limit; w = nextWindow(r, w)) out.push(w)
  return out
}

const LOCAL_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.\d{1,3})?$/

/**
 * Parses a contract local date-time: 'YYYY-MM-DDTHH:mm:ss' with an optional '.S{1,3}'
 * fraction, no offset, a real calendar date, hours 00–23. Returns it normalised to
 * 'YYYY-MM-DDTHH:mm:ss' (fraction dropped), or undefined.
 */
export function parseLocalDateTime(s: string): LocalDateTime | undefined {
  const m = LOCAL_DATE_TIME.exec(s)
  if (!m) return undefined
  const [y, mo, d, h, mi, se] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number]
  if (mo < 1 || mo > 12 || d < 1 || d > daysInMonth(y, mo) || h > 23 || mi > 59 || se > 59) return undefined
  return s.slice(0, 19)
}

/**
 * Adds hours to a wall-clock date-time as naive arithmetic (no zone): every day has 24 hours.
 * A '.SSS' fraction on `t` is kept as it is.
 */
export function addHours(t: LocalDateTime, hours: number): LocalDateTime {
  const ms = toMs(dateOf(t)) + Number(t.slice(11, 13)) * HOUR_MS + Number(t.slice(14, 16)) * 60_000 + Number(t.slice(17, 19)) * 1000
  const shifted = new Date(ms + hours * HOUR_MS)
  const time = `${pad(shifted.getUTCHours())}:${pad(shifted.getUTCMinutes())}:${pad(shifted.getUTCSeconds())}`
  return `${fromMs(shifted.getTime())}T${time}${t.slice(19)}`
}

const formatters = new Map<string, Intl.DateTimeFormat>()

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone)
  if (!f) {
    f = new Intl.DateTimeFormat('en-CA', {
      timeZone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit',
    })
    formatters.set(timeZone, f)
  }
  return f
}

/** The wall-clock date-time of an instant in an IANA time zone, as 'YYYY-MM-DDTHH:mm:ss'. */
export function localDateTimeIn(instant: Date, timeZone: string): LocalDateTime {
  const parts: Partial<Record<Intl.DateTimeFormatPartTypes, string>> = {}
  for (const p of formatterFor(timeZone).formatToParts(instant)) parts[p.type] = p.value
  return `${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}:${parts.second}`
}

/**
 * Whether `tz` names an IANA time zone. Offsets such as '+02:00' are refused here even though
 * newer runtimes' Intl accepts them, so the answer does not depend on the Node version.
 */
export function isValidTimeZone(tz: string): boolean {
  if (/^[+-]/.test(tz)) return false
  try {
    formatterFor(tz)
    return true
  } catch (e) {
    if (e instanceof RangeError) return false
    throw e
  }
}
