/**
 * Routes other services call (the quest context, when it runs as a separate process): they
 * answer only service tokens. They back the HTTP adapter of the tracking port (client.ts).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { requireTrusted } from '../../../platform/auth/principal.js'
import { AvatarIdString, NoContent, noContent, problemResponses, StringEnum } from '../../../platform/http/schemas.js'
import type { TrackingApp } from '../app/tracking-app.js'
import { RECURRENCE_TYPES, toRecurrence } from '../domain/habit.js'
import { WEEKDAYS } from '../domain/windows.js'
import { HabitIdParams } from './schemas.js'

const tags = ['habits']
const QuestCopyBody = Type.Object({
  avatarId: AvatarIdString(),
  questId: Type.String({ minLength: 1, maxLength: 64 }),
  title: Type.String({ minLength: 1, maxLength: 200 }),
  description: Type.String({ maxLength: 2000 }),
  tags: Type.Array(Type.String({ maxLength: 40 }), { maxItems: 20 }),
  recurrence: Type.Object({
    type: StringEnum(RECURRENCE_TYPES),
    dayOfWeek: Type.Optional(Type.Union([StringEnum(WEEKDAYS), Type.Null()])),
    dayOfMonth: Type.Optional(Type.Union([Type.Integer({ minimum: 1, maximum: 31 }), Type.Null()])),
  }),
  timeZone: Type.String({ minLength: 1, maxLength: 64 }),
})
const UnlinkBody = Type.Object({
  questId: Type.String({ minLength: 1, maxLength: 64 }),
  habitIds: Type.Array(Type.String({ format: 'uuid' }), { maxItems: 1000 }),
})

export const trackingServiceRoutes: FastifyPluginAsyncTypebox<{ app: TrackingApp }> = async (f, { app }) => {
  f.put('/habits/:id', {
    schema: { tags, summary: "Copy a quest's habit into an avatar's habits under this id (services only; the same id again makes nothing new)",
      params: HabitIdParams, body: QuestCopyBody, response: { 204: NoContent, ...problemResponses(400, 401, 403, 409) } },
  }, async (req, reply) => {
    requireTrusted(req.principal, 'Only services copy quest habits.')
    const { questId, recurrence, ...copy } = req.body
    await app.copyForQuest(req.params.id, { ...copy, associatedQuestId: questId, recurrence: toRecurrence(recurrence.type, recurrence.dayOfWeek, recurrence.dayOfMonth) })
    return noContent(reply)
  })

  f.post('/habits/quest-unlinks', {
    schema: { tags, summary: 'Unlink habits from a quest; they stay as personal habits (services only)', body: UnlinkBody,
      response: { 204: NoContent, ...problemResponses(400, 401, 403) } },
  }, async (req, reply) => {
    requireTrusted(req.principal, 'Only services unlink quest habits.')
    await app.unlinkFromQuest(req.body.questId, req.body.habitIds)
    return noContent(reply)
  })
}
