/**
 * The instants a habit's jobs wait for, both read from its avatar's settings: the reminder job its
 * next reminder (reminder.ts), the missed-window job the end of its next window to judge
 * (`missCheckAt`). Whatever moves the settings moves both.
 */
import { missCheckAt, type Habit } from './habit.js'
import { habitFrame, setReminder } from './reminder.js'
import type { SettingsEntry } from './settings.js'

/** The habit with both instants worked out by the settings `history` at `now` (its reminder time kept). */
export const withJobInstants = (h: Habit, history: readonly SettingsEntry[], now: Date): Habit =>
  ({ ...setReminder(h, habitFrame(h, history), h.reminderTime, now), missCheckAt: missCheckAt(h, history) })
