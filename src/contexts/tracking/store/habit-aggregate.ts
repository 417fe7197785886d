import type { TrackingDraft } from '../../../contracts/events/tracking.js'
import type { Outbox } from '../../../platform/events/outbox.js'
import type { AggregateDefinition } from '../../../platform/writer/aggregate.js'
import type { LocalDate } from '../../../platform/time/index.js'
import type { Habit } from '../domain/habit.js'
import type { SettingsEntry } from '../domain/settings.js'
import { fromHabit, toHabit } from './habit-rows.js'
import { attendAnswers, completions, habits } from './tables.js'

/**
 * The habit as the platform writer stores it: its row (all but its avatar, owner, paging position
 * and creation written with each change) and, with an attend, the completion it records.
 */
export const habitAggregate = (outbox: Outbox<TrackingDraft>): AggregateDefinition<Habit, typeof habits, 'completions'> => ({
  name: 'habit',
  table: habits,
  key: habits.id,
  version: habits.version,
  fixed: [habits.avatarId, habits.ownerId, habits.seq, habits.createdAt],
  outbox,
  toState: toHabit,
  toRow: fromHabit,
  keyOf: (h) => h.id,
  parts: { completions: { table: completions, of: completions.habitId } },
})

/** A habit as an attend decides on it: with the slots its completions filled and its avatar's day settings, read with it. */
export type AttendableHabit = Habit & { slots: LocalDate[]; history: SettingsEntry[] }

/**
 * The same habit, as attends load it (`attendanceStore.load`): the slots and the settings are read, never written;
 * a keyed attend's answer is written with its completion.
 */
export const attendableHabitAggregate = (outbox: Outbox<TrackingDraft>): AggregateDefinition<AttendableHabit, typeof habits, 'completions'> => ({
  ...habitAggregate(outbox),
  answers: {
    table: attendAnswers, key: attendAnswers.key, of: attendAnswers.habitId, operation: attendAnswers.operation, result: attendAnswers.result,
    at: attendAnswers.answeredAt,
  },
  toState: (row) => ({ ...toHabit(row), slots: [], history: [] }),
  toRow: ({ slots: _slots, history: _history, ...h }) => fromHabit(h),
})
