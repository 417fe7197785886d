/** The missed-window job's rule: which of a habit's ended windows it judges, and how. */
import { nextWindow, windowContaining, type LocalDate, type Window } from '../../../platform/time/index.js'
import { doneWindows, isDue, missCheckAt, type Habit } from './habit.js'
import { hasEnded, type SettingsEntry } from './settings.js'

/** What the missed-window job decided for a window: missed (penalised), or not due (recorded, no penalty). */
export interface Judged {
  window: Window
  outcome: 'MISSED' | 'NOT_DUE'
}

/**
 * Judges, in order from the first not judged, each window that has ended (`hasEnded`: never before
 * the settings it started with say so) and is not done; at most `limit`. A window is judged once:
 * the habit's `missCheckFrom` moves past it, and `missCheckAt` to the end of the next. An archived
 * habit is never judged: its windows wait until it is brought back (archive.ts).
 */
export function judgeMissedWindows(h: Habit, history: readonly SettingsEntry[], slots: ReadonlySet<LocalDate>, now: Date, limit: number) {
  if (h.archived) return { judged: [] as Judged[], habit: h }
  const done = doneWindows(h.recurrence, slots)
  const judged: Judged[] = []
  let w = windowContaining(h.recurrence, h.missCheckFrom)
  let from = h.missCheckFrom
  for (let n = 0; n < limit && hasEnded(history, h.ownTimeZone, w, now); n++, w = nextWindow(h.recurrence, w)) {
    if (!done.has(w.start)) judged.push({ window: w, outcome: isDue(h, history, w) ? 'MISSED' : 'NOT_DUE' })
    from = w.end
  }
  const habit = { ...h, missCheckFrom: from }
  return { judged, habit: { ...habit, missCheckAt: missCheckAt(habit, history) } }
}
