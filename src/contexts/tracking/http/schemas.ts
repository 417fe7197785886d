import { Type, type Static, type TObject, type TSchema } from 'typebox'
import { REMINDER_TIME_PATTERN } from '../../../contracts/events/tracking.js'
import { LinksSchema } from '../../../platform/http/links.js'
import { AvatarIdString, Nullable, StringEnum } from '../../../platform/http/schemas.js'
import { LOCAL_DATE_TIME_PATTERN, RECURRENCE_TYPES, WEEKDAYS } from '../../../platform/time/index.js'
import { FIELD_OF, type ScheduleFields } from '../domain/habit-fields.js'
import {
  DAY_OF_MONTH_MAX, DAY_OF_MONTH_MIN, DAY_START_HOUR_MAX, DESCRIPTION_MAX, EVERY_N_DAYS_MAX, EVERY_N_DAYS_MIN, LIST_DEFAULT_LIMIT, LIST_MAX_LIMIT,
  TAGS_MAX, TAG_MAX, TIMES_PER_WEEK_MAX, TIMES_PER_WEEK_MIN, TITLE_MAX,
} from '../domain/rules.js'

export const HabitIdParams = Type.Object({ id: Type.String({ format: 'uuid' }) })

export const Title = Type.String({ minLength: 1, maxLength: TITLE_MAX, pattern: '\\S' })
export const Description = Type.String({ maxLength: DESCRIPTION_MAX })
export const Tags = Type.Array(Type.String({ minLength: 1, maxLength: TAG_MAX, pattern: '\\S' }), { maxItems: TAGS_MAX, description: 'Trimmed and de-duplicated; 1–40 characters each' })
const RecurrenceType = StringEnum(RECURRENCE_TYPES)
const DayOfWeek = Nullable(StringEnum(WEEKDAYS))
export const ReminderTime = Nullable(Type.String({
  pattern: REMINDER_TIME_PATTERN,
  description: 'HH:mm (00:00–23:59) in the habit\'s time zone: a reminder at that time on the last day of each window not yet completed; null: none',
}))
const SCHEDULE_FIELDS: Record<keyof ScheduleFields, TSchema> = {
  dayOfWeek: StringEnum(WEEKDAYS, { description: 'WEEKLY: the weekday of each window' }),
  dayOfMonth: Type.Integer({ minimum: DAY_OF_MONTH_MIN, maximum: DAY_OF_MONTH_MAX, description: 'MONTHLY: 31 means the last day of shorter months' }),
  timesPerWeek: Type.Integer({ minimum: TIMES_PER_WEEK_MIN, maximum: TIMES_PER_WEEK_MAX, description: 'TIMES_PER_WEEK: completions the ISO week needs, at most one a day' }),
  everyNDays: Type.Integer({ minimum: EVERY_N_DAYS_MIN, maximum: EVERY_N_DAYS_MAX, description: "EVERY_N_DAYS: the window's length in days, from the habit's first day" }),
}

/**
 * `fields` with the schedule of a recurrence, one variant per type, picked by the type in `tag`
 * (OpenAPI's discriminator, which the validator follows too): the type's own field is required, and
 * another type's is null or absent. A refusal names only what does not fit the type asked for.
 */
export function withSchedule<T extends TObject>(fields: T, tag: string, options: Record<string, unknown>) {
  const variants = RECURRENCE_TYPES.map((type) => {
    const own = FIELD_OF[type]
    const schedule = Object.entries(SCHEDULE_FIELDS).map(([name, schema]) =>
      [name, name === own ? schema : Type.Optional(Type.Null({ description: `Not for a ${type} habit` }))])
    return Type.Object({ [tag]: StringEnum([type]), ...Object.fromEntries(schedule) }, { title: type })
  })
  return Type.Unsafe<Static<T> & ScheduleFields>({ ...fields, discriminator: { propertyName: tag }, oneOf: variants, ...options })
}
export const RestDays = Nullable(Type.Array(StringEnum(WEEKDAYS), {
  maxItems: WEEKDAYS.length * 2, description: 'DAILY only: weekdays whose windows are not due (not all seven); changes govern windows from tomorrow on',
}))
const localDate = (description = 'Local date YYYY-MM-DD') => Type.String({ format: 'date', description })

export const CreateHabitBody = withSchedule(Type.Object({
  avatarId: AvatarIdString(),
  title: Title,
  description: Type.Optional(Description),
  tags: Type.Optional(Tags),
  recurrenceType: RecurrenceType,
  restDays: Type.Optional(RestDays),
  timeZone: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 64, description: "The habit's own IANA zone; absent or null: it follows its avatar's (settings)" }))),
  reminderTime: Type.Optional(ReminderTime),
}), 'recurrenceType', {
  examples: [{
    avatarId: 'ada-ranger', title: 'Read 20 pages', description: 'Any book, before bed', tags: ['reading', 'evening'],
    recurrenceType: 'DAILY', restDays: ['SATURDAY'], timeZone: 'Europe/Berlin', reminderTime: '21:30',
  }],
})

export const TitleBody = Type.Object({ title: Title }, { examples: [{ title: 'Read 30 pages' }] })
export const DescriptionBody = Type.Object({ description: Description }, { examples: [{ description: 'Fiction or not, with a cup of tea before bed' }] })
export const TagsBody = Type.Object({ tags: Tags }, { examples: [{ tags: ['reading', 'evening', 'wind-down'] }] })
export const ReminderTimeBody = Type.Object({ reminderTime: ReminderTime }, { examples: [{ reminderTime: '09:30' }] })
export const RecurrenceBody = withSchedule(Type.Object({ type: RecurrenceType }), 'type', { examples: [{ type: 'WEEKLY', dayOfWeek: 'SATURDAY', dayOfMonth: null }] })
export const RestDaysBody = Type.Object({ restDays: RestDays }, { examples: [{ restDays: ['SATURDAY', 'SUNDAY'] }] })
export const ArchivedBody = Type.Object({
  archived: Type.Boolean({ description: 'true archives the habit; false brings it back' }),
}, { examples: [{ archived: true }] })
export const AttendBody = Type.Object({
  date: Type.String({ pattern: LOCAL_DATE_TIME_PATTERN, description: 'Local date-time YYYY-MM-DDTHH:mm:ss[.SSS], no offset' }),
}, { examples: [{ date: '2026-03-02T21:15:00' }] })

export const ListQuery = Type.Object({
  avatarId: AvatarIdString(),
  limit: Type.Integer({ minimum: 1, maximum: LIST_MAX_LIMIT, default: LIST_DEFAULT_LIMIT }),
  cursor: Type.Optional(Type.String({ format: 'uuid' })),
  archived: Type.Optional(Type.Boolean({ description: 'true: only archived habits; false: only the others; absent (the default): both' })),
})

export const RecurrenceView = Type.Object({
  type: RecurrenceType, dayOfMonth: Nullable(Type.Integer()), dayOfWeek: DayOfWeek, timesPerWeek: Nullable(Type.Integer()), everyNDays: Nullable(Type.Integer()),
})

export const HabitView = Type.Object({
  id: Type.String(),
  avatarId: Type.String(),
  title: Type.String(),
  description: Type.String(),
  tags: Type.Array(Type.String()),
  recurrence: RecurrenceView,
  lastAttendedDate: Nullable(Type.String()),
  nextRecurrenceDate: Type.String(),
  associatedQuestId: Nullable(Type.String()),
  streak: Type.Integer({ description: 'Consecutive completed windows up to now (0 once broken)' }),
  bestStreak: Type.Integer(),
  timeZone: Type.String({ description: 'The zone its windows are counted in: its own, or its avatar\'s' }),
  followsAvatarTimeZone: Type.Boolean(),
  restDays: Type.Array(StringEnum(WEEKDAYS)),
  reminderTime: ReminderTime,
  archived: Type.Boolean({ description: 'Archived: kept with its history; not attended, judged, reminded of or in the calendar feed' }),
  _links: LinksSchema,
})

export const WindowsQuery = Type.Object({
  from: Type.Optional(localDate('First day (default: 35 days ago)')),
  to: Type.Optional(localDate('Day after the last (default: tomorrow); at most 400 windows are shown')),
})
export const WindowsView = Type.Object({
  items: Type.Array(Type.Object({
    start: Type.String(),
    end: Type.String({ description: 'The day after its last' }),
    status: StringEnum(['COMPLETED', 'PARTIAL', 'OPEN', 'UPCOMING', 'PENDING', 'MISSED', 'FROZEN', 'NOT_DUE'] as const, {
      description: 'COMPLETED done; PARTIAL a TIMES_PER_WEEK week under way with completions; OPEN under way; UPCOMING not begun; PENDING ended, not judged yet (an archived habit is judged once brought back); MISSED penalised; FROZEN a streak freeze took the penalty; NOT_DUE a vacation, a rest day, the first window or one that started while the habit was archived (no penalty, the streak carries over)',
    }),
    completions: Type.Integer(),
  })),
})

export const AvatarParams = Type.Object({ id: AvatarIdString() })
const Vacation = Nullable(Type.Object({ from: localDate(), to: localDate() }, { description: 'Local dates, both included; at most 90 days' }))
export const SettingsView = Type.Object({
  timeZone: Type.String({ description: 'IANA zone of the habits without their own' }),
  dayStartHour: Type.Integer({ minimum: 0, maximum: DAY_START_HOUR_MAX, description: 'A day runs from this local hour to the same hour next day' }),
  vacation: Vacation,
})
export const SettingsBody = Type.Object({
  timeZone: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  dayStartHour: Type.Optional(Type.Integer({ minimum: 0, maximum: DAY_START_HOUR_MAX })),
  vacation: Type.Optional(Vacation),
}, { examples: [{ timeZone: 'Europe/Berlin', dayStartHour: 4, vacation: { from: '2026-08-03', to: '2026-08-16' } }] })

export const CreatedHabitView = Type.Object({ id: Type.String(), _links: LinksSchema })
export const HabitListView = Type.Object({ items: Type.Array(HabitView), next: Nullable(Type.String()) })
