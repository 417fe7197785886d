/**
 * Archiving a habit: it is kept with its history (its windows, stats and completions stay readable),
 * and while archived it is not attended, not judged, not reminded of and not in the calendar feed.
 *
 * What archiving does to the windows: every window that **starts while the habit is archived** is
 * not due (no penalty, not in the rates, a streak carries over it, completing it later is rewarded
 * like any completion). That includes the window under way when the habit is brought back: it began
 * while the player could not attend it, so it never penalises, as a new habit's first window does
 * not. The window under way when the habit is archived stays due, as a vacation set today does not
 * excuse today: the missed-window job judges it once it has ended and the habit is back. So archiving
 * and bringing a habit back within one window excuses nothing, and no window a player owed is
 * excused by archiving around it.
 *
 * The habit keeps the spans of days those windows started on (the latest ARCHIVED_SPANS_KEPT; the
 * job records each of their windows as NOT_DUE once the habit is back, so older spans are kept in
 * the records as well).
 */
import { windowContaining, type LocalDate } from '../../../platform/time/index.js'
import type { Habit } from './habit.js'
import { ARCHIVED_SPANS_KEPT } from './rules.js'

/** Windows starting on `from` or later and before `until` started while the habit was archived; `until` null: it still is. */
export interface ArchivedSpan {
  from: LocalDate
  until: LocalDate | null
}

/** Whether the window starting on `start` started while the habit was archived (so it is not due). */
export const startedWhileArchived = (h: Pick<Habit, 'archivedSpans'>, start: LocalDate): boolean =>
  h.archivedSpans.some((s) => s.from <= start && (s.until === null || start < s.until))

/** The habit archived on its day `today`: the windows after the one under way start while it is archived. */
export function archive(h: Habit, today: LocalDate): Habit {
  if (h.archived) return h
  const from = windowContaining(h.recurrence, today).end
  return { ...h, archived: true, archivedSpans: [...h.archivedSpans, { from, until: null }].slice(-ARCHIVED_SPANS_KEPT) }
}

/**
 * The habit brought back on its day `today`: its open span ends after the window under way, which
 * started while it was archived. Brought back within the window it was archived in, no window
 * started meanwhile, and the span goes.
 */
export function unarchive(h: Habit, today: LocalDate): Habit {
  if (!h.archived) return h
  const until = windowContaining(h.recurrence, today).end
  const closed = h.archivedSpans.filter((s) => s.until !== null)
  const open = h.archivedSpans.find((s) => s.until === null)
  return { ...h, archived: false, archivedSpans: open && open.from < until ? [...closed, { from: open.from, until }] : closed }
}

/** Archives or brings back the habit, as asked; asking for what it is already changes nothing. */
export const setArchived = (h: Habit, archived: boolean, today: LocalDate): Habit => (archived ? archive(h, today) : unarchive(h, today))
