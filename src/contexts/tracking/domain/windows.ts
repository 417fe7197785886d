/**
 * Recurrence windows, in calendar dates with no zone. An occurrence's window runs from its
 * date (inclusive) to the next occurrence's date (exclusive). Pure: callers pass instants.
 * Arithmetic runs on UTC-midnight timestamps, never the host's local zone.
 */
export type LocalDate = string
export type LocalDateTime = string

export const WEEKDAYS = ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY', 'SUNDAY'] as const
export type Weekday = (typeof WEEKDAYS)[number]

export type Recurrence =
  | { type: 'DAILY' }
  | { type: 'WEEKLY'; dayOfWeek: Weekday }
  | { type: 'MONTHLY'; dayOfMonth: number }

export interface Window {
  start: LocalDate
  end: LocalDate
}

const DAY_MS = 86_400_000
const pad = (n: number, width = 2) => String(n).padStart(width, '0')

function toMs(d: LocalDate): number {
  return Date.UTC(Number(d.slice(0, 4)), Number(d.slice(5, 7)) - 1, Number(d.slice(8, 10)))
}

function fromMs(ms: number): LocalDate {
  const t = new Date(ms)
  return `${pad(t.getUTCFullYear(), 4)}-${pad(t.getUTCMonth() + 1)}-${pad(t.getUTCDate())}`
}

export const addDays = (d: LocalDate, n: number): LocalDate => fromMs(toMs(d) + n * DAY_MS)

export function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate()
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

export const nextWindow = (r: Recurrence, w: Window): Window => windowContaining(r, w.end)
export const previousWindow = (r: Recurrence, w: Window): Window => windowContaining(r, addDays(w.start, -1))

export const dateOf = (t: LocalDateTime): LocalDate => t.slice(0, 10)

/** Every window overlapping the local-time span [from, to), in order. */
export function windowsOverlapping(r: Recurrence, from: LocalDateTime, to: LocalDateTime): Window[] {
  const out: Window[] = []
  for (let w = windowContaining(r, dateOf(from)); `${w.start}T00:00:00` < to; w = nextWindow(r, w)) out.push(w)
  return out
}

/** The windows from the one holding `from` whose end is on or before `until`, at most `limit`. */
export function windowsEndedBetween(r: Recurrence, from: LocalDate, until: LocalDate, limit = 400): Window[] {
  const out: Window[] = []
  for (let w = windowContaining(r, from); w.end <= until && out.length < limit; w = nextWindow(r, w)) out.push(w)
  return out
}

const LOCAL_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d{1,3})?$/

/** A contract local date-time, normalised to 'YYYY-MM-DDTHH:mm:ss'; undefined when malformed or not a real date. */
export function parseLocalDateTime(s: string): LocalDateTime | undefined {
  const m = LOCAL_DATE_TIME.exec(s)
  if (!m) return undefined
  const [, y, mo, d, h, mi, se] = m.map(Number) as number[]
  if (mo! < 1 || mo! > 12 || d! < 1 || d! > daysInMonth(y!, mo!) || h! > 23 || mi! > 59 || se! > 59) return undefined
  return s.slice(0, 19)
}

export function addHours(t: LocalDateTime, hours: number): LocalDateTime {
  const ms = toMs(dateOf(t)) + Number(t.slice(11, 13)) * 3_600_000 + Number(t.slice(14, 16)) * 60_000 + Number(t.slice(17, 19)) * 1000
  const shifted = new Date(ms + hours * 3_600_000)
  return `${fromMs(shifted.getTime())}T${pad(shifted.getUTCHours())}:${pad(shifted.getUTCMinutes())}:${pad(shifted.getUTCSeconds())}`
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

/** The wall-clock date-time of an instant in an IANA time zone. */
export function localDateTimeIn(instant: Date, timeZone: string): LocalDateTime {
  const parts: Record<string, string> = {}
  for (const p of formatterFor(timeZone).formatToParts(instant)) parts[p.type] = p.value
  return `${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}:${parts.second}`
}

export function isValidTimeZone(tz: string): boolean {
  try {
    formatterFor(tz)
    return true
  } catch (e) {
    if (e instanceof RangeError) return false
    throw e
  }
}
