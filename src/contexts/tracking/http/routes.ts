import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { NoContent, noContent, Nullable, problemResponses } from '../../../platform/http/schemas.js'
import { LinksSchema } from '../../../platform/http/links.js'
import type { HabitCommands } from '../app/habit-commands.js'
import type { HabitQueries } from '../app/habit-queries.js'
import { toRecurrence } from '../domain/habit-fields.js'
import {
  ArchivedBody, AttendBody, CreatedHabitView, CreateHabitBody, DescriptionBody, HabitIdParams, HabitListView, HabitView, ListQuery,
  RecurrenceBody, RecurrenceView, ReminderTime, ReminderTimeBody, RestDaysBody, TagsBody, TitleBody, WindowsQuery, WindowsView,
} from './schemas.js'
import { habitLinks, habitView, recurrenceView } from './views.js'
import { HABIT_PRIVATE, ownedAvatarIn } from './docs.js'
import {
  ATTEND_FUTURE_TOLERANCE_HOURS, DESCRIPTION_MAX, LIST_DEFAULT_LIMIT, LIST_MAX_LIMIT, REWARD_BASE_EXPERIENCE, REWARD_MONEY, REWARD_STREAK_BONUS_CAP,
  TAG_MAX, TAGS_MAX, TITLE_MAX, WINDOWS_VIEW_DEFAULT_DAYS, WINDOWS_VIEW_FIRST_DAY, WINDOWS_VIEW_LAST_DAY, WINDOWS_VIEW_MAX,
} from '../domain/rules.js'

const tags = ['habits']
const params = HabitIdParams
const reads = problemResponses(401, 403, 404)
const changes = { 204: NoContent, ...problemResponses(400, 401, 403, 404) }
/** The document entry of a read of one field of a habit. */
const fieldRead = (operationId: string, summary: string, rule = '') => ({ operationId, summary, description: `${rule}${HABIT_PRIVATE}` })
const TITLE_RULE = `The title is trimmed: 1–${TITLE_MAX} characters, not blank (400 \`validation\` otherwise). `
const TAGS_RULE = `At most ${TAGS_MAX} tags of 1–${TAG_MAX} characters, not blank, trimmed and de-duplicated: 400 \`validation\` otherwise. `
const RECURRENCE_RULE = 'WEEKLY needs `dayOfWeek`, MONTHLY `dayOfMonth`, TIMES_PER_WEEK `timesPerWeek`, EVERY_N_DAYS `everyNDays`; ' +
  "another type's field must be null or absent: 400 `validation` otherwise, naming the field. "
const REST_DAYS_RULE = 'Rest days are weekdays of a DAILY habit, never all seven: 400 `invalid-rest-days` otherwise. '
const ARCHIVED_RULE = 'An archived habit keeps its history (windows, stats, completions) and is neither completed (400 `habit-archived`), ' +
  'judged, reminded of nor in the calendar feed. The windows that start while it is archived are not due, the one under way when it ' +
  'is brought back included; the one under way when it is archived stays due, and is judged once it has ended and the habit is back. '
const REMINDER_RULE = 'A reminder time is HH:mm (00:00–23:59, 400 `invalid-reminder-time` otherwise); each window not completed by ' +
  "then reminds once, in the avatar's inbox (`HabitReminderDue`). "

export const habitRoutes: FastifyPluginAsyncTypebox<{ commands: HabitCommands; queries: HabitQueries }> = async (f, { commands, queries }) => {
  f.post('/habits', {
    schema: {
      tags,
      operationId: 'createHabit',
      summary: 'Create a habit for an avatar the caller owns',
      description: `${ownedAvatarIn('avatarId')} Its first window is the one holding today (it never penalises); \`HabitCreated\` ` +
        `tells it. ${TITLE_RULE}${TAGS_RULE}${RECURRENCE_RULE}${REST_DAYS_RULE}${REMINDER_RULE}` +
        'An own `timeZone` must be an IANA zone: 400 `invalid-time-zone`.',
      body: CreateHabitBody,
      response: { 200: CreatedHabitView, ...problemResponses(400, 401, 403) },
    },
  }, async (req) => {
    const { recurrenceType, dayOfWeek, dayOfMonth, timesPerWeek, everyNDays, ...rest } = req.body
    const habit = await commands.create(req.principal, { ...rest, recurrence: toRecurrence(recurrenceType, { dayOfWeek, dayOfMonth, timesPerWeek, everyNDays }) })
    return { id: habit.id, _links: habitLinks(habit.id, habit.avatarId) }
  })

  f.get('/habits', {
    schema: {
      tags,
      operationId: 'listHabits',
      summary: "List an avatar's habits (its owner only), oldest first",
      description: `${ownedAvatarIn('avatarId')} A page holds \`limit\` habits (default ${LIST_DEFAULT_LIMIT}, at most ` +
        `${LIST_MAX_LIMIT}); \`next\` is the cursor of the page after, null on the last. A cursor that names no habit of the ` +
        'list is 400 `invalid-cursor`. Archived habits are listed too (`archived: true`); `archived` keeps only those archived or not.',
      querystring: ListQuery,
      response: { 200: HabitListView, ...problemResponses(400, 401, 403) },
    },
  }, async (req) => {
    const page = await queries.listOfAvatar(req.principal, req.query.avatarId, req.query)
    return { items: page.items.map(habitView), next: page.next }
  })

  f.get('/habits/:id', {
    schema: {
      tags, ...fieldRead('getHabit', 'Get a habit', 'Its schedule, streaks, reminder and next recurrence date. '),
      params, response: { 200: HabitView, ...reads },
    },
  }, async (req) => habitView(await queries.get(req.principal, req.params.id)))

  f.delete('/habits/:id', {
    schema: {
      tags, operationId: 'deleteHabit', summary: 'Delete a habit permanently',
      description: `Its whole history goes with it; \`HabitDeleted\` tells it. ${HABIT_PRIVATE}`,
      params, response: changes,
    },
  }, async (req, reply) => {
    await commands.delete(req.principal, req.params.id)
    return noContent(reply)
  })

  f.get('/habits/:id/title', {
    schema: { tags, ...fieldRead('getHabitTitle', "Get a habit's title"), params, response: { 200: Type.Object({ title: Type.String() }), ...reads } },
  }, async (req) => ({ title: (await queries.get(req.principal, req.params.id)).habit.title }))
  f.patch('/habits/:id/title', {
    schema: {
      tags, operationId: 'updateHabitTitle', summary: "Change a habit's title", description: `${TITLE_RULE}${HABIT_PRIVATE}`,
      params, body: TitleBody, response: changes,
    },
  }, async (req, reply) => {
    await commands.rename(req.principal, req.params.id, req.body.title)
    return noContent(reply)
  })

  f.get('/habits/:id/description', {
    schema: {
      tags, ...fieldRead('getHabitDescription', "Get a habit's description"),
      params, response: { 200: Type.Object({ description: Type.String() }), ...reads },
    },
  }, async (req) => ({ description: (await queries.get(req.principal, req.params.id)).habit.description }))
  f.patch('/habits/:id/description', {
    schema: {
      tags, operationId: 'updateHabitDescription', summary: "Change a habit's description",
      description: `At most ${DESCRIPTION_MAX} characters (400 \`validation\` otherwise). ${HABIT_PRIVATE}`,
      params, body: DescriptionBody, response: changes,
    },
  }, async (req, reply) => {
    await commands.describe(req.principal, req.params.id, req.body.description)
    return noContent(reply)
  })

  f.get('/habits/:id/tags', {
    schema: {
      tags, ...fieldRead('getHabitTags', "Get a habit's tags"),
      params, response: { 200: Type.Object({ tags: Type.Array(Type.String()) }), ...reads },
    },
  }, async (req) => ({ tags: (await queries.get(req.principal, req.params.id)).habit.tags }))
  f.patch('/habits/:id/tags', {
    schema: {
      tags, operationId: 'updateHabitTags', summary: "Replace a habit's tags", description: `${TAGS_RULE}${HABIT_PRIVATE}`,
      params, body: TagsBody, response: changes,
    },
  }, async (req, reply) => {
    await commands.retag(req.principal, req.params.id, req.body.tags)
    return noContent(reply)
  })

  f.get('/habits/:id/recurrence', {
    schema: { tags, ...fieldRead('getHabitRecurrence', "Get a habit's recurrence"), params, response: { 200: RecurrenceView, ...reads } },
  }, async (req) => recurrenceView((await queries.get(req.principal, req.params.id)).habit.recurrence))
  f.patch('/habits/:id/recurrence', {
    schema: {
      tags,
      operationId: 'updateHabitRecurrence',
      summary: 'Change the recurrence; windows start afresh from today',
      description: 'The windows of the old schedule that have ended are judged first, so a change never skips a missed one; ' +
        `reminders move with the new windows, and rest days stay only on a DAILY habit. ${RECURRENCE_RULE}${HABIT_PRIVATE}`,
      params, body: RecurrenceBody, response: changes,
    },
  }, async (req, reply) => {
    await commands.reschedule(req.principal, req.params.id, toRecurrence(req.body.type, req.body))
    return noContent(reply)
  })

  f.get('/habits/:id/rest-days', {
    schema: {
      tags, ...fieldRead('getHabitRestDays', "Get a DAILY habit's rest days"),
      params, response: { 200: Type.Object({ restDays: Type.Array(Type.String()) }), ...reads },
    },
  }, async (req) => ({ restDays: (await queries.get(req.principal, req.params.id)).habit.restDays }))
  f.patch('/habits/:id/rest-days', {
    schema: {
      tags,
      operationId: 'updateHabitRestDays',
      summary: "Set a DAILY habit's rest days (null or [] for none)",
      description: "They govern the windows from tomorrow on; a rest day's window is not due (no penalty, the streak carries over). " +
        `${REST_DAYS_RULE}${HABIT_PRIVATE}`,
      params, body: RestDaysBody, response: changes,
    },
  }, async (req, reply) => {
    await commands.setRestDays(req.principal, req.params.id, req.body.restDays)
    return noContent(reply)
  })

  f.get('/habits/:id/windows', {
    schema: {
      tags,
      operationId: 'listHabitWindows',
      summary: "List a habit's windows over a span of days, with what became of each",
      description: "The habit's windows over a span of days, with what became of each (completed, missed, frozen, not due, open). " +
        `The days [\`from\`, \`to\`) default to the last ${WINDOWS_VIEW_DEFAULT_DAYS} days up to today; at most ${WINDOWS_VIEW_MAX} ` +
        'windows are shown. Refused with 400 `validation` (or `invalid-date`) for a day that is not a date YYYY-MM-DD or lies outside ' +
        `[${WINDOWS_VIEW_FIRST_DAY}, ${WINDOWS_VIEW_LAST_DAY}], and 400 \`invalid-span\` when \`to\` is ` +
        `not after \`from\`. ${HABIT_PRIVATE}`,
      params, querystring: WindowsQuery, response: { 200: WindowsView, ...problemResponses(400, 401, 403, 404) },
    },
  }, async (req) => ({ items: await queries.windows(req.principal, req.params.id, req.query) }))

  f.get('/habits/:id/reminder-time', {
    schema: {
      tags, ...fieldRead('getHabitReminderTime', "Get a habit's reminder time (null: none)"),
      params, response: { 200: Type.Object({ reminderTime: ReminderTime }), ...reads },
    },
  }, async (req) => ({ reminderTime: (await queries.get(req.principal, req.params.id)).habit.reminderTime }))
  f.patch('/habits/:id/reminder-time', {
    schema: {
      tags,
      operationId: 'updateHabitReminderTime',
      summary: 'Set the reminder time (HH:mm, local), or null for none',
      description: `It first reminds at its next time from now. ${REMINDER_RULE}${HABIT_PRIVATE}`,
      params, body: ReminderTimeBody, response: changes,
    },
  }, async (req, reply) => {
    await commands.setReminderTime(req.principal, req.params.id, req.body.reminderTime)
    return noContent(reply)
  })

  f.get('/habits/:id/archived', {
    schema: {
      tags, ...fieldRead('getHabitArchived', 'Whether a habit is archived'),
      params, response: { 200: Type.Object({ archived: Type.Boolean() }), ...reads },
    },
  }, async (req) => ({ archived: (await queries.get(req.principal, req.params.id)).habit.archived }))
  f.patch('/habits/:id/archived', {
    schema: {
      tags,
      operationId: 'updateHabitArchived',
      summary: 'Archive a habit, or bring it back; answers the habit',
      description: `${ARCHIVED_RULE}Archiving first judges the windows that have ended, as the missed-window job would ` +
        '(`HabitMissed` for each one missed); no event of its own tells it, as for the other fields. Asking for what the habit is ' +
        `already changes nothing. ${HABIT_PRIVATE}`,
      params, body: ArchivedBody, response: { 200: HabitView, ...problemResponses(400, 401, 403, 404) },
    },
  }, async (req) => {
    await commands.setArchived(req.principal, req.params.id, req.body.archived)
    return habitView(await queries.get(req.principal, req.params.id))
  })

  f.get('/habits/:id/last-attended-date', {
    schema: {
      tags, ...fieldRead('getHabitLastAttendedDate', "Get a habit's latest completion (null: never)"),
      params, response: { 200: Type.Object({ date: Nullable(Type.String()) }), ...reads },
    },
  }, async (req) => ({ date: (await queries.get(req.principal, req.params.id)).habit.lastAttendedAt }))

  f.get('/habits/:id/history', {
    schema: {
      tags,
      ...fieldRead('getHabitHistory', 'Every completion, oldest first (what became of each window: …/windows)'),
      params,
      response: { 200: Type.Object({ history: Type.Array(Type.Object({ date: Type.String() })), _links: Type.Optional(LinksSchema) }), ...reads },
    },
  }, async (req) => ({ history: (await queries.completionHistory(req.principal, req.params.id)).map((date) => ({ date })) }))

  f.post('/habits/:id/attend', {
    schema: {
      tags,
      operationId: 'attendHabit',
      summary: 'Complete the window holding `date`; the avatar is rewarded by event',
      description: '`date` is a local date-time with no offset (400 `validation` otherwise, `invalid-date` for a day the calendar lacks). Refused with 400 `attend-in-future` ' +
        `more than ${ATTEND_FUTURE_TOLERANCE_HOURS} hours ahead, 400 \`before-first-window\`, 400 \`window-already-completed\`, and ` +
        'for a TIMES_PER_WEEK habit 400 `day-already-completed` (one completion a day); an archived habit is 400 `habit-archived`. ' +
        '`HabitAttended` pays the avatar ' +
        `(experience ${REWARD_BASE_EXPERIENCE} + min(streak − 1, ${REWARD_STREAK_BONUS_CAP}), money ${REWARD_MONEY}; a streak may ` +
        `earn a streak freeze), gives its guild, if any, a point and counts toward its quest, if linked. ${HABIT_PRIVATE}`,
      params, body: AttendBody, response: changes,
    },
  }, async (req, reply) => {
    await commands.attend(req.principal, req.params.id, req.body.date)
    return noContent(reply)
  })
}
