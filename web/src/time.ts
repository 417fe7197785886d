/**
 * Local date-times as the API speaks them (`YYYY-MM-DDTHH:mm:ss`, no offset, read in a habit's
 * time zone) and what the app derives from them. The arithmetic is the platform's own time
 * module (src/platform/time), the one the server counts windows with; here only what is shown.
 */
import { Temporal } from 'temporal-polyfill'
import { dateOf, dayOf, dayOfLocal, localDateTimeIn, readDuration, type LocalDate } from '../../src/platform/time/index.js'
import type { Habit } from './api/types'
import { now } from './clock'

export function browserTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC'
}

/** The wall-clock time in `timeZone` at `at` (default now), as a local date-time. */
export function localDateTime(timeZone: string, at = now()): string {
  return localDateTimeIn(new Date(at), timeZone)
}

/**
 * The player's day now in `timeZone`: it starts at `dayStartHour` (the avatar's settings), so with
 * 4 it is still yesterday at 01:30.
 */
export function playerToday(timeZone: string, dayStartHour: number, at = now()): LocalDate {
  return dayOf(new Date(at), { timeZone, dayStartHour })
}

/** The player's day a local date-time (in `timeZone`) falls on. */
export const playerDayOf = (t: string, timeZone: string, dayStartHour: number): LocalDate => dayOfLocal(t, { timeZone, dayStartHour })

/**
 * Whether the habit's current window is still open: its next recurrence (the start of the
 * first window after its latest completion) has come.
 */
export function isDue(h: Habit): boolean {
  return h.nextRecurrenceDate <= localDateTime(h.timeZone)
}

/** `2026-03-02T08:30:00` → `Mon, Mar 2` in the reader's language; the date as written, no zone shifts it. */
export function formatDate(localDateTime: string): string {
  return Temporal.PlainDate.from(dateOf(localDateTime)).toLocaleString(undefined, { weekday: 'short', month: 'short', day: 'numeric' })
}

const UNITS = [['years', 'year'], ['months', 'month'], ['weeks', 'week'], ['days', 'day'], ['hours', 'hour'], ['minutes', 'minute'], ['seconds', 'second']] as const

/** `P7D` → `7 days`, `P1M2DT3H` → `1 month 2 days 3 hours`; text that is not a duration is shown as written. */
export function describeDuration(text: string): string {
  const r = readDuration(text)
  if (!r.ok) return text
  const d = r.duration
  return UNITS.filter(([field]) => d[field] !== 0).map(([field, unit]) => `${d[field]} ${unit}${d[field] === 1 ? '' : 's'}`).join(' ')
}
