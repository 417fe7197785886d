/**
 * Reminders (DESIGN §9.2): a habit's `reminderTime` is a wall-clock time in its time zone. The
 * reminder of a window falls at that time on the window's **last day**: for a DAILY habit that is
 * its only day; for a WEEKLY or MONTHLY one it is the last chance to complete the window before it
 * ends and is judged missed (reminding on its first day would come when nothing is late yet). A
 * reminder is sent for the habit's current window only, once its time has come and while the
 * window is not completed, once per window; and only for reminder times that came after the
 * reminder was set (setting 09:00 at 10:00 reminds from tomorrow, or the next window, on).
 *
 * Every window is due: rest days and vacations (DESIGN §9.3) do not exist yet.
 *
 * Pure: the job that sends them is `TrackingApp.sendReminders`.
 */
import {
  addDays, dateOf, instantIn, localDateTimeIn, nextWindow, startOfDayIn, windowContaining, type LocalDate, type LocalDateTime, type Window,
} from '../../../platform/time/index.js'
import { InvalidReminderTime } from './errors.js'
import type { Habit } from './habit.js'
import { REMINDER_TIME_PATTERN } from './rules.js'

const REMINDER_TIME = new RegExp(REMINDER_TIME_PATTERN)

/** A local wall-clock time `HH:mm`. */
export type ReminderTime = string

/** Checks a reminder time as the API sends it; null (or absent) means no reminder. */
export function reminderTimeOf(text: string | null | undefined, at = '/reminderTime'): ReminderTime | null {
  if (text === null || text === undefined) return null
  if (!REMINDER_TIME.test(text)) throw new InvalidReminderTime(text, at)
  return text
}

/** When the reminder of window `w` falls on the local wall clock: `reminderTime` on the window's last day. */
export function reminderOf(w: Window, reminderTime: ReminderTime): LocalDateTime {
  return `${addDays(w.end, -1)}T${reminderTime}:00`
}

/** The habit's current window at `now`: the one holding its local date. */
export function currentWindow(h: Pick<Habit, 'recurrence' | 'timeZone'>, now: Date): Window {
  return windowContaining(h.recurrence, dateOf(localDateTimeIn(now, h.timeZone)))
}

/** The instant of window `w`'s reminder (a time the clock skips is moved forward by the gap, see `instantIn`). */
const reminderInstant = (h: Pick<Habit, 'timeZone'>, w: Window, reminderTime: ReminderTime): Date =>
  instantIn(reminderOf(w, reminderTime), h.timeZone)

/** The first reminder instant strictly after `now`: the current window's, or a later window's. */
function reminderAfter(h: Pick<Habit, 'recurrence' | 'timeZone'>, reminderTime: ReminderTime, now: Date): Date {
  // Each window's reminder lies on a later day than the one before, so this ends within a window or two.
  for (let w = currentWindow(h, now); ; w = nextWindow(h.recurrence, w)) {
    const at = reminderInstant(h, w, reminderTime)
    if (at > now) return at
  }
}

/**
 * Sets (or clears, with null) the habit's reminder time at `now`. `remindAt`, where the reminder
 * job next has work for the habit, becomes the first reminder instant after `now`. Also called
 * after a change of recurrence, whose windows fall elsewhere.
 */
export function setReminder(h: Habit, reminderTime: ReminderTime | null, now: Date): Habit {
  return { ...h, reminderTime, remindAt: reminderTime === null ? null : reminderAfter(h, reminderTime, now) }
}

export interface ReminderCheck {
  /** The window to remind of now, and the reminder time it was reminded at; null: none now. */
  due: { window: Window; reminderTime: ReminderTime } | null
  /** The habit with `remindAt` moved past `now` (null without a reminder time). */
  habit: Habit
}

/**
 * The reminder job's decision for a habit whose `remindAt` has come: remind of the current window
 * when its reminder instant has come (and is not before `remindAt`, so a reminder set after that
 * time waits for the next window) and `completed` (the starts of completed windows; the current
 * one's is enough) does not hold it. Either way the job next looks at the habit at its next
 * reminder instant after `now`. Whether this window was reminded of already is the job's record
 * to tell (once per window, whatever the reminder time was changed to meanwhile).
 */
export function checkReminder(h: Habit, completed: ReadonlySet<LocalDate>, now: Date): ReminderCheck {
  const next = setReminder(h, h.reminderTime, now)
  if (h.reminderTime === null || h.remindAt === null) return { due: null, habit: next }
  const w = currentWindow(h, now)
  const at = reminderInstant(h, w, h.reminderTime)
  const due = at <= now && at >= h.remindAt && !completed.has(w.start)
  return { due: due ? { window: w, reminderTime: h.reminderTime } : null, habit: next }
}

/** The window as instants, as the reminder event carries it: from the start of its first day to the start of the day after its last. */
export function windowInstants(h: Pick<Habit, 'timeZone'>, w: Window): { start: Date; end: Date } {
  return { start: startOfDayIn(w.start, h.timeZone), end: startOfDayIn(w.end, h.timeZone) }
}

/**
 * A record of a reminder sent stops a second one for its window while that window may still be
 * the current one somewhere: until its end has come in every zone. No zone's date is more than a
 * day behind UTC's, so a window that ended before yesterday (UTC) is over everywhere: its record
 * may go.
 */
export function reminderRecordsEndedBefore(now: Date): LocalDate {
  return addDays(dateOf(localDateTimeIn(now, 'UTC')), -1)
}
