/**
 * Local date-times as the API speaks them (`YYYY-MM-DDTHH:mm:ss`, no offset, read in a habit's
 * time zone) and what the app derives from them.
 */
import { now } from './clock'
import type { Habit } from './api/types'

export function browserTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC'
}

const formatters = new Map<string, Intl.DateTimeFormat>()

/** The wall-clock time in `timeZone` at `at` (default now), as a local date-time. */
export function localDateTime(timeZone: string, at = now()): string {
  let f = formatters.get(timeZone)
  if (!f) {
    f = new Intl.DateTimeFormat('en-CA', {
      timeZone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit',
    })
    formatters.set(timeZone, f)
  }
  const p = Object.fromEntries(f.formatToParts(at).map((x) => [x.type, x.value]))
  return `${p.year}-${p.month}-${p.day}T${p.hour}:${p.minute}:${p.second}`
}

/**
 * Whether the habit's current window is still open: its next recurrence (the start of the
 * first window after its latest completion) has come.
 */
export function isDue(h: Habit): boolean {
  return h.nextRecurrenceDate <= localDateTime(h.timeZone)
}

/** `2026-03-02T08:30:00` → `2026-03-02`. */
export const dateOf = (localDateTime: string) => localDateTime.slice(0, 10)

const DAY_MS = 86_400_000

/** Calendar arithmetic on `YYYY-MM-DD` strings, in UTC so no zone shifts a day. */
export function addDays(date: string, days: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10)
}

/** 0 = Monday … 6 = Sunday. */
export function weekdayOf(date: string): number {
  return (new Date(Date.parse(`${date}T00:00:00Z`)).getUTCDay() + 6) % 7
}

export function formatDate(localDateTime: string): string {
  const d = new Date(Date.parse(`${dateOf(localDateTime)}T00:00:00Z`))
  return d.toLocaleDateString(undefined, { timeZone: 'UTC', weekday: 'short', month: 'short', day: 'numeric' })
}

/** `P7D` → `7 days`, `PT12H` → `12 hours`: the common cases, else the text as written. */
export function describeDuration(d: string): string {
  const m = d.match(/^P(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?)?$/)
  if (!m) return d
  const parts: string[] = []
  const add = (n: string | undefined, unit: string) => {
    if (n && n !== '0') parts.push(`${n} ${unit}${n === '1' ? '' : 's'}`)
  }
  add(m[1], 'week')
  add(m[2], 'day')
  add(m[3], 'hour')
  return parts.join(' ') || d
}
