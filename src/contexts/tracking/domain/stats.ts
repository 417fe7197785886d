/**
 * A habit's stats and an avatar's report (DESIGN §9.4), from its windows as the windows view reads
 * them (window-status.ts). Only due windows that were done, missed or frozen count: a window not
 * due (a vacation, a rest day, a day the zone skipped, the first window left undone) is in no
 * denominator, a window still under way counts only once done, and one ended but not yet judged
 * (PENDING, for at most a minute of the missed-window job) counts once judged.
 */
import { BadRequest } from '../../../platform/errors.js'
import { addDays, parseLocalDate, windowContaining, type LocalDate } from '../../../platform/time/index.js'
import { COMPLETION_RATE_SPANS, REPORT_EARLIEST_DATE, STRENGTH_MAX, STRENGTH_SMOOTHING, type ReportPeriod } from './rules.js'
import type { WindowStatus } from './window-status.js'

/** What a window counts as in the stats; null: it does not count. */
export type Tally = 'DONE' | 'MISSED' | 'FROZEN'

export function tallyOf(status: WindowStatus): Tally | null {
  switch (status) {
    case 'COMPLETED': return 'DONE'
    case 'MISSED': return 'MISSED'
    case 'FROZEN': return 'FROZEN'
    default: return null
  }
}

/** A window as the stats see it: its days (the end exclusive) and what became of it. */
export interface CountedWindow {
  start: LocalDate
  end: LocalDate
  status: WindowStatus
}

/** Due windows by outcome: `due` = done + missed + frozen. */
export interface WindowCounts {
  due: number
  done: number
  missed: number
  frozen: number
}

export function countWindows(windows: readonly CountedWindow[]): WindowCounts {
  const counts = { due: 0, done: 0, missed: 0, frozen: 0 }
  for (const w of windows) {
    const tally = tallyOf(w.status)
    if (tally === null) continue
    counts.due++
    if (tally === 'DONE') counts.done++
    else if (tally === 'MISSED') counts.missed++
    else counts.frozen++
  }
  return counts
}

/** The windows whose last day (the day before `end`) is on or after `first`: those that ended since, and any under way. */
const lastDayFrom = (windows: readonly CountedWindow[], first: LocalDate) => windows.filter((w) => w.end > first)

/**
 * The share of due windows done over the last `days` days, today included: the windows whose last
 * day falls in them, and the window under way (which counts only once done, like any window not
 * ended). A frozen window is due and not done. null when nothing was due.
 * `windows` are the habit's windows in order, none starting after today.
 */
export function completionRate(windows: readonly CountedWindow[], today: LocalDate, days: number): number | null {
  const firstDay = addDays(today, 1 - days)
  const { due, done } = countWindows(lastDayFrom(windows, firstDay))
  return due === 0 ? null : done / due
}

/**
 * 0–100: the exponential moving average of the due windows in order, done = 1 and missed = 0, each
 * weighing (1 − STRENGTH_SMOOTHING) times the one after it, normalised by the weights so that it
 * starts from the first window rather than from 0 (always done: 100; never: 0). A frozen window is
 * skipped, as the streak is kept over it without growing; so is every window that does not count.
 * 0 before any due window.
 */
export function strength(windows: readonly CountedWindow[]): number {
  const keep = 1 - STRENGTH_SMOOTHING
  let weighted = 0
  let weights = 0
  for (const w of windows) {
    const tally = tallyOf(w.status)
    if (tally !== 'DONE' && tally !== 'MISSED') continue
    weighted = weighted * keep + (tally === 'DONE' ? 1 : 0)
    weights = weights * keep + 1
  }
  return weights === 0 ? 0 : Math.round((STRENGTH_MAX * weighted) / weights)
}

export interface HabitRates {
  completionRate: { days7: number | null; days30: number | null; days365: number | null }
  /** Over the windows of the 365-day rate. */
  strength: number
}

/** The rates and strength of a habit from its windows whose last day is in the last 365 days or later (in order, none after today). */
export function habitRates(windows: readonly CountedWindow[], today: LocalDate): HabitRates {
  const rate = (days: number) => completionRate(windows, today, days)
  const yearLong = lastDayFrom(windows, addDays(today, 1 - COMPLETION_RATE_SPANS.days365))
  return {
    completionRate: { days7: rate(COMPLETION_RATE_SPANS.days7), days30: rate(COMPLETION_RATE_SPANS.days30), days365: rate(COMPLETION_RATE_SPANS.days365) },
    strength: strength(yearLong),
  }
}

/** The days a report covers: from its first day to the day after its last. */
export interface PeriodDays {
  from: LocalDate
  to: LocalDate
}

/** The day whose period a report covers: `asked` (a date, not after today nor before REPORT_EARLIEST_DATE), or today. */
export function reportDay(asked: string | undefined, today: LocalDate): LocalDate {
  if (asked === undefined) return today
  const refuse = (message: string) => new BadRequest(`No report for '${asked}': it ${message}.`, 'invalid-date', [{ path: '/date', message }])
  if (!parseLocalDate(asked)) throw refuse('must be a date YYYY-MM-DD')
  if (asked > today) throw refuse(`must not be after today (${today})`)
  if (asked < REPORT_EARLIEST_DATE) throw refuse(`must not be before ${REPORT_EARLIEST_DATE}`)
  return asked
}

/** A week runs from Monday, a month from its 1st: as the windows of a WEEKLY-on-Monday or MONTHLY-on-the-1st habit do. */
export function periodHolding(period: ReportPeriod, day: LocalDate): PeriodDays {
  const w = windowContaining(period === 'week' ? { type: 'WEEKLY', dayOfWeek: 'MONDAY' } : { type: 'MONTHLY', dayOfMonth: 1 }, day)
  return { from: w.start, to: w.end }
}

/**
 * A habit's due windows in a period: those whose last day falls in it (a window belongs to the
 * period it ends in), counted as `countWindows` does, so one not ended yet counts only once done.
 */
export function countInPeriod(windows: readonly CountedWindow[], period: PeriodDays): WindowCounts {
  return countWindows(windows.filter((w) => w.end > period.from && w.end <= period.to))
}
