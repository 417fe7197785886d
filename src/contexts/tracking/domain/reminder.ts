/**
 * Reminders (DESIGN §9.2): a habit's `reminderTime` is a wall-clock time in its time zone. The
 * reminder of a window falls at that time on the window's **last day**: for a DAILY habit that is
 * its only day; for a WEEKLY or MONTHLY one it is the last chance to complete the window before it
 * ends and is judged missed (reminding on its first day would come when nothing is late yet). A
 * reminder is sent for the habit's current window only, once its time has come and while the
 * window is not completed, once per window; and only for reminder times that came after the
 * reminder was set (setting 09:00 at 10:00 reminds from tomorrow, or the next window, on).
 *
 * A window that is not due (a vacation, a rest day: DESIGN §9.3) has no reminder. The days are the
 * habit's (its zone, its avatar's day start): the last day of a window runs from the day start on
 * its date to the next day's, so with a day start of 4 a reminder at 01:00 falls on the calendar
 * day after.
 *
 * Pure: the job that sends them is `TrackingJobs.sendReminders`.
 */
import { REMINDER_TIME_PATTERN } from '../../../contracts/events/tracking.js'
import {
  addDays, dayOf, instantIn, nextWindow, windowContaining, type DayFrame, type LocalDate, type LocalDateTime, type Window,
} from '../../../platform/time/index.js'
import { InvalidReminderTime } from './errors.js'
import { doneWindows, isDue, type Habit } from './habit.js'
import { currentSettings, frameOf, type SettingsEntry } from './settings.js'

const REMINDER_TIME = new RegExp(REMINDER_TIME_PATTERN)

/** A local wall-clock time `HH:mm`. */
export type ReminderTime = string

/** Checks a reminder time as the API sends it; null (or absent) means no reminder. */
export function reminderTimeOf(text: string | null | undefined, at = '/reminderTime'): ReminderTime | null {
  if (text === null || text === undefined) return null
  if (!REMINDER_TIME.test(text)) throw new InvalidReminderTime(text, at)
  return text
}

/** When the reminder of window `w` falls on the wall clock: `reminderTime` during the window's last day. */
export function reminderOf(w: Window, reminderTime: ReminderTime, dayStartHour = 0): LocalDateTime {
  const lastDay = addDays(w.end, -1)
  const date = Number(reminderTime.slice(0, 2)) < dayStartHour ? w.end : lastDay
  return `${date}T${reminderTime}:00`
}

/** The habit's frame now: its zone (or its avatar's) and its avatar's day start. */
export const habitFrame = (h: Pick<Habit, 'ownTimeZone'>, history: readonly SettingsEntry[]): DayFrame => frameOf(currentSettings(history), h.ownTimeZone)

/** The habit's current window at `now`. */
export function currentWindow(h: Pick<Habit, 'recurrence'>, frame: DayFrame, now: Date): Window {
  return windowContaining(h.recurrence, dayOf(now, frame))
}

/** The instant of window `w`'s reminder (a time the clock skips is moved forward by the gap, see `instantIn`). */
const reminderInstant = (frame: DayFrame, w: Window, reminderTime: ReminderTime): Date =>
  instantIn(reminderOf(w, reminderTime, frame.dayStartHour), frame.timeZone)

/** The first reminder instant strictly after `now`: the current window's, or a later window's. */
function reminderAfter(h: Pick<Habit, 'recurrence'>, frame: DayFrame, reminderTime: ReminderTime, now: Date): Date {
  // Each window's reminder lies on a later day than the one before, so this ends within a window or two.
  for (let w = currentWindow(h, frame, now); ; w = nextWindow(h.recurrence, w)) {
    const at = reminderInstant(frame, w, reminderTime)
    if (at > now) return at
  }
}

/**
 * Sets (or clears, with null) the habit's reminder time at `now`. `remindAt`, where the reminder
 * job next has work for the habit, becomes the first reminder instant after `now`; an archived
 * habit keeps its reminder time and is reminded of nothing (null) until it is brought back. Also
 * called after a change of recurrence, of the avatar's settings or of archiving.
 */
export function setReminder(h: Habit, frame: DayFrame, reminderTime: ReminderTime | null, now: Date): Habit {
  return { ...h, reminderTime, remindAt: reminderTime === null || h.archived ? null : reminderAfter(h, frame, reminderTime, now) }
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
 * time waits for the next window), it is due, and `slots` (the completions' slots; the current
 * window's are enough) do not make it done. Either way the job next looks at the habit at its next
 * reminder instant after `now`. Whether this window was reminded of already is the job's record
 * to tell (once per window, whatever the reminder time was changed to meanwhile).
 */
export function checkReminder(h: Habit, history: readonly SettingsEntry[], slots: ReadonlySet<LocalDate>, now: Date): ReminderCheck {
  const frame = habitFrame(h, history)
  const next = setReminder(h, frame, h.reminderTime, now)
  if (h.reminderTime === null || h.remindAt === null) return { due: null, habit: next }
  const w = currentWindow(h, frame, now)
  const at = reminderInstant(frame, w, h.reminderTime)
  const due = at <= now && at >= h.remindAt && !doneWindows(h.recurrence, slots).has(w.start) && isDue(h, history, w)
  return { due: due ? { window: w, reminderTime: h.reminderTime } : null, habit: next }
}

/**
 * A record of a reminder sent stops a second one for its window while that window may still be
 * the current one somewhere: until its end has come in every zone and for every day start. A
 * window ending on day E ends at the latest at E 23:00 in UTC−12, 35 hours after E began in UTC:
 * one that ended before yesterday (UTC) is over everywhere, and its record may go.
 */
export function reminderRecordsEndedBefore(now: Date): LocalDate {
  return addDays(now.toISOString().slice(0, 10), -1)
}
