import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { NoContent, noContent, Nullable, problemResponses } from '../../../platform/http/schemas.js'
import { LinksSchema } from '../../../platform/http/links.js'
import type { TrackingApp } from '../app/tracking-app.js'
import { toRecurrence } from '../domain/habit.js'
import {
  AttendBody, CreatedHabitView, CreateHabitBody, DescriptionBody, HabitIdParams, HabitListView, HabitView, ListQuery,
  RecurrenceBody, RecurrenceView, ReminderTime, ReminderTimeBody, RestDaysBody, TagsBody, TitleBody, WindowsQuery, WindowsView,
} from './schemas.js'
import { habitLinks, habitView, recurrenceView } from './views.js'

const tags = ['habits']
const params = HabitIdParams
const reads = problemResponses(401, 403, 404)
const changes = { 204: NoContent, ...problemResponses(400, 401, 403, 404) }

export const habitRoutes: FastifyPluginAsyncTypebox<{ app: TrackingApp }> = async (f, { app }) => {
  f.post('/habits', {
    schema: { tags, summary: 'Create a habit for an avatar the caller owns', body: CreateHabitBody,
      response: { 200: CreatedHabitView, ...problemResponses(400, 401, 403) } },
  }, async (req) => {
    const { recurrenceType, dayOfWeek, dayOfMonth, timesPerWeek, everyNDays, ...rest } = req.body
    const { habit } = await app.create(req.principal, { ...rest, recurrence: toRecurrence(recurrenceType, { dayOfWeek, dayOfMonth, timesPerWeek, everyNDays }) })
    return { id: habit.id, _links: habitLinks(habit.id, habit.avatarId) }
  })

  f.get('/habits', {
    schema: { tags, summary: "List an avatar's habits (its owner only), oldest first", querystring: ListQuery,
      response: { 200: HabitListView, ...problemResponses(400, 401, 403) } },
  }, async (req) => {
    const page = await app.listOfAvatar(req.principal, req.query.avatarId, req.query)
    return { items: page.items.map(habitView), next: page.next }
  })

  f.get('/habits/:id', { schema: { tags, params, response: { 200: HabitView, ...reads } } },
    async (req) => habitView(await app.get(req.principal, req.params.id)))

  f.delete('/habits/:id', { schema: { tags, summary: 'Delete a habit permanently', params, response: changes } },
    async (req, reply) => {
      await app.delete(req.principal, req.params.id)
      return noContent(reply)
    })

  f.get('/habits/:id/title', { schema: { tags, params, response: { 200: Type.Object({ title: Type.String() }), ...reads } } },
    async (req) => ({ title: (await app.get(req.principal, req.params.id)).habit.title }))
  f.patch('/habits/:id/title', { schema: { tags, params, body: TitleBody, response: changes } }, async (req, reply) => {
    await app.rename(req.principal, req.params.id, req.body.title)
    return noContent(reply)
  })

  f.get('/habits/:id/description', { schema: { tags, params, response: { 200: Type.Object({ description: Type.String() }), ...reads } } },
    async (req) => ({ description: (await app.get(req.principal, req.params.id)).habit.description }))
  f.patch('/habits/:id/description', { schema: { tags, params, body: DescriptionBody, response: changes } }, async (req, reply) => {
    await app.describe(req.principal, req.params.id, req.body.description)
    return noContent(reply)
  })

  f.get('/habits/:id/tags', { schema: { tags, params, response: { 200: Type.Object({ tags: Type.Array(Type.String()) }), ...reads } } },
    async (req) => ({ tags: (await app.get(req.principal, req.params.id)).habit.tags }))
  f.patch('/habits/:id/tags', { schema: { tags, params, body: TagsBody, response: changes } }, async (req, reply) => {
    await app.retag(req.principal, req.params.id, req.body.tags)
    return noContent(reply)
  })

  f.get('/habits/:id/recurrence', { schema: { tags, params, response: { 200: RecurrenceView, ...reads } } },
    async (req) => recurrenceView((await app.get(req.principal, req.params.id)).habit.recurrence))
  f.patch('/habits/:id/recurrence', {
    schema: { tags, summary: 'Change the recurrence; windows start afresh from today', params, body: RecurrenceBody, response: changes },
  }, async (req, reply) => {
    await app.reschedule(req.principal, req.params.id, toRecurrence(req.body.type, req.body))
    return noContent(reply)
  })

  f.get('/habits/:id/rest-days', { schema: { tags, params, response: { 200: Type.Object({ restDays: Type.Array(Type.String()) }), ...reads } } },
    async (req) => ({ restDays: (await app.get(req.principal, req.params.id)).habit.restDays }))
  f.patch('/habits/:id/rest-days', {
    schema: { tags, summary: "Set a DAILY habit's rest days (null or [] for none); they govern the windows from tomorrow on", params, body: RestDaysBody, response: changes },
  }, async (req, reply) => {
    await app.setRestDays(req.principal, req.params.id, req.body.restDays)
    return noContent(reply)
  })

  f.get('/habits/:id/windows', {
    schema: { tags, summary: "The habit's windows over a span of days, with what became of each (completed, missed, frozen, not due, open)",
      params, querystring: WindowsQuery, response: { 200: WindowsView, ...problemResponses(400, 401, 403, 404) } },
  }, async (req) => ({ items: await app.windows(req.principal, req.params.id, req.query) }))

  f.get('/habits/:id/reminder-time', { schema: { tags, params, response: { 200: Type.Object({ reminderTime: ReminderTime }), ...reads } } },
    async (req) => ({ reminderTime: (await app.get(req.principal, req.params.id)).habit.reminderTime }))
  f.patch('/habits/:id/reminder-time', {
    schema: { tags, summary: 'Set the reminder time (HH:mm, local), or null for none; it first reminds at its next time from now', params, body: ReminderTimeBody, response: changes },
  }, async (req, reply) => {
    await app.setReminderTime(req.principal, req.params.id, req.body.reminderTime)
    return noContent(reply)
  })

  f.get('/habits/:id/last-attended-date', {
    schema: { tags, params, response: { 200: Type.Object({ date: Nullable(Type.String()) }), ...reads } },
  }, async (req) => ({ date: (await app.get(req.principal, req.params.id)).habit.lastAttendedAt }))

  f.get('/habits/:id/history', {
    schema: { tags, summary: 'Every completion, oldest first (what became of each window: …/windows)', params,
      response: { 200: Type.Object({ history: Type.Array(Type.Object({ date: Type.String() })), _links: Type.Optional(LinksSchema) }), ...reads } },
  }, async (req) => ({ history: (await app.completionHistory(req.principal, req.params.id)).map((date) => ({ date })) }))

  f.post('/habits/:id/attend', {
    schema: { tags, summary: 'Complete the window holding `date`; the reward reaches the avatar by event', params, body: AttendBody, response: changes },
  }, async (req, reply) => {
    await app.attend(req.principal, req.params.id, req.body.date)
    return noContent(reply)
  })
}
