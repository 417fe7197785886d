import { BadRequest } from '../../../platform/errors.js'
import {
  DEFAULT_TIME_ZONE, WEEKDAYS, addHours, dateOf, isValidTimeZone, nextWindow, previousWindow, startOfDay, windowContaining, windowsEndedBetween,
  type LocalDate, type LocalDateTime, type Recurrence, type RecurrenceType, type Weekday, type Window,
} from '../../../platform/time/index.js'
import { AttendInFuture, BeforeFirstWindow, InvalidRecurrence, InvalidTimeZone, WindowAlreadyCompleted } from './errors.js'
import {
  ATTEND_FUTURE_TOLERANCE_HOURS, DAY_OF_MONTH_MAX, DAY_OF_MONTH_MIN, DESCRIPTION_MAX, TAGS_MAX, TAG_MAX, TITLE_MAX, rewardForStreak,
} from './rules.js'

export interface Habit {
  id: string
  avatarId: string
  ownerId: string
  title: string
  description: string
  tags: string[]
  recurrence: Recurrence
  timeZone: string
  associatedQuestId: string | null
  firstWindowStart: LocalDate
  lastAttendedAt: LocalDateTime | null
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

/**
 * The recurrence fields as the contract sends them; the one that does not belong must be null or
 * absent. `at` is where they sit in the command (`/recurrence`; top level by default).
 */
export function toRecurrence(type: RecurrenceType, dayOfWeek?: string | null, dayOfMonth?: number | null, at = ''): Recurrence {
  const week = dayOfWeek ?? null
  const month = dayOfMonth ?? null
  const weekAt = `${at}/dayOfWeek`
  const monthAt = `${at}/dayOfMonth`
  if (type === 'DAILY') {
    if (week !== null) throw new InvalidRecurrence('A DAILY habit takes neither dayOfWeek nor dayOfMonth.', weekAt, 'must be null or absent for a DAILY habit')
    if (month !== null) throw new InvalidRecurrence('A DAILY habit takes neither dayOfWeek nor dayOfMonth.', monthAt, 'must be null or absent for a DAILY habit')
    return { type }
  }
  if (type === 'WEEKLY') {
    if (month !== null) throw new InvalidRecurrence('A WEEKLY habit takes dayOfWeek, not dayOfMonth.', monthAt, 'must be null or absent for a WEEKLY habit')
    if (week === null || !(WEEKDAYS as readonly string[]).includes(week)) {
      throw new InvalidRecurrence(`A WEEKLY habit needs dayOfWeek, one of ${WEEKDAYS.join(', ')}.`, weekAt, `must be one of ${WEEKDAYS.join(', ')}`)
    }
    return { type, dayOfWeek: week as Weekday }
  }
  if (week !== null) throw new InvalidRecurrence('A MONTHLY habit takes dayOfMonth, not dayOfWeek.', weekAt, 'must be null or absent for a MONTHLY habit')
  if (month === null || !Number.isInteger(month) || month < DAY_OF_MONTH_MIN || month > DAY_OF_MONTH_MAX) {
    throw new InvalidRecurrence(`A MONTHLY habit needs dayOfMonth from ${DAY_OF_MONTH_MIN} to ${DAY_OF_MONTH_MAX}.`, monthAt,
      `must be from ${DAY_OF_MONTH_MIN} to ${DAY_OF_MONTH_MAX}`)
  }
  return { type, dayOfMonth: month }
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
  recurrence: { type: RecurrenceType; dayOfWeek?: string | null | undefined; dayOfMonth?: number | null | undefined }
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
  return { title, description, tags, recurrence: toRecurrence(t.recurrence.type, t.recurrence.dayOfWeek, t.recurrence.dayOfMonth, `${at}/recurrence`) }
}

/** Where the missed-window checks start: after the first window, which never penalises. */
function missChecksFrom(recurrence: Recurrence, first: Window): Pick<Habit, 'missCheckFrom' | 'missCheckDue'> {
  return { missCheckFrom: first.end, missCheckDue: nextWindow(recurrence, first).end }
}

/** The zone a new habit counts its windows in: the one asked for, else the default (DESIGN §4). */
export function habitTimeZone(asked: string | undefined): string {
  const zone = asked ?? DEFAULT_TIME_ZONE
  if (!isValidTimeZone(zone)) throw new InvalidTimeZone(zone)
  return zone
}

/** A new habit, without a reminder (`setReminder` adds one). */
export function newHabit(
  h: Pick<Habit, 'id' | 'avatarId' | 'ownerId' | 'title' | 'description' | 'tags' | 'recurrence' | 'timeZone' | 'associatedQuestId'>,
  today: LocalDate,
): Habit {
  const first = windowContaining(h.recurrence, today)
  return {
    ...h,
    firstWindowStart: first.start,
    lastAttendedAt: null,
    lastCompletedWindowStart: null,
    streak: 0,
    bestStreak: 0,
    ...missChecksFrom(h.recurrence, first),
    reminderTime: null,
    remindAt: null,
    version: 1,
  }
}

/** A new recurrence starts afresh from the window holding today: old completions no longer line up. */
export function changeRecurrence(h: Habit, recurrence: Recurrence, today: LocalDate): Habit {
  const first = windowContaining(recurrence, today)
  return { ...h, recurrence, firstWindowStart: first.start, lastCompletedWindowStart: null, streak: 0, ...missChecksFrom(recurrence, first) }
}

/** Consecutive completed windows ending with `w`. */
export function streakEndingAt(recurrence: Recurrence, completed: ReadonlySet<LocalDate>, w: Window): number {
  let n = 0
  for (let cur = w; completed.has(cur.start); cur = previousWindow(recurrence, cur)) n++
  return n
}

export interface Attendance {
  habit: Habit
  window: Window
  /** The run of completed windows ending with this one; it sets the reward. */
  streak: number
  reward: { experience: number; money: number }
}

/** Completes the window holding `attendedAt`; `completed` holds the starts of windows already completed. */
export function attend(h: Habit, completed: ReadonlySet<LocalDate>, attendedAt: LocalDateTime, nowLocal: LocalDateTime): Attendance {
  if (attendedAt > addHours(nowLocal, ATTEND_FUTURE_TOLERANCE_HOURS)) throw new AttendInFuture(ATTEND_FUTURE_TOLERANCE_HOURS)
  const window = windowContaining(h.recurrence, dateOf(attendedAt))
  if (window.start < h.firstWindowStart) throw new BeforeFirstWindow(h.firstWindowStart)
  if (completed.has(window.start)) throw new WindowAlreadyCompleted(window.start, window.end)

  const all = new Set(completed).add(window.start)
  const streak = streakEndingAt(h.recurrence, all, window)
  const latestStart = h.lastCompletedWindowStart && h.lastCompletedWindowStart > window.start ? h.lastCompletedWindowStart : window.start
  const latest = windowContaining(h.recurrence, latestStart)
  const current = streakEndingAt(h.recurrence, all, latest)
  return {
    habit: {
      ...h,
      lastAttendedAt: h.lastAttendedAt && h.lastAttendedAt > attendedAt ? h.lastAttendedAt : attendedAt,
      lastCompletedWindowStart: latest.start,
      streak: current,
      bestStreak: Math.max(h.bestStreak, current, streak),
    },
    window,
    streak,
    reward: rewardForStreak(streak),
  }
}

/**
 * The streak as a player sees it today: the stored run, or 0 once the window after the latest
 * completed one has ended without a completion (the run is broken).
 */
export function currentStreak(h: Habit, today: LocalDate): number {
  if (!h.lastCompletedWindowStart) return 0
  const after = nextWindow(h.recurrence, windowContaining(h.recurrence, h.lastCompletedWindowStart))
  return after.end <= today ? 0 : h.streak
}

/** Start of the first window after the latest completion; never attended: the first window. */
export function nextRecurrenceDate(h: Habit): LocalDateTime {
  const start = h.lastCompletedWindowStart
    ? nextWindow(h.recurrence, windowContaining(h.recurrence, h.lastCompletedWindowStart)).start
    : h.firstWindowStart
  return startOfDay(start)
}

/** Windows that ended uncompleted since the last check, and where the next check starts. */
export function judgeMissedWindows(h: Habit, completed: ReadonlySet<LocalDate>, today: LocalDate, limit: number) {
  const ended = windowsEndedBetween(h.recurrence, h.missCheckFrom, today, limit)
  const missed = ended.filter((w) => !completed.has(w.start))
  const last = ended[ended.length - 1]
  const from = last ? last.end : h.missCheckFrom
  const checked = { missCheckFrom: from, missCheckDue: windowContaining(h.recurrence, from).end }
  return { missed, habit: { ...h, ...checked } }
}
