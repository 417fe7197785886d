/**
 * What a habit does to its avatar (DESIGN §9.3): a completion's reward, with the streak freeze a
 * long enough streak earns, and a missed window's penalty, paid with a freeze or with damage
 * within the day's cap. Pure.
 */
import { addStreakFreeze, receiveReward, takeDamage, type Avatar, type Growth, type Hurt } from './avatar.js'
import { FREEZE_EVERY_STREAK, MISSED_DAMAGE_DAILY_CAP, MISSED_DAMAGE_DAYS_KEPT, STREAK_FREEZES_MAX } from './rules.js'

/** A habit completion as the avatar is paid for it (a HabitAttended). */
export interface Completion {
  reward: { experience: number; money: number }
  /** The run of done windows this completion continues, itself included. */
  streak: number
  /** Whether it made its window done (a TIMES_PER_WEEK week may still be short). */
  windowCompleted: boolean
}

interface CompletionPaid extends Growth {
  freezeEarned: boolean
}

/**
 * A completion's reward; one that completes a window whose streak reaches a multiple of
 * FREEZE_EVERY_STREAK also earns a streak freeze, while one more fits (none is owed later). Never
 * refused, like every reward from play.
 */
export function rewardCompletion(a: Avatar, c: Completion): CompletionPaid {
  const growth = receiveReward(a, c.reward)
  const earned = c.windowCompleted && c.streak % FREEZE_EVERY_STREAK === 0 && growth.avatar.streakFreezes < STREAK_FREEZES_MAX
  if (!earned) return { ...growth, freezeEarned: false }
  return { ...growth, avatar: addStreakFreeze(growth.avatar), freezeEarned: true }
}

/** The penalty of a habit's window that ended without its completion (a HabitMissed). */
interface MissedPenalty {
  /** The local day the window ended: its penalty falls on that day. */
  day: string
  /** The window's nominal penalty. */
  damage: number
}

export type MissedOutcome = 'DAMAGED' | 'FROZEN'

interface Settlement extends Hurt {
  /** FROZEN: a streak freeze took the penalty; DAMAGED: the avatar did, as much as the day's cap left (maybe 0). */
  outcome: MissedOutcome
  /** Damage actually taken. */
  damage: number
}

/**
 * How a missed window is paid for: with a streak freeze when one is held (no damage; the habit's
 * streak is kept), else with damage, at most what the day's MISSED_DAMAGE_DAILY_CAP leaves, so a
 * player with many habits is not wiped out by one bad day.
 */
export function settleMissedWindow(a: Avatar, missed: MissedPenalty): Settlement {
  if (a.streakFreezes > 0) {
    return { avatar: { ...a, streakFreezes: a.streakFreezes - 1 }, died: false, moneyLost: 0, outcome: 'FROZEN', damage: 0 }
  }
  const damage = damageLeftOn(a.missedDamage, missed.day, missed.damage)
  const hurt = takeDamage({ ...a, missedDamage: withDamage(a.missedDamage, missed.day, damage) }, damage)
  return { ...hurt, outcome: 'DAMAGED', damage }
}

/** What a window ending on `day` may still cost: its penalty, within what the day's cap leaves. */
function damageLeftOn(taken: Record<string, number>, day: string, penalty: number): number {
  const days = Object.keys(taken)
  // A full record that reaches no further back than later days cannot tell what this day took:
  // rather no damage than more than the cap.
  if (days.length >= MISSED_DAMAGE_DAYS_KEPT && days.every((d) => d > day)) return 0
  return Math.min(penalty, Math.max(0, MISSED_DAMAGE_DAILY_CAP - (taken[day] ?? 0)))
}

/** The record with `amount` more taken on `day`, keeping the latest MISSED_DAMAGE_DAYS_KEPT days. */
function withDamage(taken: Record<string, number>, day: string, amount: number): Record<string, number> {
  if (amount === 0) return taken
  const next: Record<string, number> = { ...taken, [day]: (taken[day] ?? 0) + amount }
  return Object.fromEntries(Object.keys(next).sort().slice(-MISSED_DAMAGE_DAYS_KEPT).map((d) => [d, next[d]!]))
}
