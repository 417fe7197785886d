/** A habit's row and the domain's Habit, each made from the other (the columns come from the table definition). */
import { recurrenceFields, type Recurrence, type RecurrenceType, type Weekday } from '../../../platform/time/index.js'
import type { Habit } from '../domain/habit.js'
import type { habits } from './tables.js'

export type HabitRow = typeof habits.$inferSelect

type RecurrenceColumns = Pick<HabitRow, 'recurrenceType' | 'dayOfWeek' | 'dayOfMonth' | 'timesPerWeek' | 'everyNDays' | 'recurrenceAnchor'>

function recurrenceOf(r: RecurrenceColumns): Recurrence {
  switch (r.recurrenceType as RecurrenceType) {
    case 'WEEKLY': return { type: 'WEEKLY', dayOfWeek: r.dayOfWeek as Weekday }
    case 'MONTHLY': return { type: 'MONTHLY', dayOfMonth: r.dayOfMonth! }
    case 'TIMES_PER_WEEK': return { type: 'TIMES_PER_WEEK', timesPerWeek: r.timesPerWeek! }
    case 'EVERY_N_DAYS': return { type: 'EVERY_N_DAYS', everyNDays: r.everyNDays!, anchor: r.recurrenceAnchor! }
    default: return { type: 'DAILY' }
  }
}

export function toHabit(row: HabitRow): Habit {
  const {
    recurrenceType, dayOfWeek, dayOfMonth, timesPerWeek, everyNDays, recurrenceAnchor, timeZone, restDays, previousRestDays,
    createdAt: _createdAt, seq: _seq, ...rest
  } = row
  return {
    ...rest,
    recurrence: recurrenceOf({ recurrenceType, dayOfWeek, dayOfMonth, timesPerWeek, everyNDays, recurrenceAnchor }),
    ownTimeZone: timeZone,
    restDays: restDays as Weekday[],
    previousRestDays: previousRestDays as Weekday[],
  }
}

export function fromHabit({ recurrence, ownTimeZone, ...h }: Habit) {
  return { ...h, timeZone: ownTimeZone, ...recurrenceColumns(recurrence) }
}

/** The table names the type column apart (`recurrence_type`) and keeps an EVERY_N_DAYS anchor. */
function recurrenceColumns(r: Recurrence): RecurrenceColumns {
  const { type, ...fields } = recurrenceFields(r)
  return { recurrenceType: type, ...fields, recurrenceAnchor: r.type === 'EVERY_N_DAYS' ? r.anchor : null }
}
