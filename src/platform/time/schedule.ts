/**
 * Recurrences and their windows, in local dates (no zone). Occurrences: DAILY every day, WEEKLY
 * on a weekday, MONTHLY on a day of the month (31, or 29 and 30, meaning the month's last day
 * when it is shorter), TIMES_PER_WEEK every ISO week (from Monday), EVERY_N_DAYS every N days
 * from an anchor day. An occurrence's window runs from its date (inclusive) to the next
 * occurrence's date (exclusive), so the windows of a recurrence tile the calendar.
 *
 * Only calendar arithmetic: what a window means (attends, streaks, rewards, quest progress) is
 * the contexts' to decide.
 */
import { Temporal } from 'temporal-polyfill'
import { WEEKDAYS, addDays, dateOf, daysBetween, plainDate, startOfDay, type LocalDate, type LocalDateTime, type Weekday } from './local.js'

/** The contract's three, then the flexible schedules (DESIGN §9.3). */
export const RECURRENCE_TYPES = ['DAILY', 'WEEKLY', 'MONTHLY', 'TIMES_PER_WEEK', 'EVERY_N_DAYS'] as const
export type RecurrenceType = (typeof RECURRENCE_TYPES)[number]

export type Recurrence =
  | { type: 'DAILY' }
  | { type: 'WEEKLY'; dayOfWeek: Weekday }
  /** 1–31; 31 (or 29/30) means the month's last day when the month is shorter. */
  | { type: 'MONTHLY'; dayOfMonth: number }
  /** The window is the ISO week; it is done at `timesPerWeek` completions (1–7), at most one a day. */
  | { type: 'TIMES_PER_WEEK'; timesPerWeek: number }
  /** Windows of `everyNDays` days, the first starting on `anchor` (a habit's first day). */
  | { type: 'EVERY_N_DAYS'; everyNDays: number; anchor: LocalDate }

/** A recurrence as flat fields (the API's and the table's shape): a field that does not apply is null. */
export const recurrenceFields = (r: Recurrence) => ({
  type: r.type,
  dayOfWeek: r.type === 'WEEKLY' ? r.dayOfWeek : null,
  dayOfMonth: r.type === 'MONTHLY' ? r.dayOfMonth : null,
  timesPerWeek: r.type === 'TIMES_PER_WEEK' ? r.timesPerWeek : null,
  everyNDays: r.type === 'EVERY_N_DAYS' ? r.everyNDays : null,
})

/** The recurrence with its windows counted from `day` (EVERY_N_DAYS; the others have no anchor). */
export const anchoredAt = (r: Recurrence, day: LocalDate): Recurrence => (r.type === 'EVERY_N_DAYS' ? { ...r, anchor: day } : r)

/** From an occurrence's date (inclusive) to the next occurrence's date (exclusive). */
export interface Window {
  start: LocalDate
  end: LocalDate
}

/** The occurrence in the month holding `day`: the day of the month, or the month's last day when it is shorter. */
const occurrenceInMonthOf = (day: Temporal.PlainDate, dayOfMonth: number) => day.with({ day: dayOfMonth }, { overflow: 'constrain' })

function computeWindowContaining(r: Recurrence, date: LocalDate): Window {
  if (r.type === 'DAILY') return { start: date, end: addDays(date, 1) }
  if (r.type === 'EVERY_N_DAYS') {
    const periods = Math.floor(daysBetween(r.anchor, date) / r.everyNDays)
    const start = addDays(r.anchor, periods * r.everyNDays)
    return { start, end: addDays(start, r.everyNDays) }
  }
  const d = plainDate(date)
  if (r.type === 'WEEKLY' || r.type === 'TIMES_PER_WEEK') {
    // dayOfWeek: 1 (Monday) … 7 (Sunday), the order of WEEKDAYS.
    const weekday = r.type === 'WEEKLY' ? WEEKDAYS.indexOf(r.dayOfWeek) : 0
    const back = (d.dayOfWeek - 1 - weekday + 7) % 7
    const start = d.subtract({ days: back })
    return { start: start.toString(), end: start.add({ days: 7 }).toString() }
  }
  const thisMonth = occurrenceInMonthOf(d, r.dayOfMonth)
  const start = Temporal.PlainDate.compare(d, thisMonth) >= 0 ? thisMonth : occurrenceInMonthOf(d.with({ day: 1 }).subtract({ months: 1 }), r.dayOfMonth)
  const end = occurrenceInMonthOf(start.with({ day: 1 }).add({ months: 1 }), r.dayOfMonth)
  return { start: start.toString(), end: end.toString() }
}

/**
 * The same windows are asked for again and again (a streak walks back through a habit's recent
 * windows on every attend) and the polyfill takes microseconds per step of date arithmetic, so
 * answers are remembered: up to REMEMBERED_MAX, the oldest forgotten first. They are shared,
 * hence frozen.
 */
const remembered = new Map<string, Window>()
const REMEMBERED_MAX = 10_000

function remember(key: string, compute: () => Window): Window {
  const known = remembered.get(key)
  if (known) return known
  const w = Object.freeze(compute())
  if (remembered.size >= REMEMBERED_MAX) remembered.delete(remembered.keys().next().value!)
  remembered.set(key, w)
  return w
}

function keyOf(r: Recurrence): string {
  switch (r.type) {
    case 'DAILY': return 'D'
    case 'WEEKLY': return `W${r.dayOfWeek}`
    case 'MONTHLY': return `M${r.dayOfMonth}`
    // The windows are the ISO weeks whatever the count.
    case 'TIMES_PER_WEEK': return 'WMONDAY'
    case 'EVERY_N_DAYS': return `E${r.everyNDays}@${r.anchor}`
  }
}

/** The window holding `date`: from the latest occurrence on or before it to the next occurrence. */
export function windowContaining(r: Recurrence, date: LocalDate): Window {
  return remember(`${keyOf(r)} ${date}`, () => computeWindowContaining(r, date))
}

/** The window starting at `w.end`. */
export function nextWindow(r: Recurrence, w: Window): Window {
  return windowContaining(r, w.end)
}

/** The window ending at `w.start`. */
export function previousWindow(r: Recurrence, w: Window): Window {
  return remember(`${keyOf(r)} <${w.start}`, () => windowContaining(r, addDays(w.start, -1)))
}

/**
 * Every window that overlaps the half-open local span [from, to), in order: a window [s, e)
 * overlaps when s 00:00 < to and e 00:00 > from; the first is the one holding `from`. None
 * when `to` ≤ `from`.
 */
export function windowsOverlapping(r: Recurrence, from: LocalDateTime, to: LocalDateTime): Window[] {
  const out: Window[] = []
  if (to <= from) return out
  for (let w = windowContaining(r, dateOf(from)); startOfDay(w.start) < to; w = nextWindow(r, w)) out.push(w)
  return out
}

/**
 * Windows whose end is ≤ `until`, starting with the window containing `from` (catching up on
 * windows that have ended). At most `limit`.
 */
export function windowsEndedBetween(r: Recurrence, from: LocalDate, until: LocalDate, limit = 400): Window[] {
  const out: Window[] = []
  for (let w = windowContaining(r, from); w.end <= until && out.length < limit; w = nextWindow(r, w)) out.push(w)
  return out
}
