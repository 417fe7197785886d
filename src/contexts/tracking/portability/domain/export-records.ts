/**
 * What tracking exports of a player's data (DESIGN §9.4), as records: a habit with the fields its
 * owner chose and its state now, and the kinds of its history. http/export-schemas.ts describes
 * the same records as JSON Schema for the API document and the export's schema.
 */
import { recurrenceFields, type LocalDate, type Weekday } from '../../../../platform/time/index.js'
import type { ArchivedSpan } from '../../domain/archive.js'
import { currentStreak, type Habit } from '../../domain/habit.js'
import type { SettingsEntry } from '../../domain/settings.js'

/** The kinds of a habit's history an export pages through: completions, windows missed (or not due), windows frozen. */
export const HISTORY_KINDS = ['completions', 'missed', 'frozen'] as const
export type HistoryKind = (typeof HISTORY_KINDS)[number]

export interface HabitRecord {
  id: string
  title: string
  description: string
  tags: string[]
  recurrence: ReturnType<typeof recurrenceFields>
  anchor: LocalDate | null
  timeZone: string | null
  restDays: Weekday[]
  reminderTime: string | null
  associatedQuestId: string | null
  firstWindowStart: LocalDate
  lastAttendedDate: string | null
  lastCompletedWindowStart: LocalDate | null
  streak: number
  bestStreak: number
  archived: boolean
  archivedSpans: ArchivedSpan[]
}

/** A habit as it is exported: the fields its owner chose and its state now. */
export function habitRecord(h: Habit, history: SettingsEntry[], now: Date): HabitRecord {
  return {
    id: h.id,
    title: h.title,
    description: h.description,
    tags: h.tags,
    recurrence: recurrenceFields(h.recurrence),
    anchor: h.recurrence.type === 'EVERY_N_DAYS' ? h.recurrence.anchor : null,
    timeZone: h.ownTimeZone,
    restDays: h.restDays,
    reminderTime: h.reminderTime,
    associatedQuestId: h.associatedQuestId,
    firstWindowStart: h.firstWindowStart,
    lastAttendedDate: h.lastAttendedAt,
    lastCompletedWindowStart: h.lastCompletedWindowStart,
    streak: currentStreak(h, history, now),
    bestStreak: h.bestStreak,
    archived: h.archived,
    archivedSpans: h.archivedSpans,
  }
}
