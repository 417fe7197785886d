import type { TrackingDraft } from '../../../contracts/events/tracking.js'
import { isTrusted, type Principal } from '../../../platform/auth/principal.js'
import type { Clock } from '../../../platform/clock.js'
import { NotOwner } from '../../../platform/errors.js'
import type { LocalDateTime } from '../../../platform/time/index.js'
import type { BatchedCommand } from '../../../platform/writer/decisions.js'
import * as rules from '../domain/habit.js'
import type { Habit } from '../domain/habit.js'
import type { AttendableHabit } from '../store/habit-aggregate.js'

export function authorizeHabit(p: Principal, h: Habit): void {
  if (isTrusted(p) || h.ownerId === p.userId) return
  throw new NotOwner(`Habit '${h.id}' is private to its owner.`)
}

/**
 * An attend as a command of its habit's batch: decided on the habit as the attends before it in
 * the batch left it (two attends of one habit: the second sees the first's completion). It records
 * the completion and tells HabitAttended, whose reward the avatar context pays.
 */
export function attendCommand(p: Principal, attendedAt: LocalDateTime, clock: Clock): BatchedCommand<AttendableHabit, TrackingDraft, void, undefined, 'completions'> {
  return {
    decide: (h) => {
      authorizeHabit(p, h)
      const now = clock.now()
      const a = rules.attend(h, h.history, new Set(h.slots), attendedAt, now)
      return {
        state: { ...a.habit, slots: [...h.slots, a.slot], history: h.history },
        events: [{ type: 'HabitAttended', payload: {
          habitId: h.id, avatarId: h.avatarId, questId: h.associatedQuestId, windowStart: a.window.start, windowEnd: a.window.end, attendedAt,
          streak: a.streak, windowCompleted: a.windowCompleted, reward: a.reward,
        } }],
        parts: { completions: [{ habitId: h.id, windowStart: a.slot, attendedAt, recordedAt: now }] },
        result: undefined,
      }
    },
  }
}
