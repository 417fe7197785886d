/**
 * A participant's run at a quest: the window [joinedAt, joinedAt + duration) on the wall clock of
 * the participant's zone, the completions each habit needs in it, and the payout. The copies'
 * windows are made of the participant's days (DESIGN §9.3: from its day start hour to the same
 * hour the next day), so those are the days counted here. Pure; the calendar (a recurrence's
 * windows, durations on the wall clock) is platform/time's, the one the copies' windows follow.
 */
import {
  addDuration, addHours, anchoredAt, dateOf, windowsOverlapping, type DayFrame, type LocalDate, type LocalDateTime,
} from '../../../platform/time/index.js'
import { parseDuration } from './duration.js'
import { QuestHasNoHabits } from './errors.js'
import type { Quest, QuestHabit, Reward } from './quest.js'
import { PAYOUT_CEILING_PER_COMPLETION } from './rules.js'

export const PARTICIPATION_STATUSES = ['IN_PROGRESS', 'COMPLETED', 'EXPIRED'] as const
export type ParticipationStatus = (typeof PARTICIPATION_STATUSES)[number]

export interface ParticipantHabit {
  /**
   * The quest's entry as it was at the join, its windows counted from the participant's day of
   * the join (an EVERY_N_DAYS recurrence is anchored there): the copy is made from it, with the
   * same windows.
   */
  habit: QuestHabit
  /** The copy in the participant's habits (the id is chosen here, so a retried copy is the same one). */
  copyHabitId: string
  /**
   * Starts of the copy's windows that overlap the participant's window: each must be done once
   * (a TIMES_PER_WEEK week by its timesPerWeek completions).
   */
  windows: string[]
  /** Starts of those windows done. */
  done: string[]
}

export interface Participation {
  id: string
  questId: string
  avatarId: string
  status: ParticipationStatus
  /** The participant's zone at the join, kept: the copies' windows are counted in it. */
  timeZone: string
  /** The participant's day start hour at the join (0–23): its days, and the copies' windows, run from that hour. */
  dayStartHour: number
  /** The participant's window, local date-times in timeZone. */
  from: LocalDateTime
  to: LocalDateTime
  /** What completing pays: the quest's reward as at the join, capped (payoutFor). */
  payout: Reward
  habits: ParticipantHabit[]
  /** Whether every copy is known to exist; a join cut short by a crash is finished by a retry or the job. */
  copiesMade: boolean
  version: number
}

/** Completions the participation needs in all: one per window of each habit. */
const requiredOf = (habits: ParticipantHabit[]) => habits.reduce((n, h) => n + h.windows.length, 0)

/** min(reward, ceiling × required completions), part by part. */
export function payoutFor(reward: Reward, requiredCompletions: number): Reward {
  return {
    experience: Math.min(reward.experience, PAYOUT_CEILING_PER_COMPLETION.experience * requiredCompletions),
    money: Math.min(reward.money, PAYOUT_CEILING_PER_COMPLETION.money * requiredCompletions),
  }
}

/**
 * The day the copies' windows are counted from: the participant's day of the join, its days
 * running from the day start hour (with 4, a join at 02:00 is on the day before), read on the wall
 * clock as the required windows are (see `join`). An EVERY_N_DAYS copy's N-day steps start on
 * it; tracking counts a copy made at the join from that same day, and a retried or recovered join
 * passes it, so a copy made on a later day has the same windows.
 */
export const firstDayOf = (p: Pick<Participation, 'from' | 'dayStartHour'>): LocalDate => dateOf(addHours(p.from, -p.dayStartHour))

/**
 * Joining at local time `joinedAt` in the participant's frame (its zone and day start hour): the
 * terms (habits, duration, reward) are taken as they are now; later edits of the quest do not
 * change a running participation. Each habit needs one done window per window of its copy whose
 * days overlap the participant's window; the copy's windows are counted from the participant's
 * day of the join (firstDayOf), where the copy's EVERY_N_DAYS steps begin.
 */
export function join(
  quest: Pick<Quest, 'id' | 'duration' | 'reward' | 'habits'>,
  who: { avatarId: string; frame: DayFrame; joinedAt: LocalDateTime },
  newId: () => string,
): Participation {
  if (quest.habits.length === 0) throw new QuestHasNoHabits()
  const { timeZone, dayStartHour } = who.frame
  const to = addDuration(who.joinedAt, parseDuration(quest.duration))
  const firstDay = firstDayOf({ from: who.joinedAt, dayStartHour })
  // The copy's window [s, e) is its days s … e − 1: on the wall clock, from s at the day start
  // hour h to e at h. It overlaps [joinedAt, to) when s + h < to and e + h > joinedAt, that is when
  // s 00:00 < to − h and e 00:00 > joinedAt − h. So moving the participant's window back by h
  // hours, as naive wall-clock arithmetic (a day starts at h:00 on the clock whatever the offset),
  // turns the participant's days into the midnight-to-midnight ones windowsOverlapping counts in.
  // The first window is then the one holding the day of the join (firstDay), and no window that
  // starts at or after the end is required: a quest ending at 02:00 on day E, with days from
  // 04:00, does not need window E, which opens only after it has ended.
  const from = addHours(who.joinedAt, -dayStartHour)
  const until = addHours(to, -dayStartHour)
  const habits = quest.habits.map((entry): ParticipantHabit => {
    const habit = { ...entry, recurrence: anchoredAt(entry.recurrence, firstDay) }
    return { habit, copyHabitId: newId(), windows: windowsOverlapping(habit.recurrence, from, until).map((w) => w.start), done: [] }
  })
  return {
    id: newId(),
    questId: quest.id,
    avatarId: who.avatarId,
    status: 'IN_PROGRESS',
    timeZone,
    dayStartHour,
    from: who.joinedAt,
    to,
    payout: payoutFor(quest.reward, requiredOf(habits)),
    habits,
    copiesMade: false,
    version: 1,
  }
}

export interface Completion {
  copyHabitId: string
  /** The start of the copy's window the completion fell in. */
  windowStart: string
  /** Whether it made that window done: false for a TIMES_PER_WEEK week still short of its count. */
  windowCompleted: boolean
  /** When the completion was recorded, local time in the participation's zone. */
  recordedAt: LocalDateTime
}

/**
 * Counts a completion of a copy that made its window done: once per window, only for a window
 * that overlaps the participant's window, only while the participation runs and only when
 * recorded before its window closed. `completed` says whether this completion finished the quest.
 */
export function recordCompletion(p: Participation, c: Completion): { participation: Participation; completed: boolean } {
  const unchanged = { participation: p, completed: false }
  if (!c.windowCompleted || p.status !== 'IN_PROGRESS' || c.recordedAt >= p.to) return unchanged
  const target = p.habits.find((h) => h.copyHabitId === c.copyHabitId)
  if (!target || !target.windows.includes(c.windowStart) || target.done.includes(c.windowStart)) return unchanged
  const habits = p.habits.map((h) => (h === target ? { ...h, done: [...h.done, c.windowStart] } : h))
  const completed = habits.every((h) => h.done.length === h.windows.length)
  return { participation: { ...p, habits, status: completed ? 'COMPLETED' : p.status }, completed }
}

/** Whether a running participation's window had closed by `at` (local time in its zone). */
export function hasEndedBy(p: Participation, at: LocalDateTime): boolean {
  return p.status === 'IN_PROGRESS' && at >= p.to
}

export const expire = (p: Participation): Participation => ({ ...p, status: 'EXPIRED' })

interface Progress {
  required: number
  done: number
  /** Whole percent of the required completions done, rounded down. */
  percent: number
}

export function progressOf(p: Participation): Progress {
  const required = requiredOf(p.habits)
  const done = p.habits.reduce((n, h) => n + h.done.length, 0)
  return { required, done, percent: required === 0 ? 0 : Math.floor((done * 100) / required) }
}
