/**
 * Routes other services call (the quest context, when it runs as a separate process): they
 * answer only service tokens. They back the HTTP adapter of the tracking port (client.ts).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { requireTrusted } from '../../../platform/auth/principal.js'
import { AvatarIdString, NoContent, noContent, problemResponses } from '../../../platform/http/schemas.js'
import type { HabitCommands } from '../app/habit-commands.js'
import { copyRecurrence, toRecurrence } from '../domain/habit-fields.js'
import { UNLINK_MAX_HABITS } from '../domain/rules.js'
import { SERVICES_ONLY } from './docs.js'
import { Description, HabitIdParams, RecurrenceBody, Tags, Title } from './schemas.js'

const tags = ['service']
/** A quest id as the quest context names it. */
const QuestId = Type.String({ format: 'uuid' })
/** The habit fields as a player's create takes them (the same limits), for a copy. */
const QuestCopyBody = Type.Object({
  avatarId: AvatarIdString(),
  questId: QuestId,
  title: Title,
  description: Description,
  tags: Tags,
  recurrence: RecurrenceBody,
  timeZone: Type.String({ minLength: 1, maxLength: 64 }),
  startsOn: Type.Optional(Type.String({
    format: 'date', description: "Local date the caller counts the copy's windows from (an EVERY_N_DAYS copy's N-day steps start on it); absent: the day it is made",
  })),
}, {
  examples: [{
    avatarId: 'grace-mage', questId: 'c1a9e7d3-5b2f-4a6e-8d0c-3f9b1e7a5c24', title: 'Evening stretch', description: '10 minutes of stretching before bed',
    tags: ['fitness'], recurrence: { type: 'TIMES_PER_WEEK', timesPerWeek: 3 }, timeZone: 'Europe/London', startsOn: '2026-03-02',
  }],
})
const UnlinkBody = Type.Object({
  questId: QuestId,
  habitIds: Type.Array(Type.String({ format: 'uuid' }), { maxItems: UNLINK_MAX_HABITS }),
}, { examples: [{ questId: 'c1a9e7d3-5b2f-4a6e-8d0c-3f9b1e7a5c24', habitIds: ['e2b4d6f8-1a3c-4e5a-9b7d-2c4e6f8a0b13', 'f3c5e7a9-2b4d-4f6b-8c0e-3d5f7a9b1c24'] }] })

export const trackingServiceRoutes: FastifyPluginAsyncTypebox<{ commands: HabitCommands }> = async (f, { commands }) => {
  f.put('/habits/:id', {
    schema: {
      tags,
      operationId: 'serviceCopyQuestHabit',
      summary: "Copy a quest's habit into an avatar's habits under this id",
      description: 'The quest context calls it when an avatar joins a quest. The id is the idempotency key: the same id again makes ' +
        'nothing new; 409 `habit-id-taken` when it is a habit of another avatar. 400 `unknown-avatar` when `avatarId` names none, ' +
        `and the habit's fields are refused as a player's create refuses them. A new habit is told by \`HabitCreated\`. ${SERVICES_ONLY}`,
      params: HabitIdParams, body: QuestCopyBody, response: { 204: NoContent, ...problemResponses(400, 401, 403, 409) },
    },
  }, async (req, reply) => {
    requireTrusted(req.principal, 'Only services copy quest habits.')
    const { questId, recurrence, startsOn, ...copy } = req.body
    await commands.copyForQuest(req.params.id, {
      ...copy, associatedQuestId: questId, recurrence: copyRecurrence(toRecurrence(recurrence.type, recurrence, '/recurrence'), startsOn),
    })
    return noContent(reply)
  })

  f.post('/habits/quest-unlinks', {
    schema: {
      tags,
      operationId: 'serviceUnlinkQuestHabits',
      summary: 'Unlink habits from a quest; they stay as personal habits',
      description: `The quest context calls it when a participant leaves or the quest is deleted. Habits not linked to that quest are left as they are; ` +
        `at most ${UNLINK_MAX_HABITS} ids a call. ${SERVICES_ONLY}`,
      body: UnlinkBody, response: { 204: NoContent, ...problemResponses(400, 401, 403) },
    },
  }, async (req, reply) => {
    requireTrusted(req.principal, 'Only services unlink quest habits.')
    await commands.unlinkFromQuest(req.body.questId, req.body.habitIds)
    return noContent(reply)
  })
}
