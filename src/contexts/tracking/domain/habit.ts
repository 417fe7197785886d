/**
 * A habit and the rules of its life: made, its schedule and rest days changed, attended, its
 * streak counted over the windows a streak carries over, a window frozen. The fields a player
 * chooses are checked in habit-fields.ts; the missed-window job's judgement is missed-windows.ts.
 */
import {
  addDays, addHours, anchoredAt, dayOfLocal, dayStart, localNow, nextWindow, previousWindow, weekdayOf, windowContaining,
  type LocalDate, type LocalDateTime, type Recurrence, type Weekday, type Window,
} from '../../../platform/time/index.js'
import { startedWhileArchived, type ArchivedSpan } from './archive.js'
import { AttendInFuture, BeforeFirstWindow, DayAlreadyCompleted, HabitArchived, WindowAlreadyCompleted } from './errors.js'
import { ATTEND_FUTURE_TOLERANCE_HOURS, FROZEN_WINDOWS_KEPT, STREAK_WALK_MAX, rewardForStreak } from './rules.js'
import { BEGINNING, currentSettings, frameOf, hasEnded, onVacation, settingsFor, windowEnd, type SettingsEntry } from './settings.js'

export interface Habit {
  id: string
  avatarId: string
  ownerId: string
  title: string
  description: string
  tags: string[]
  recurrence: Recurrence
  /** The habit's own time zone, or null: it follows its avatar's (settings.ts). */
  ownTimeZone: string | null
  /** DAILY only: weekdays whose windows are not due. */
  restDays: Weekday[]
  /** The rest days before the last change, for the windows that started before `restDaysFrom`. */
  previousRestDays: Weekday[]
  restDaysFrom: LocalDate | null
  /** Starts of windows a streak freeze covered (the latest FROZEN_WINDOWS_KEPT): a streak carries over them. */
  frozenWindows: LocalDate[]
  associatedQuestId: string | null
  firstWindowStart: LocalDate
  lastAttendedAt: LocalDateTime | null
  /** The latest done window (for TIMES_PER_WEEK: the latest week with enough completions). */
  lastCompletedWindowStart: LocalDate | null
  streak: number
  bestStreak: number
  /** The missed-window job has judged every window before this date. */
  missCheckFrom: LocalDate
  /**
   * When the job next has work for this habit: the instant the window starting at missCheckFrom
   * ends (`missCheckAt`). It moves with that window and with the avatar's settings.
   */
  missCheckAt: Date
  /** `HH:mm` in the habit's time zone, or null: no reminders (see reminder.ts). */
  reminderTime: string | null
  /** When the reminder job next has work for this habit: its next reminder instant; null without a reminder time. */
  remindAt: Date | null
  /** Archived (archive.ts): kept with its history; not attended, judged, reminded of or in the calendar feed. */
  archived: boolean
  /** The days whose windows started while it was archived (the latest spans): they are not due. */
  archivedSpans: ArchivedSpan[]
  version: number
}

/**
 * The instant the window starting at `missCheckFrom` ends, by the avatar's settings `history` (see
 * `windowEnd`): from then on the missed-window job has work for the habit. A change of the habit's
 * windows or of the settings moves it.
 */
export const missCheckAt = (h: Pick<Habit, 'recurrence' | 'ownTimeZone' | 'missCheckFrom'>, history: readonly SettingsEntry[]): Date =>
  windowEnd(history, h.ownTimeZone, windowContaining(h.recurrence, h.missCheckFrom))

/** Where the missed-window checks start: after the first window, which never penalises. */
function missChecksFrom(
  h: Pick<Habit, 'recurrence' | 'ownTimeZone'>, first: Window, history: readonly SettingsEntry[],
): Pick<Habit, 'missCheckFrom' | 'missCheckAt'> {
  const missCheckFrom = first.end
  return { missCheckFrom, missCheckAt: missCheckAt({ ...h, missCheckFrom }, history) }
}

/**
 * A new habit, without a reminder (`setReminder` adds one); `today` is its first day, in its own
 * frame by the avatar's settings `history`.
 */
export function newHabit(
  h: Pick<Habit, 'id' | 'avatarId' | 'ownerId' | 'title' | 'description' | 'tags' | 'recurrence' | 'ownTimeZone' | 'associatedQuestId'> & { restDays?: Weekday[] },
  today: LocalDate,
  history: readonly SettingsEntry[],
): Habit {
  // A copy of a quest's habit comes anchored where the quest counts from; a new habit starts today.
  const recurrence = h.recurrence.type === 'EVERY_N_DAYS' && h.recurrence.anchor !== BEGINNING ? h.recurrence : anchoredAt(h.recurrence, today)
  const first = windowContaining(recurrence, today)
  return {
    ...h,
    recurrence,
    restDays: h.restDays ?? [],
    previousRestDays: [],
    restDaysFrom: null,
    frozenWindows: [],
    firstWindowStart: first.start,
    lastAttendedAt: null,
    lastCompletedWindowStart: null,
    streak: 0,
    bestStreak: 0,
    ...missChecksFrom({ recurrence, ownTimeZone: h.ownTimeZone }, first, history),
    reminderTime: null,
    remindAt: null,
    archived: false,
    archivedSpans: [],
    version: 1,
  }
}

/** A new recurrence starts afresh from the window holding today: old completions do not line up with its windows. */
export function changeRecurrence(h: Habit, asked: Recurrence, today: LocalDate, history: readonly SettingsEntry[]): Habit {
  const recurrence = anchoredAt(asked, today)
  const first = windowContaining(recurrence, today)
  const restDays = recurrence.type === 'DAILY' ? h.restDays : []
  return {
    ...h, recurrence, restDays, previousRestDays: restDays, restDaysFrom: null, frozenWindows: [],
    firstWindowStart: first.start, lastCompletedWindowStart: null, streak: 0, ...missChecksFrom({ recurrence, ownTimeZone: h.ownTimeZone }, first, history),
  }
}

/** New rest days govern the windows that start from tomorrow on (today's window stays as it began). */
export function changeRestDays(h: Habit, restDays: Weekday[], today: LocalDate): Habit {
  const from = addDays(today, 1)
  const previousRestDays = h.restDaysFrom === from ? h.previousRestDays : h.restDays
  return { ...h, restDays, previousRestDays, restDaysFrom: from }
}

const restDaysFor = (h: Habit, start: LocalDate): readonly Weekday[] => (h.restDaysFrom !== null && start < h.restDaysFrom ? h.previousRestDays : h.restDays)

/**
 * Whether window `w` is due, by the settings and rest days it started with: not when a vacation
 * holds it whole, when it falls on a DAILY habit's rest day, when it has no time at all (a day
 * the zone skipped), or when it started while the habit was archived.
 */
export function isDue(h: Habit, history: readonly SettingsEntry[], w: Window): boolean {
  if (startedWhileArchived(h, w.start)) return false
  const s = settingsFor(history, w.start)
  if (onVacation(s, w)) return false
  if (h.recurrence.type === 'DAILY' && restDaysFor(h, w.start).includes(weekdayOf(w.start))) return false
  const f = frameOf(s, h.ownTimeZone)
  return dayStart(w.start, f).getTime() < dayStart(w.end, f).getTime()
}

/** A window a streak carries over: not due, or covered by a freeze. */
const passableIn = (h: Habit, history: readonly SettingsEntry[]) => {
  const frozen = new Set(h.frozenWindows)
  return (w: Window) => frozen.has(w.start) || !isDue(h, history, w)
}

/**
 * What a completion fills: for TIMES_PER_WEEK its day (several a week, one a day), for the
 * others its window. Completions are stored by it.
 */
export const slotOf = (r: Recurrence, day: LocalDate, w: Window): LocalDate => (r.type === 'TIMES_PER_WEEK' ? day : w.start)

/** Starts of the done windows among the filled slots: every window filled, or weeks with enough days. */
export function doneWindows(r: Recurrence, slots: Iterable<LocalDate>): Set<LocalDate> {
  if (r.type !== 'TIMES_PER_WEEK') return new Set(slots)
  const counts = new Map<LocalDate, number>()
  for (const day of slots) {
    const start = windowContaining(r, day).start
    counts.set(start, (counts.get(start) ?? 0) + 1)
  }
  return new Set([...counts].filter(([, n]) => n >= r.timesPerWeek).map(([start]) => start))
}

/** Done windows before `w`, back to the first not done that a streak cannot carry over. */
function runBefore(h: Habit, done: ReadonlySet<LocalDate>, w: Window, passable: (w: Window) => boolean): number {
  let n = 0
  let cur = previousWindow(h.recurrence, w)
  for (let step = 0; step < STREAK_WALK_MAX && cur.start >= h.firstWindowStart; step++, cur = previousWindow(h.recurrence, cur)) {
    if (done.has(cur.start)) n++
    else if (!passable(cur)) break
  }
  return n
}

export interface Attendance {
  habit: Habit
  window: Window
  /** What the completion filled (see `slotOf`). */
  slot: LocalDate
  /** Whether this completion made its window done (always, but for a TIMES_PER_WEEK week still short). */
  windowCompleted: boolean
  /** The run this completion continues, itself included: done windows before it, over frozen and not-due ones, plus one. It sets the reward. */
  streak: number
  reward: { experience: number; money: number }
}

/**
 * Completes what `attendedAt` (a wall-clock time in the habit's zone) falls in; `slots` are those
 * filled before. Refused: an archived habit, more than a day ahead, before the first window, a
 * window already done, and for TIMES_PER_WEEK a second completion the same day.
 */
export function attend(h: Habit, history: readonly SettingsEntry[], slots: ReadonlySet<LocalDate>, attendedAt: LocalDateTime, now: Date): Attendance {
  if (h.archived) throw new HabitArchived(h.id)
  const frame = frameOf(currentSettings(history), h.ownTimeZone)
  if (attendedAt > addHours(localNow(now, frame), ATTEND_FUTURE_TOLERANCE_HOURS)) throw new AttendInFuture(ATTEND_FUTURE_TOLERANCE_HOURS)
  const day = dayOfLocal(attendedAt, frame)
  const window = windowContaining(h.recurrence, day)
  if (window.start < h.firstWindowStart) throw new BeforeFirstWindow(h.firstWindowStart)
  const done = doneWindows(h.recurrence, slots)
  if (done.has(window.start)) throw new WindowAlreadyCompleted(window.start, window.end)
  const slot = slotOf(h.recurrence, day, window)
  if (slots.has(slot)) throw new DayAlreadyCompleted(day)

  const doneAfter = doneWindows(h.recurrence, [...slots, slot])
  const windowCompleted = doneAfter.has(window.start)
  const passable = passableIn(h, history)
  const streak = 1 + runBefore(h, doneAfter, window, passable)
  const latestStart = windowCompleted && (h.lastCompletedWindowStart === null || h.lastCompletedWindowStart < window.start) ? window.start : h.lastCompletedWindowStart
  const current = latestStart === null ? 0 : 1 + runBefore(h, doneAfter, windowContaining(h.recurrence, latestStart), passable)
  return {
    habit: {
      ...h,
      lastAttendedAt: h.lastAttendedAt && h.lastAttendedAt > attendedAt ? h.lastAttendedAt : attendedAt,
      lastCompletedWindowStart: latestStart,
      streak: current,
      bestStreak: Math.max(h.bestStreak, current, windowCompleted ? streak : 0),
    },
    window,
    slot,
    windowCompleted,
    streak,
    reward: rewardForStreak(streak),
  }
}

/**
 * The streak as a player sees it now: the stored run, or 0 once a window after the latest done
 * one has ended that it cannot carry over (not done, due and not frozen).
 */
export function currentStreak(h: Habit, history: readonly SettingsEntry[], now: Date): number {
  if (!h.lastCompletedWindowStart) return 0
  const passable = passableIn(h, history)
  let w = nextWindow(h.recurrence, windowContaining(h.recurrence, h.lastCompletedWindowStart))
  for (let step = 0; step < STREAK_WALK_MAX && hasEnded(history, h.ownTimeZone, w, now); step++, w = nextWindow(h.recurrence, w)) {
    if (!passable(w)) return 0
  }
  return h.streak
}

/** A frozen window joins the run: the stored streak, counted again over the done windows. */
export function freezeWindow(h: Habit, history: readonly SettingsEntry[], slots: ReadonlySet<LocalDate>, windowStart: LocalDate): Habit {
  if (h.frozenWindows.includes(windowStart)) return h
  const frozen = { ...h, frozenWindows: [...h.frozenWindows, windowStart].sort().slice(-FROZEN_WINDOWS_KEPT) }
  if (h.lastCompletedWindowStart === null) return frozen
  const done = doneWindows(h.recurrence, slots)
  const streak = 1 + runBefore(frozen, done, windowContaining(h.recurrence, h.lastCompletedWindowStart), passableIn(frozen, history))
  return { ...frozen, streak, bestStreak: Math.max(h.bestStreak, streak) }
}

/** Start of the first window after the latest done one (never done: the first window), at its day start. */
export function nextRecurrenceDate(h: Habit, history: readonly SettingsEntry[]): LocalDateTime {
  const start = h.lastCompletedWindowStart
    ? nextWindow(h.recurrence, windowContaining(h.recurrence, h.lastCompletedWindowStart)).start
    : h.firstWindowStart
  return `${start}T${String(settingsFor(history, start).dayStartHour).padStart(2, '0')}:00:00`
}
