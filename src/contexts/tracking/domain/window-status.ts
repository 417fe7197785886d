/**
 * What became of each of a habit's windows over a span of days: the windows view shows it, and
 * the stats (stats.ts) count it, so both read a window alike.
 */
import { nextWindow, windowContaining, type LocalDate, type Window } from '../../../platform/time/index.js'
import { doneWindows, isDue, type Habit } from './habit.js'
import { hasEnded, todayOf, type SettingsEntry } from './settings.js'

export type WindowStatus = 'COMPLETED' | 'MISSED' | 'FROZEN' | 'NOT_DUE' | 'OPEN' | 'PENDING' | 'PARTIAL' | 'UPCOMING'

/** One window of a habit and what became of it. */
export interface WindowView {
  start: LocalDate
  end: LocalDate
  status: WindowStatus
  completions: number
}

/** What is stored of a habit's windows over a span: the slots its completions filled, and the judged windows' outcomes by start. */
export interface WindowRecords {
  slots: readonly LocalDate[]
  judged: ReadonlyMap<LocalDate, string>
}

/** The first of the habit's windows holding a day from `from` on: nothing before its first window is the habit's. */
export const firstWindowFrom = (h: Habit, from: LocalDate): Window =>
  windowContaining(h.recurrence, from > h.firstWindowStart ? from : h.firstWindowStart)

/**
 * The habit's windows from `first` that start before `to` (at most `max`), with what became of
 * each: done (for TIMES_PER_WEEK a week short so far is PARTIAL), judged missed, frozen or not due
 * (the first window, which never penalises, too), still open, ended and waiting for the job
 * (PENDING), or not begun (UPCOMING). `records` must hold the span's completions and judgements.
 */
export function windowsOver(
  h: Habit, history: readonly SettingsEntry[], records: WindowRecords, first: Window, to: LocalDate, now: Date, max: number,
): WindowView[] {
  const done = doneWindows(h.recurrence, records.slots)
  const today = todayOf(history, h.ownTimeZone, now)
  const out: WindowView[] = []
  for (let w = first; w.start < to && out.length < max; w = nextWindow(h.recurrence, w)) {
    const count = records.slots.filter((s) => s >= w.start && s < w.end).length
    const status: WindowStatus = done.has(w.start) ? 'COMPLETED'
      : (records.judged.get(w.start) as WindowStatus | undefined) ?? unjudgedStatus(h, history, w, today, count, now)
    out.push({ start: w.start, end: w.end, status, completions: count })
  }
  return out
}

/** A window not done and not judged: the first window is never judged (it never penalises); a later one is, once it ends. */
function unjudgedStatus(h: Habit, history: readonly SettingsEntry[], w: Window, today: LocalDate, completions: number, now: Date): WindowStatus {
  if (w.start > today) return 'UPCOMING'
  if (!hasEnded(history, h.ownTimeZone, w, now)) return completions > 0 ? 'PARTIAL' : 'OPEN'
  return w.start === h.firstWindowStart || !isDue(h, history, w) ? 'NOT_DUE' : 'PENDING'
}
