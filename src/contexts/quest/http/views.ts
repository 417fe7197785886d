import { links } from '../../../platform/http/links.js'
import { recurrenceFields } from '../../../platform/time/index.js'
import { progressOf, type Participation } from '../domain/participation.js'
import type { Quest, QuestHabit } from '../domain/quest.js'

const questPath = (id: string) => `/api/v1/quests/${id}`
const avatarPath = (id: string) => `/api/v1/avatars/${encodeURIComponent(id)}`
const participantPath = (questId: string, avatarId: string) => `${questPath(questId)}/participants/${encodeURIComponent(avatarId)}`

export function questLinks(q: Pick<Quest, 'id' | 'ownerAvatarId'>) {
  const self = questPath(q.id)
  return links({
    self,
    quest: self,
    name: `${self}/name`,
    duration: `${self}/duration`,
    reward: `${self}/reward`,
    habits: `${self}/habits`,
    participants: `${self}/participants`,
    join: `${self}/participants`,
    owner: avatarPath(q.ownerAvatarId),
    delete: self,
  })
}

export function questView(q: Quest) {
  return {
    id: q.id,
    name: q.name,
    description: q.description,
    duration: q.duration,
    reward: q.reward,
    habitIds: q.habits.map((h) => h.habitId),
    guildId: q.guildId,
    ownerAvatarId: q.ownerAvatarId,
    _links: questLinks(q),
  }
}

const recurrenceView = recurrenceFields

export function questHabitsView(q: Quest) {
  const self = `${questPath(q.id)}/habits`
  return {
    habits: q.habits.map((h: QuestHabit) => ({
      id: h.habitId, habitId: h.habitId, title: h.title, description: h.description, tags: h.tags, recurrence: recurrenceView(h.recurrence),
    })),
    _links: links({ self, quest: questPath(q.id), add: self, remove: self }),
  }
}

export function participationView(p: Participation) {
  const self = participantPath(p.questId, p.avatarId)
  return {
    id: p.id,
    questId: p.questId,
    avatarId: p.avatarId,
    status: p.status,
    timeZone: p.timeZone,
    window: { from: p.from, to: p.to },
    habits: p.habits.map((h) => ({
      habitId: h.habit.habitId, title: h.habit.title, copyHabitId: h.copyHabitId, required: h.windows.length, done: h.done.length,
    })),
    ...progressOf(p),
    payout: p.payout,
    _links: links({ self, quest: questPath(p.questId), avatar: avatarPath(p.avatarId), leave: self }),
  }
}
