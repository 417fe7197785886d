import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { NoContent, noContent, problemResponses } from '../../../platform/http/schemas.js'
import type { QuestApp } from '../app/quest-app.js'
import {
  DEFAULT_DURATION, DEFAULT_REWARD, DURATION_MAX_DAYS, PAYOUT_CEILING_PER_COMPLETION, QUEST_HABITS_MAX,
} from '../domain/rules.js'
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

// The rules the descriptions state, each shared by the routes it applies to.
const READ = 'Any signed-in player may read any quest. Refused with 404 `not-found` for an unknown quest.'
const OWNER_ONLY = 'Only the quest\'s owner (the player owning its `ownerAvatarId`) may change it: 403 `not-owner` for anyone else, ' +
  '404 `not-found` for an unknown quest.'
const DURATION_RULE = `A duration is ISO 8601, positive, in whole seconds and at most ${DURATION_MAX_DAYS} days; ` +
  'anything else is refused with 400 `invalid-duration`.'
const HABIT_ENTRY_RULES = `A quest holds at most ${QUEST_HABITS_MAX} habit entries (400 \`too-many-quest-habits\`); an entry's \`habitId\` ` +
  'is unique in the quest (409 `duplicate-quest-habit`), and its other fields are checked as a habit\'s are ' +
  '(400 `invalid-title`, `invalid-description`, `invalid-tags`, `invalid-recurrence`).'
const PAYOUT_CEILING = `What a participant is paid is capped at ${PAYOUT_CEILING_PER_COMPLETION.experience} experience and ` +
  `${PAYOUT_CEILING_PER_COMPLETION.money} money per completion their window requires, so an empty or trivial quest mints nothing.`
const ownedAvatar = (field: string) => `\`${field}\` must name an avatar the caller owns: 400 \`unknown-avatar\` when there is none, ` +
  '403 `not-owner` when it is someone else\'s.'

export const questRoutes: FastifyPluginAsyncTypebox<{ app: QuestApp }> = async (f, { app }) => {
  f.post('/quests', {
    schema: {
      tags, operationId: 'createQuest', summary: 'Create a quest owned by an avatar the caller owns',
      description: `The creator is \`ownerAvatarId\` (default: the caller's registration avatar). ${ownedAvatar('ownerAvatarId')} ` +
        `Defaults: duration ${DEFAULT_DURATION}, reward ${DEFAULT_REWARD.experience} experience and ${DEFAULT_REWARD.money} money. ` +
        `${DURATION_RULE} ${HABIT_ENTRY_RULES} A guild quest (\`guildId\`) may be joined by that guild's members only; ` +
        'its guild must exist (400 `unknown-guild`) and the owner must be one of its members (403 `not-guild-member`).',
      body: CreateQuestBody, response: { 200: CreatedQuestView, ...problemResponses(400, 401, 403, 409) },
    },
  }, async (req) => {
    const quest = await app.create(req.principal, req.body)
    return { id: quest.id, _links: questLinks(quest) }
  })

  f.get('/quests', {
    schema: {
      tags, operationId: 'listQuests', summary: "List the caller's quests, their guild's and public ones",
      description: "The caller's quests, the quests of their guild and public (guildless) ones, oldest first, in pages of `limit` " +
        "(`next` names the following page). The guild is that of `avatarId` (default: the caller's registration avatar). " +
        `${ownedAvatar('avatarId')} A cursor that names no quest is 400 \`invalid-cursor\`.`,
      querystring: ListQuery, response: { 200: QuestListView, ...problemResponses(400, 401, 403) },
    },
  }, async (req) => {
    const page = await app.list(req.principal, req.query)
    return { items: page.items.map(questView), next: page.next }
  })

  f.get('/quests/:id', {
    schema: { tags, operationId: 'getQuest', summary: 'Get a quest', description: READ, params, response: { 200: QuestView, ...reads } },
  }, async (req) => questView(await app.get(req.params.id)))

  f.delete('/quests/:id', {
    schema: {
      tags, operationId: 'deleteQuest', summary: 'Delete a quest (owner only)',
      description: `${OWNER_ONLY} Its participations end; the participants' copies of its habits stay as personal habits, unlinked.`,
      params, response: changes,
    },
  }, async (req, reply) => {
    await app.delete(req.principal, req.params.id)
    return noContent(reply)
  })

  f.get('/quests/:id/name', {
    schema: { tags, operationId: 'getQuestName', summary: "Get a quest's name", description: READ, params,
      response: { 200: Type.Object({ name: Type.String() }), ...reads } },
  }, async (req) => ({ name: (await app.get(req.params.id)).name }))
  f.patch('/quests/:id/name', {
    schema: { tags, operationId: 'renameQuest', summary: 'Rename a quest (owner only)',
      description: `${OWNER_ONLY} The name is trimmed.`, params, body: NameBody, response: changes },
  }, async (req, reply) => {
    await app.rename(req.principal, req.params.id, req.body.name)
    return noContent(reply)
  })

  f.get('/quests/:id/duration', {
    schema: { tags, operationId: 'getQuestDuration', summary: "Get a quest's duration, as it was set", description: READ, params,
      response: { 200: Type.Object({ duration: Type.String() }), ...reads } },
  }, async (req) => ({ duration: (await app.get(req.params.id)).duration }))
  f.patch('/quests/:id/duration', {
    schema: {
      tags, operationId: 'updateQuestDuration', summary: "Change a quest's duration (owner only)",
      description: `${OWNER_ONLY} ${DURATION_RULE} It applies to participants who join from now on; the windows of those who joined stay.`,
      params, body: DurationBody, response: changes,
    },
  }, async (req, reply) => {
    await app.setDuration(req.principal, req.params.id, req.body.duration)
    return noContent(reply)
  })

  f.get('/quests/:id/reward', {
    schema: { tags, operationId: 'getQuestReward', summary: "Get a quest's reward, as it was set", description: `${READ} ${PAYOUT_CEILING}`,
      params, response: { 200: Type.Object({ experience: Type.Integer(), money: Type.Integer() }), ...reads } },
  }, async (req) => (await app.get(req.params.id)).reward)
  f.patch('/quests/:id/reward', {
    schema: {
      tags, operationId: 'updateQuestReward', summary: "Change a quest's reward (owner only)",
      description: `${OWNER_ONLY} The reward is stored and shown as set. ${PAYOUT_CEILING}`,
      params, body: RewardBody, response: changes,
    },
  }, async (req, reply) => {
    await app.setReward(req.principal, req.params.id, req.body)
    return noContent(reply)
  })

  f.get('/quests/:id/habits', {
    schema: { tags, operationId: 'listQuestHabits', summary: "List a quest's habit entries", description: READ, params,
      response: { 200: QuestHabitsView, ...reads } },
  }, async (req) => questHabitsView(await app.get(req.params.id)))
  f.post('/quests/:id/habits', {
    schema: {
      tags, operationId: 'addQuestHabit', summary: 'Add a habit entry to a quest (owner only)',
      description: `${OWNER_ONLY} ${HABIT_ENTRY_RULES} Participants who join from now on get a copy of it.`,
      params, body: QuestHabitBody, response: { ...changes, ...problemResponses(409) },
    },
  }, async (req, reply) => {
    await app.addHabit(req.principal, req.params.id, req.body)
    return noContent(reply)
  })
  f.delete('/quests/:id/habits', {
    schema: {
      tags, operationId: 'removeQuestHabit', summary: 'Remove a habit entry from a quest (owner only)',
      description: `${OWNER_ONLY} The entry must match both \`habitId\` and \`title\` (spaces around the title aside), ` +
        'else 404 `not-found`.',
      params, body: RemoveHabitBody, response: changes,
    },
  }, async (req, reply) => {
    await app.removeHabit(req.principal, req.params.id, req.body.habitId, req.body.title)
    return noContent(reply)
  })

  f.post('/quests/:id/participants', {
    schema: {
      tags, operationId: 'joinQuest', summary: 'Join a quest with an avatar the caller owns',
      description: "Each quest habit is copied into the avatar's habits (linked to the quest); the avatar's window runs from now " +
        'for the quest\'s duration. Idempotent: joining again answers the same participation. ' +
        `${ownedAvatar('avatarId')} Refused with 404 \`not-found\` for an unknown quest, 400 \`quest-has-no-habits\` for a quest ` +
        'without habits, and 403 `not-guild-member` for a guild quest the avatar\'s guild is not. ' +
        'When every required completion is done the participation is COMPLETED and its payout paid once (`QuestCompleted`).',
      params, body: JoinBody, response: { 200: ParticipationView, ...problemResponses(400, 401, 403, 404) },
    },
  }, async (req) => participationView(await app.join(req.principal, req.params.id, req.body.avatarId)))

  f.get('/quests/:id/participants', {
    schema: {
      tags, operationId: 'listQuestParticipants', summary: "List a quest's participants and their progress",
      description: `${READ} In join order, in pages of \`limit\` (\`next\` names the following page); ` +
        'a cursor that names no participant of this quest is 400 `invalid-cursor`.',
      params, querystring: ParticipantsQuery, response: { 200: ParticipationListView, ...problemResponses(400, 401, 404) },
    },
  }, async (req) => {
    const page = await app.participants(req.params.id, req.query)
    return { items: page.items.map(participationView), next: page.next }
  })

  f.get('/quests/:id/participants/:avatarId', {
    schema: {
      tags, operationId: 'getQuestParticipant', summary: "Get a participant's status, window, progress and payout",
      description: 'Status IN_PROGRESS, COMPLETED or EXPIRED (the window ended first), the window, per-habit `required` and `done`, ' +
        'and the `payout` the participant receives on completion. Any signed-in player may read it. ' +
        'Refused with 404 `not-found` for an unknown quest or an avatar that is not its participant.',
      params: ParticipantParams, response: { 200: ParticipationView, ...reads },
    },
  }, async (req) => participationView(await app.progress(req.params.id, req.params.avatarId)))

  f.delete('/quests/:id/participants/:avatarId', {
    schema: {
      tags, operationId: 'leaveQuest', summary: 'Leave a quest with an avatar the caller owns',
      description: "The participation ends; the avatar's copies of the quest habits stay as personal habits, unlinked. " +
        'Refused with 403 `not-owner` when the avatar is someone else\'s, 404 `not-found` for an unknown quest or avatar, ' +
        'or an avatar that is not a participant.',
      params: ParticipantParams, response: changes,
    },
  }, async (req, reply) => {
    await app.leave(req.principal, req.params.id, req.params.avatarId)
    return noContent(reply)
  })
}
