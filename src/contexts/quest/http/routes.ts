import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { NoContent, noContent, problemResponses } from '../../../platform/http/schemas.js'
import type { QuestApp } from '../app/quest-app.js'
import {
  CreatedQuestView, CreateQuestBody, DurationBody, JoinBody, ListQuery, NameBody, ParticipantParams, ParticipantsQuery,
  ParticipationListView, ParticipationView, QuestHabitBody, QuestHabitsView, QuestIdParams, QuestListView, QuestView, RemoveHabitBody,
  RewardBody,
} from './schemas.js'
import { participationView, questHabitsView, questLinks, questView } from './views.js'

const tags = ['quests']
const params = QuestIdParams
const reads = problemResponses(401, 404)
const changes = { 204: NoContent, ...problemResponses(400, 401, 403, 404) }

export const questRoutes: FastifyPluginAsyncTypebox<{ app: QuestApp }> = async (f, { app }) => {
  f.post('/quests', {
    schema: { tags, summary: 'Create a quest owned by an avatar the caller owns', body: CreateQuestBody,
      response: { 200: CreatedQuestView, ...problemResponses(400, 401, 403, 409) } },
  }, async (req) => {
    const quest = await app.create(req.principal, req.body)
    return { id: quest.id, _links: questLinks(quest) }
  })

  f.get('/quests', {
    schema: { tags, summary: "The caller's quests, their guild's and public ones, oldest first", querystring: ListQuery,
      response: { 200: QuestListView, ...problemResponses(400, 401, 403) } },
  }, async (req) => {
    const page = await app.list(req.principal, req.query)
    return { items: page.items.map(questView), next: page.next }
  })

  f.get('/quests/:id', { schema: { tags, params, response: { 200: QuestView, ...reads } } },
    async (req) => questView(await app.get(req.params.id)))

  f.delete('/quests/:id', {
    schema: { tags, summary: "Delete a quest (owner only); participants' copies stay as personal habits", params, response: changes },
  }, async (req, reply) => {
    await app.delete(req.principal, req.params.id)
    return noContent(reply)
  })

  f.get('/quests/:id/name', { schema: { tags, params, response: { 200: Type.Object({ name: Type.String() }), ...reads } } },
    async (req) => ({ name: (await app.get(req.params.id)).name }))
  f.patch('/quests/:id/name', { schema: { tags, params, body: NameBody, response: changes } }, async (req, reply) => {
    await app.rename(req.principal, req.params.id, req.body.name)
    return noContent(reply)
  })

  f.get('/quests/:id/duration', { schema: { tags, params, response: { 200: Type.Object({ duration: Type.String() }), ...reads } } },
    async (req) => ({ duration: (await app.get(req.params.id)).duration }))
  f.patch('/quests/:id/duration', {
    schema: { tags, summary: 'Change the duration (for participants who join from now on)', params, body: DurationBody, response: changes },
  }, async (req, reply) => {
    await app.setDuration(req.principal, req.params.id, req.body.duration)
    return noContent(reply)
  })

  f.get('/quests/:id/reward', {
    schema: { tags, params, response: { 200: Type.Object({ experience: Type.Integer(), money: Type.Integer() }), ...reads } },
  }, async (req) => (await app.get(req.params.id)).reward)
  f.patch('/quests/:id/reward', {
    schema: { tags, summary: 'Change the reward as set; what a participant is paid is capped per required completion', params, body: RewardBody, response: changes },
  }, async (req, reply) => {
    await app.setReward(req.principal, req.params.id, req.body)
    return noContent(reply)
  })

  f.get('/quests/:id/habits', { schema: { tags, params, response: { 200: QuestHabitsView, ...reads } } },
    async (req) => questHabitsView(await app.get(req.params.id)))
  f.post('/quests/:id/habits', {
    schema: { tags, summary: 'Add a habit entry; its habitId is unique in the quest (409)', params, body: QuestHabitBody,
      response: { ...changes, ...problemResponses(409) } },
  }, async (req, reply) => {
    await app.addHabit(req.principal, req.params.id, req.body)
    return noContent(reply)
  })
  f.delete('/quests/:id/habits', {
    schema: { tags, summary: 'Remove the entry matching both habitId and title (else 404)', params, body: RemoveHabitBody, response: changes },
  }, async (req, reply) => {
    await app.removeHabit(req.principal, req.params.id, req.body.habitId, req.body.title)
    return noContent(reply)
  })

  f.post('/quests/:id/participants', {
    schema: { tags, summary: "Join with an avatar the caller owns: each quest habit is copied into the avatar's habits; idempotent",
      params, body: JoinBody, response: { 200: ParticipationView, ...problemResponses(400, 401, 403, 404) } },
  }, async (req) => participationView(await app.join(req.principal, req.params.id, req.body.avatarId)))

  f.get('/quests/:id/participants', {
    schema: { tags, summary: 'Participants and their progress, in join order', params, querystring: ParticipantsQuery,
      response: { 200: ParticipationListView, ...problemResponses(400, 401, 404) } },
  }, async (req) => {
    const page = await app.participants(req.params.id, req.query)
    return { items: page.items.map(participationView), next: page.next }
  })

  f.get('/quests/:id/participants/:avatarId', {
    schema: { tags, summary: "A participant's status, window, per-habit progress and payout", params: ParticipantParams,
      response: { 200: ParticipationView, ...reads } },
  }, async (req) => participationView(await app.progress(req.params.id, req.params.avatarId)))

  f.delete('/quests/:id/participants/:avatarId', {
    schema: { tags, summary: 'Leave the quest (the caller owns the avatar); the copies stay as personal habits, unlinked',
      params: ParticipantParams, response: changes },
  }, async (req, reply) => {
    await app.leave(req.principal, req.params.id, req.params.avatarId)
    return noContent(reply)
  })
}
