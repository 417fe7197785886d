/**
 * The fields a player chooses for a habit, as a command sends them: its schedule, rest days, tags,
 * own time zone, and a habit described elsewhere (a quest's entry). Each is checked (400 naming
 * the field) and normalised.
 */
import { BadRequest } from '../../../platform/errors.js'
import { WEEKDAYS, anchoredAt, isValidTimeZone, type LocalDate, type Recurrence, type RecurrenceType, type Weekday } from '../../../platform/time/index.js'
import { InvalidRecurrence, InvalidTimeZone } from './errors.js'
import {
  DAY_OF_MONTH_MAX, DAY_OF_MONTH_MIN, DESCRIPTION_MAX, EVERY_N_DAYS_MAX, EVERY_N_DAYS_MIN, TAGS_MAX, TAG_MAX, TIMES_PER_WEEK_MAX, TIMES_PER_WEEK_MIN, TITLE_MAX,
} from './rules.js'
import { BEGINNING } from './settings.js'

/** The schedule fields as a command sends them; those that do not belong to the type must be null or absent. */
export interface ScheduleFields {
  dayOfWeek?: string | null | undefined
  dayOfMonth?: number | null | undefined
  timesPerWeek?: number | null | undefined
  everyNDays?: number | null | undefined
}

/** The schedule field each recurrence type takes (DAILY takes none). */
export const FIELD_OF: Record<RecurrenceType, keyof ScheduleFields | null> = {
  DAILY: null, WEEKLY: 'dayOfWeek', MONTHLY: 'dayOfMonth', TIMES_PER_WEEK: 'timesPerWeek', EVERY_N_DAYS: 'everyNDays',
}

const inRange = (n: unknown, min: number, max: number): n is number => typeof n === 'number' && Number.isInteger(n) && n >= min && n <= max

/**
 * The recurrence the fields describe; the fields that do not belong must be null or absent. `at`
 * is where they sit in the command (`/recurrence`; top level by default). An EVERY_N_DAYS
 * recurrence is anchored at the habit's first day when the habit is made (`anchoredAt`).
 */
export function toRecurrence(type: RecurrenceType, fields: ScheduleFields, at = ''): Recurrence {
  const own = FIELD_OF[type]
  for (const name of Object.values(FIELD_OF)) {
    if (name === null || name === own || (fields[name] ?? null) === null) continue
    const takes = own === null ? 'no schedule field' : own
    throw new InvalidRecurrence(`A ${type} habit takes ${takes}, not ${name}.`, `${at}/${name}`, `must be null or absent for a ${type} habit`)
  }
  const value = own === null ? null : fields[own] ?? null
  switch (type) {
    case 'DAILY': return { type }
    case 'WEEKLY':
      if (typeof value !== 'string' || !(WEEKDAYS as readonly string[]).includes(value)) {
        throw new InvalidRecurrence(`A WEEKLY habit needs dayOfWeek, one of ${WEEKDAYS.join(', ')}.`, `${at}/dayOfWeek`, `must be one of ${WEEKDAYS.join(', ')}`)
      }
      return { type, dayOfWeek: value as Weekday }
    case 'MONTHLY':
      if (!inRange(value, DAY_OF_MONTH_MIN, DAY_OF_MONTH_MAX)) {
        throw new InvalidRecurrence(`A MONTHLY habit needs dayOfMonth from ${DAY_OF_MONTH_MIN} to ${DAY_OF_MONTH_MAX}.`, `${at}/dayOfMonth`,
          `must be from ${DAY_OF_MONTH_MIN} to ${DAY_OF_MONTH_MAX}`)
      }
      return { type, dayOfMonth: value }
    case 'TIMES_PER_WEEK':
      if (!inRange(value, TIMES_PER_WEEK_MIN, TIMES_PER_WEEK_MAX)) {
        throw new InvalidRecurrence(`A TIMES_PER_WEEK habit needs timesPerWeek from ${TIMES_PER_WEEK_MIN} to ${TIMES_PER_WEEK_MAX}.`, `${at}/timesPerWeek`,
          `must be from ${TIMES_PER_WEEK_MIN} to ${TIMES_PER_WEEK_MAX}`)
      }
      return { type, timesPerWeek: value }
    case 'EVERY_N_DAYS':
      if (!inRange(value, EVERY_N_DAYS_MIN, EVERY_N_DAYS_MAX)) {
        throw new InvalidRecurrence(`An EVERY_N_DAYS habit needs everyNDays from ${EVERY_N_DAYS_MIN} to ${EVERY_N_DAYS_MAX}.`, `${at}/everyNDays`,
          `must be from ${EVERY_N_DAYS_MIN} to ${EVERY_N_DAYS_MAX}`)
      }
      return { type, everyNDays: value, anchor: BEGINNING }
  }
}

/** Rest days as a command sends them: de-duplicated weekdays, only for a DAILY habit, never all seven. */
export function restDaysOf(type: RecurrenceType, restDays: readonly string[] | null | undefined, at = '/restDays'): Weekday[] {
  const days = [...new Set(restDays ?? [])]
  const bad = days.findIndex((d) => !(WEEKDAYS as readonly string[]).includes(d))
  if (bad >= 0) throw new BadRequest(`Rest days are weekdays: ${WEEKDAYS.join(', ')}.`, 'invalid-rest-days', [{ path: `${at}/${bad}`, message: `must be one of ${WEEKDAYS.join(', ')}` }])
  if (days.length > 0 && type !== 'DAILY') throw new BadRequest(`Only a DAILY habit has rest days; a ${type} habit takes none.`, 'invalid-rest-days', [{ path: at, message: `must be empty, null or absent for a ${type} habit` }])
  if (days.length === WEEKDAYS.length) throw new BadRequest('A habit resting every day of the week is never due.', 'invalid-rest-days', [{ path: at, message: 'must leave at least one weekday' }])
  return WEEKDAYS.filter((d) => days.includes(d))
}

/** Tags are trimmed and de-duplicated; each 1–40 characters, at most 20. `at` is where they sit in the command. */
export function normalizeTags(tags: string[], at = '/tags'): string[] {
  const bad = tags.findIndex((t) => t.trim().length === 0 || t.trim().length > TAG_MAX)
  if (bad >= 0) throw new BadRequest(`Each tag must be 1–${TAG_MAX} characters.`, 'invalid-tags', [{ path: `${at}/${bad}`, message: `must be 1–${TAG_MAX} characters after trimming` }])
  const out = [...new Set(tags.map((t) => t.trim()))]
  if (out.length > TAGS_MAX) throw new BadRequest(`A habit has at most ${TAGS_MAX} tags.`, 'invalid-tags', [{ path: at, message: `must hold at most ${TAGS_MAX} different tags` }])
  return out
}

/** What a habit is made from elsewhere (a quest's habit entry): the fields a player chooses. */
export interface HabitTemplate {
  title: string
  description: string
  tags: string[]
  recurrence: Recurrence
}

/**
 * Checks a habit described outside tracking by the rules a habit's own fields follow, and
 * normalises it (title trimmed, tags trimmed and de-duplicated), so a copy made from it later
 * cannot be refused.
 */
export function habitTemplate(t: {
  title: string
  description?: string | undefined
  tags?: string[] | undefined
  recurrence: { type: RecurrenceType } & ScheduleFields
}, at = ''): HabitTemplate {
  const title = t.title.trim()
  if (title.length === 0 || title.length > TITLE_MAX) {
    throw new BadRequest(`A title is 1–${TITLE_MAX} characters, not blank.`, 'invalid-title', [{ path: `${at}/title`, message: `must be 1–${TITLE_MAX} characters after trimming` }])
  }
  const description = t.description ?? ''
  if (description.length > DESCRIPTION_MAX) {
    throw new BadRequest(`A description is at most ${DESCRIPTION_MAX} characters.`, 'invalid-description', [{ path: `${at}/description`, message: `must be at most ${DESCRIPTION_MAX} characters` }])
  }
  const tags = normalizeTags(t.tags ?? [], `${at}/tags`)
  return { title, description, tags, recurrence: toRecurrence(t.recurrence.type, t.recurrence, `${at}/recurrence`) }
}

/** A habit's own zone as asked for: absent means it follows its avatar's. */
export function ownTimeZoneOf(asked: string | null | undefined): string | null {
  if (asked === undefined || asked === null) return null
  if (!isValidTimeZone(asked)) throw new InvalidTimeZone(asked)
  return asked
}

/** A copy's recurrence, its windows counted from `startsOn` (EVERY_N_DAYS; the others have no anchor); absent: from the day it is made. */
export const copyRecurrence = (recurrence: Recurrence, startsOn: LocalDate | undefined): Recurrence =>
  (startsOn === undefined ? recurrence : anchoredAt(recurrence, startsOn))
