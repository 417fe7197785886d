import { Type } from 'typebox'
import { LinksSchema } from '../../../platform/http/links.js'
import { AvatarIdString, Nullable, StringEnum } from '../../../platform/http/schemas.js'
import { RECURRENCE_TYPES, WEEKDAYS } from '../../../platform/time/index.js'
import {
  DAY_OF_MONTH_MAX, DAY_OF_MONTH_MIN, DESCRIPTION_MAX, LIST_DEFAULT_LIMIT, LIST_MAX_LIMIT, REMINDER_TIME_PATTERN, TAGS_MAX, TAG_MAX, TITLE_MAX,
} from '../domain/rules.js'

export const HabitIdParams = Type.Object({ id: Type.String({ format: 'uuid' }) })

export const Title = Type.String({ minLength: 1, maxLength: TITLE_MAX, pattern: '\\S' })
export const Description = Type.String({ maxLength: DESCRIPTION_MAX })
export const Tags = Type.Array(Type.String({ maxLength: TAG_MAX }), { maxItems: TAGS_MAX, description: 'Trimmed and de-duplicated; 1–40 characters each' })
const RecurrenceType = StringEnum(RECURRENCE_TYPES)
const DayOfWeek = Nullable(StringEnum(WEEKDAYS))
export const ReminderTime = Nullable(Type.String({
  pattern: REMINDER_TIME_PATTERN,
  description: 'HH:mm (00:00–23:59) in the habit\'s time zone: a reminder at that time on the last day of each window not yet completed; null: none',
}))
const DayOfMonth = Nullable(Type.Integer({ minimum: DAY_OF_MONTH_MIN, maximum: DAY_OF_MONTH_MAX, description: '31 means the last day of shorter months' }))

export const CreateHabitBody = Type.Object({
  avatarId: AvatarIdString(),
  title: Title,
  description: Type.Optional(Description),
  tags: Type.Optional(Tags),
  recurrenceType: RecurrenceType,
  dayOfWeek: Type.Optional(DayOfWeek),
  dayOfMonth: Type.Optional(DayOfMonth),
  timeZone: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'IANA zone the windows are counted in (default UTC)' })),
  reminderTime: Type.Optional(ReminderTime),
})

export const TitleBody = Type.Object({ title: Title })
export const DescriptionBody = Type.Object({ description: Description })
export const TagsBody = Type.Object({ tags: Tags })
export const ReminderTimeBody = Type.Object({ reminderTime: ReminderTime })
export const RecurrenceBody = Type.Object({ type: RecurrenceType, dayOfWeek: Type.Optional(DayOfWeek), dayOfMonth: Type.Optional(DayOfMonth) })
export const AttendBody = Type.Object({
  date: Type.String({ minLength: 1, maxLength: 40, description: 'Local date-time YYYY-MM-DDTHH:mm:ss[.SSS], no offset' }),
})

export const ListQuery = Type.Object({
  avatarId: AvatarIdString(),
  limit: Type.Integer({ minimum: 1, maximum: LIST_MAX_LIMIT, default: LIST_DEFAULT_LIMIT }),
  cursor: Type.Optional(Type.String({ format: 'uuid' })),
})

export const RecurrenceView = Type.Object({ type: RecurrenceType, dayOfMonth: Nullable(Type.Integer()), dayOfWeek: DayOfWeek })

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
  timeZone: Type.String(),
  reminderTime: ReminderTime,
  _links: LinksSchema,
})

export const CreatedHabitView = Type.Object({ id: Type.String(), _links: LinksSchema })
export const HabitListView = Type.Object({ items: Type.Array(HabitView), next: Nullable(Type.String()) })
