import { isTrusted, type Principal } from '../../../platform/auth/principal.js'
import { failed, succeeded, type Outcome } from '../../../platform/writer/batcher.js'
import { Forbidden, NotFound } from '../../../platform/errors.js'
import { newId } from '../../../platform/ids.js'
import type { LocalDate, LocalDateTime } from '../../../platform/time/index.js'
import * as rules from '../domain/habit.js'
import type { Habit } from '../domain/habit.js'
import type { SettingsEntry } from '../domain/settings.js'
import type { HabitAttended } from '../../../contracts/events/tracking.js'
import type { AttendanceWrite, LoadedHabit } from '../store/attendances.js'

/** One attend, waiting in its player's batch. */
export interface AttendCommand {
  principal: Principal
  habitId: string
  attendedAt: LocalDateTime
}

export function authorizeHabit(p: Principal, h: Habit): void {
  if (isTrusted(p) || h.ownerId === p.userId) return
  throw new Forbidden(`Habit '${h.id}' is private to its owner.`, 'not-owner')
}

/**
 * Decides a batch of attends in arrival order, each on the habit as the ones before it left it (two
 * attends of one habit in one batch: the second sees the first's completion). A refused attend
 * answers its own error. Each applied attend raises its habit's version by one, and its
 * HabitAttended event carries the version after it. One write per habit that changed.
 */
export function decideAttends(loaded: ReadonlyMap<string, LoadedHabit>, commands: AttendCommand[], now: Date): { outcomes: Outcome<void>[]; writes: AttendanceWrite[] } {
  const state = new Map<string, { readVersion: number; habit: Habit; history: SettingsEntry[]; slots: Set<LocalDate>; write?: AttendanceWrite }>()
  for (const [id, l] of loaded) state.set(id, { readVersion: l.habit.version, habit: l.habit, history: l.history, slots: new Set(l.slots) })
  const outcomes = commands.map((c): Outcome<void> => {
    try {
      const s = state.get(c.habitId)
      if (!s) throw new NotFound('Habit', c.habitId)
      authorizeHabit(c.principal, s.habit)
      const a = rules.attend(s.habit, s.history, s.slots, c.attendedAt, now)
      s.habit = { ...a.habit, version: s.habit.version + 1 }
      s.slots.add(a.slot)
      const payload: HabitAttended['payload'] = {
        habitId: s.habit.id, avatarId: s.habit.avatarId, questId: s.habit.associatedQuestId,
        windowStart: a.window.start, windowEnd: a.window.end, attendedAt: c.attendedAt, streak: a.streak,
        windowCompleted: a.windowCompleted, reward: a.reward,
      }
      s.write ??= { readVersion: s.readVersion, habit: s.habit, completions: [], events: [] }
      s.write.habit = s.habit
      s.write.completions.push({ windowStart: a.slot, attendedAt: c.attendedAt })
      s.write.events.push({ id: newId(), type: 'HabitAttended', version: s.habit.version, payload })
      return succeeded(undefined)
    } catch (e) {
      return failed(e)
    }
  })
  return { outcomes, writes: [...state.values()].flatMap((s) => (s.write ? [s.write] : [])) }
}
