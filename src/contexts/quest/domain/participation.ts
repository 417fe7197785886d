/**
 * A participant's run at a quest: the window [joinedAt, joinedAt + duration) in local time, the
 * completions each habit needs in it, and the payout. Pure; the calendar (a recurrence's
 * windows, durations on the wall clock) is platform/time's, the one the copies' windows follow.
 */
import { addDuration, anchoredAt, dateOf, windowsOverlapping, type LocalDate, type LocalDateTime } from '../../../platform/time/index.js'
import { parseDuration } from './duration.js'
import { QuestHasNoHabits } from './errors.js'
import type { Quest, QuestHabit, Reward } from './quest.js'
import { PAYOUT_CEILING_PER_COMPLETION } from './rules.js'

export const PARTICIPATION_STATUSES = ['IN_PROGRESS', 'COMPLETED', 'EXPIRED'] as const
export type ParticipationStatus = (typeof PARTICIPATION_STATUSES)[number]

export interface ParticipantHabit {
  /**
   * The quest's entry as it was at the join, its windows counted from the join day (an
   * EVERY_N_DAYS recurrence is anchored there): the copy is made from it, with the same windows.
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
  timeZone: string
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

/** The day the copies' windows are counted from: the join day (an EVERY_N_DAYS copy's N-day steps start on it). */
export const firstDayOf = (p: Pick<Participation, 'from'>): LocalDate => dateOf(p.from)

/**
 * Joining at local time `joinedAt`: the terms (habits, duration, reward) are taken as they are
 * now; later edits of the quest do not change a running participation. Each habit needs one
 * done window per window of its copy that overlaps the participant's window; the copy's windows
 * are counted from the join day (firstDayOf), where the copy's EVERY_N_DAYS steps begin.
 */
export function join(
  quest: Pick<Quest, 'id' | 'duration' | 'reward' | 'habits'>,
  who: { avatarId: string; timeZone: string; joinedAt: LocalDateTime },
  newId: () => string,
): Participation {
  if (quest.habits.length === 0) throw new QuestHasNoHabits()
  const to = addDuration(who.joinedAt, parseDuration(quest.duration))
  const firstDay = firstDayOf({ from: who.joinedAt })
  const habits = quest.habits.map((entry): ParticipantHabit => {
    const habit = { ...entry, recurrence: anchoredAt(entry.recurrence, firstDay) }
    return { habit, copyHabitId: newId(), windows: windowsOverlapping(habit.recurrence, who.joinedAt, to).map((w) => w.start), done: [] }
  })
  return {
    id: newId(),
    questId: quest.id,
    avatarId: who.avatarId,
    status: 'IN_PROGRESS',
    timeZone: who.timeZone,
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

export interface Progress {
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
