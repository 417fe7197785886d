/**
 * Tracking's part of a player's data (DESIGN §9.4): the shapes it exports (an avatar's settings,
 * each habit with its whole history) and the part of an export document an import reads. The edge
 * composes the export document from these (through client.ts); an import reads them back.
 */
import { Type, type Static } from 'typebox'
import { Nullable, StringEnum } from '../../../../platform/http/schemas.js'
import { RECURRENCE_TYPES, WEEKDAYS } from '../../../../platform/time/index.js'
import { ARCHIVED_SPANS_KEPT } from '../../domain/rules.js'
import { Description, RecurrenceView, ReminderTime, SettingsView, Tags, Title } from '../../http/schemas.js'

const LocalDate = (description = 'Local date YYYY-MM-DD') => Type.String({ format: 'date', description })
const LocalDateTime = Type.String({ minLength: 1, maxLength: 40, description: 'Local date-time YYYY-MM-DDTHH:mm:ss[.SSS], no offset, in the habit\'s zone' })

/** The days whose windows started while the habit was archived (not due), as the habit keeps them. */
const ArchivedSpans = Type.Array(Type.Object({
  from: LocalDate('The first day a window started on while archived'),
  until: Nullable(LocalDate('The day after the span; null: archived still')),
}), { maxItems: ARCHIVED_SPANS_KEPT, description: 'The days whose windows started while the habit was archived (not due), the latest spans, oldest first' })

/** The avatar's day settings now. */
export const SettingsExport = SettingsView

export const HabitExport = Type.Object({
  id: Type.String(),
  title: Type.String(),
  description: Type.String(),
  tags: Type.Array(Type.String()),
  recurrence: RecurrenceView,
  anchor: Nullable(LocalDate('EVERY_N_DAYS: the day its N-day windows are counted from; null for the other types')),
  timeZone: Nullable(Type.String({ description: "The habit's own IANA zone; null: it follows its avatar's" })),
  restDays: Type.Array(StringEnum(WEEKDAYS)),
  reminderTime: ReminderTime,
  associatedQuestId: Nullable(Type.String()),
  firstWindowStart: LocalDate('Start of the first window that may be completed'),
  lastAttendedDate: Nullable(Type.String()),
  lastCompletedWindowStart: Nullable(Type.String()),
  streak: Type.Integer({ minimum: 0 }),
  bestStreak: Type.Integer({ minimum: 0 }),
  archived: Type.Boolean({ description: 'Archived: kept with its history, not attended, judged or reminded of' }),
  archivedSpans: ArchivedSpans,
})

export const CompletionExport = Type.Object({
  windowStart: LocalDate('What the completion filled: its window\'s start (TIMES_PER_WEEK: its day)'),
  attendedAt: Type.String(),
})

const JUDGED_OUTCOMES = ['MISSED', 'NOT_DUE', 'FROZEN'] as const
export const JudgedWindowExport = Type.Object({
  windowStart: LocalDate(),
  outcome: StringEnum(JUDGED_OUTCOMES, { description: 'MISSED penalised; NOT_DUE a vacation or rest day; FROZEN a streak freeze took the penalty' }),
})

/** One habit with its whole history: every completion, and every window judged without one. */
export const HabitRecordExport = Type.Object({
  habit: HabitExport,
  completions: Type.Array(CompletionExport, { description: 'Every completion, oldest first' }),
  missed: Type.Array(JudgedWindowExport, { description: 'Windows judged MISSED or NOT_DUE, oldest first' }),
  frozen: Type.Array(JudgedWindowExport, { description: 'Windows a streak freeze covered (FROZEN), oldest first' }),
})

export type HabitExport = Static<typeof HabitExport>
export type CompletionExport = Static<typeof CompletionExport>
export type JudgedWindowExport = Static<typeof JudgedWindowExport>
export type SettingsExport = Static<typeof SettingsExport>

/** A page of an avatar's habits (without history) for an export, oldest first. */
export const HabitExportPage = Type.Object({ items: Type.Array(HabitExport), next: Nullable(Type.String()) })
/** A page of one habit's history of one kind, oldest first; `next` is the last window start of the page. */
export const HistoryExportPage = Type.Object({
  items: Type.Array(Type.Union([CompletionExport, JudgedWindowExport])),
  next: Nullable(Type.String()),
})
export { HISTORY_KINDS, type HistoryKind } from '../domain/export-records.js'

// ---- what an import reads of an export document ----

/** The habit as an import reads it: the fields a player chose; the state (streaks) is worked out from the history. */
const ImportedHabit = Type.Object({
  title: Title,
  description: Type.Optional(Description),
  tags: Type.Optional(Tags),
  recurrence: Type.Object({
    type: StringEnum(RECURRENCE_TYPES),
    dayOfWeek: Type.Optional(Nullable(Type.String())),
    dayOfMonth: Type.Optional(Nullable(Type.Integer())),
    timesPerWeek: Type.Optional(Nullable(Type.Integer())),
    everyNDays: Type.Optional(Nullable(Type.Integer())),
  }),
  anchor: Type.Optional(Nullable(LocalDate())),
  timeZone: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 64 }))),
  restDays: Type.Optional(Nullable(Type.Array(Type.String(), { maxItems: WEEKDAYS.length * 2 }))),
  reminderTime: Type.Optional(ReminderTime),
  firstWindowStart: Type.Optional(LocalDate()),
  archived: Type.Optional(Type.Boolean({ description: 'Absent: false' })),
  archivedSpans: Type.Optional(ArchivedSpans),
})

const ImportedRecord = Type.Object({
  habit: ImportedHabit,
  completions: Type.Array(Type.Object({ windowStart: LocalDate(), attendedAt: LocalDateTime })),
  missed: Type.Optional(Type.Array(Type.Object({ windowStart: LocalDate(), outcome: StringEnum(['MISSED', 'NOT_DUE'] as const) }))),
  frozen: Type.Optional(Type.Array(Type.Object({ windowStart: LocalDate(), outcome: Type.Optional(StringEnum(['FROZEN'] as const)) }))),
})

/**
 * An export document as an import reads it (other fields are allowed and ignored): the habits
 * of one of its avatars, chosen with `?avatar=`. Sizes are bounded by the import (IMPORT_* rules).
 */
export const ImportDocument = Type.Object({
  format: Type.Literal('questline-export'),
  version: Type.Literal(1),
  avatars: Type.Array(Type.Object({
    avatar: Type.Optional(Type.Object({ id: Type.Optional(Type.String()) })),
    habits: Type.Array(ImportedRecord),
  }), { minItems: 1 }),
}, { description: 'A Questline export document (GET /api/v1/me/export); its schema: /schemas/export-v1.json' })
export type ImportDocument = Static<typeof ImportDocument>
export type ImportedRecord = Static<typeof ImportedRecord>

/** A Loop Habit Tracker CSV export as its two files' text (`?format=loop`). */
export const LoopCsvPair = Type.Object({
  habits: Type.String({ minLength: 1, description: 'Habits.csv as Loop exports it' }),
  checkmarks: Type.String({ minLength: 1, description: 'Checkmarks.csv (Date, then one column per habit)' }),
}, { description: "A Loop Habit Tracker CSV export's Habits.csv and Checkmarks.csv, as text (`?format=loop`)" })
