import { BadRequest } from '../../../platform/errors.js'
import {
  WEEKDAYS, addDays, addHours, anchoredAt, dayOfLocal, dayStart, isValidTimeZone, localNow, nextWindow, previousWindow, weekdayOf, windowContaining,
  type LocalDate, type LocalDateTime, type Recurrence, type RecurrenceType, type Weekday, type Window,
} from '../../../platform/time/index.js'
import { AttendInFuture, BeforeFirstWindow, DayAlreadyCompleted, InvalidRecurrence, InvalidTimeZone, WindowAlreadyCompleted } from './errors.js'
import {
  ATTEND_FUTURE_TOLERANCE_HOURS, DAY_OF_MONTH_MAX, DAY_OF_MONTH_MIN, DESCRIPTION_MAX, EVERY_N_DAYS_MAX, EVERY_N_DAYS_MIN, FROZEN_WINDOWS_KEPT,
  STREAK_WALK_MAX, TAGS_MAX, TAG_MAX, TIMES_PER_WEEK_MAX, TIMES_PER_WEEK_MIN, TITLE_MAX, rewardForStreak,
} from './rules.js'
import { BEGINNING, currentSettings, frameOf, hasEnded, onVacation, settingsFor, type SettingsEntry } from './settings.js'

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
  missCheckFrom: LocalDate
  missCheckDue: LocalDate
  /** `HH:mm` in the habit's time zone, or null: no reminders (see reminder.ts). */
  reminderTime: string | null
  /** When the reminder job next has work for this habit: its next reminder instant; null without a reminder time. */
  remindAt: Date | null
  version: number
}

/** The schedule fields as a command sends them; those that do not belong to the type must be null or absent. */
export interface ScheduleFields {
  dayOfWeek?: string | null | undefined
  dayOfMonth?: number | null | undefined
  timesPerWeek?: number | null | undefined
  everyNDays?: number | null | undefined
}

const FIELD_OF: Record<RecurrenceType, keyof ScheduleFields | null> = {
  DAILY: null, WEEKLY: 'dayOfWeek', MONTHLY: 'dayOfMonth', TIMES_PER_WEEK: 'timesPerWeek', EVERY_N_DAYS: 'everyNDays',
}

const inRange = (n: unknown, min: number, max: number): n is number => typeof n === 'number' && Number.isInteger(n) && n >= min && n <= max

/**
 * The recurrence the fields describe; the fields that do not belong must be null or absent. `at`
 * is where they sit in the command (`/recurrence`; top level by default). An EVERY_N_DAYS
 * recurrence is anchored at the habit's first day when the habit is made (`anchoredAt`).
 */
export function toRecurrence(type: RecurrenceType, fields: ScheduleFields, at = ''): Recurrence {
  const own = FIELD_OF[type]
  for (const name of Object.values(FIELD_OF)) {
    if (name === null || name === own || (fields[name] ?? null) === null) continue
    const takes = own === null ? 'no schedule field' : own
    throw new InvalidRecurrence(`A ${type} habit takes ${takes}, not ${name}.`, `${at}/${name}`, `must be null or absent for a ${type} habit`)
  }
  const value = own === null ? null : fields[own] ?? null
  switch (type) {
    case 'DAILY': return { type }
    case 'WEEKLY':
      if (typeof value !== 'string' || !(WEEKDAYS as readonly string[]).includes(value)) {
        throw new InvalidRecurrence(`A WEEKLY habit needs dayOfWeek, one of ${WEEKDAYS.join(', ')}.`, `${at}/dayOfWeek`, `must be one of ${WEEKDAYS.join(', ')}`)
      }
      return { type, dayOfWeek: value as Weekday }
    case 'MONTHLY':
      if (!inRange(value, DAY_OF_MONTH_MIN, DAY_OF_MONTH_MAX)) {
        throw new InvalidRecurrence(`A MONTHLY habit needs dayOfMonth from ${DAY_OF_MONTH_MIN} to ${DAY_OF_MONTH_MAX}.`, `${at}/dayOfMonth`,
          `must be from ${DAY_OF_MONTH_MIN} to ${DAY_OF_MONTH_MAX}`)
      }
      return { type, dayOfMonth: value }
    case 'TIMES_PER_WEEK':
      if (!inRange(value, TIMES_PER_WEEK_MIN, TIMES_PER_WEEK_MAX)) {
        throw new InvalidRecurrence(`A TIMES_PER_WEEK habit needs timesPerWeek from ${TIMES_PER_WEEK_MIN} to ${TIMES_PER_WEEK_MAX}.`, `${at}/timesPerWeek`,
          `must be from ${TIMES_PER_WEEK_MIN} to ${TIMES_PER_WEEK_MAX}`)
      }
      return { type, timesPerWeek: value }
    case 'EVERY_N_DAYS':
      if (!inRange(value, EVERY_N_DAYS_MIN, EVERY_N_DAYS_MAX)) {
        throw new InvalidRecurrence(`An EVERY_N_DAYS habit needs everyNDays from ${EVERY_N_DAYS_MIN} to ${EVERY_N_DAYS_MAX}.`, `${at}/everyNDays`,
          `must be from ${EVERY_N_DAYS_MIN} to ${EVERY_N_DAYS_MAX}`)
      }
      return { type, everyNDays: value, anchor: BEGINNING }
  }
}

/** Rest days as a command sends them: de-duplicated weekdays, only for a DAILY habit, never all seven. */
export function restDaysOf(type: RecurrenceType, restDays: readonly string[] | null | undefined, at = '/restDays'): Weekday[] {
  const days = [...new Set(restDays ?? [])]
  const bad = days.findIndex((d) => !(WEEKDAYS as readonly string[]).includes(d))
  if (bad >= 0) throw new BadRequest(`Rest days are weekdays: ${WEEKDAYS.join(', ')}.`, 'invalid-rest-days', [{ path: `${at}/${bad}`, message: `must be one of ${WEEKDAYS.join(', ')}` }])
  if (days.length > 0 && type !== 'DAILY') throw new BadRequest(`Only a DAILY habit has rest days; a ${type} habit takes none.`, 'invalid-rest-days', [{ path: at, message: `must be empty, null or absent for a ${type} habit` }])
  if (days.length === WEEKDAYS.length) throw new BadRequest('A habit resting every day of the week is never due.', 'invalid-rest-days', [{ path: at, message: 'must leave at least one weekday' }])
  return WEEKDAYS.filter((d) => days.includes(d))
}

/** Tags are trimmed and de-duplicated; each 1–40 characters, at most 20. `at` is where they sit in the command. */
export function normalizeTags(tags: string[], at = '/tags'): string[] {
  const bad = tags.findIndex((t) => t.trim().length === 0 || t.trim().length > TAG_MAX)
  if (bad >= 0) throw new BadRequest(`Each tag must be 1–${TAG_MAX} characters.`, 'invalid-tags', [{ path: `${at}/${bad}`, message: `must be 1–${TAG_MAX} characters after trimming` }])
  const out = [...new Set(tags.map((t) => t.trim()))]
  if (out.length > TAGS_MAX) throw new BadRequest(`A habit has at most ${TAGS_MAX} tags.`, 'invalid-tags', [{ path: at, message: `must hold at most ${TAGS_MAX} different tags` }])
  return out
}

/** What a habit is made from elsewhere (a quest's habit entry): the fields a player chooses. */
export interface HabitTemplate {
  title: string
  description: string
  tags: string[]
  recurrence: Recurrence
}

/**
 * Checks a habit described outside tracking by the rules a habit's own fields follow, and
 * normalises it (title trimmed, tags trimmed and de-duplicated), so a copy made from it later
 * cannot be refused.
 */
export function habitTemplate(t: {
  title: string
  description?: string | undefined
  tags?: string[] | undefined
  recurrence: { type: RecurrenceType } & ScheduleFields
}, at = ''): HabitTemplate {
  const title = t.title.trim()
  if (title.length === 0 || title.length > TITLE_MAX) {
    throw new BadRequest(`A title is 1–${TITLE_MAX} characters, not blank.`, 'invalid-title', [{ path: `${at}/title`, message: `must be 1–${TITLE_MAX} characters after trimming` }])
  }
  const description = t.description ?? ''
  if (description.length > DESCRIPTION_MAX) {
    throw new BadRequest(`A description is at most ${DESCRIPTION_MAX} characters.`, 'invalid-description', [{ path: `${at}/description`, message: `must be at most ${DESCRIPTION_MAX} characters` }])
  }
  const tags = normalizeTags(t.tags ?? [], `${at}/tags`)
  return { title, description, tags, recurrence: toRecurrence(t.recurrence.type, t.recurrence, `${at}/recurrence`) }
}

/** Where the missed-window checks start: after the first window, which never penalises. */
function missChecksFrom(recurrence: Recurrence, first: Window): Pick<Habit, 'missCheckFrom' | 'missCheckDue'> {
  return { missCheckFrom: first.end, missCheckDue: nextWindow(recurrence, first).end }
}

/** A habit's own zone as asked for: absent means it follows its avatar's. */
export function ownTimeZoneOf(asked: string | null | undefined): string | null {
  if (asked === undefined || asked === null) return null
  if (!isValidTimeZone(asked)) throw new InvalidTimeZone(asked)
  return asked
}

/** A new habit, without a reminder (`setReminder` adds one); `today` is its first day, in its own frame. */
export function newHabit(
  h: Pick<Habit, 'id' | 'avatarId' | 'ownerId' | 'title' | 'description' | 'tags' | 'recurrence' | 'ownTimeZone' | 'associatedQuestId'> & { restDays?: Weekday[] },
  today: LocalDate,
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
    ...missChecksFrom(recurrence, first),
    reminderTime: null,
    remindAt: null,
    version: 1,
  }
}

/** A new recurrence starts afresh from the window holding today: old completions no longer line up. */
export function changeRecurrence(h: Habit, asked: Recurrence, today: LocalDate): Habit {
  const recurrence = anchoredAt(asked, today)
  const first = windowContaining(recurrence, today)
  const restDays = recurrence.type === 'DAILY' ? h.restDays : []
  return {
    ...h, recurrence, restDays, previousRestDays: restDays, restDaysFrom: null, frozenWindows: [],
    firstWindowStart: first.start, lastCompletedWindowStart: null, streak: 0, ...missChecksFrom(recurrence, first),
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
 * holds it whole, when it falls on a DAILY habit's rest day, or when it has no time at all (a day
 * the zone skipped).
 */
export function isDue(h: Habit, history: readonly SettingsEntry[], w: Window): boolean {
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
 * filled before. Refused: more than a day ahead, before the first window, a window already done,
 * and for TIMES_PER_WEEK a second completion the same day.
 */
export function attend(h: Habit, history: readonly SettingsEntry[], slots: ReadonlySet<LocalDate>, attendedAt: LocalDateTime, now: Date): Attendance {
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

/** What the missed-window job decided for a window: missed (penalised), or not due (recorded, no penalty). */
export interface Judged {
  window: Window
  outcome: 'MISSED' | 'NOT_DUE'
}

/**
 * Judges, in order from the first not judged, each window that has ended (`hasEnded`: never before
 * the settings it started with say so) and is not done; at most `limit`. A window is judged once:
 * the habit's `missCheckFrom` moves past it.
 */
export function judgeMissedWindows(h: Habit, history: readonly SettingsEntry[], slots: ReadonlySet<LocalDate>, now: Date, limit: number) {
  const done = doneWindows(h.recurrence, slots)
  const judged: Judged[] = []
  let w = windowContaining(h.recurrence, h.missCheckFrom)
  let from = h.missCheckFrom
  for (let n = 0; n < limit && hasEnded(history, h.ownTimeZone, w, now); n++, w = nextWindow(h.recurrence, w)) {
    if (!done.has(w.start)) judged.push({ window: w, outcome: isDue(h, history, w) ? 'MISSED' : 'NOT_DUE' })
    from = w.end
  }
  return { judged, habit: { ...h, missCheckFrom: from, missCheckDue: windowContaining(h.recurrence, from).end } }
}
