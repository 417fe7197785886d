/** The quest aggregate: a named goal grouping habit entries, with a duration and a reward. Pure. */
import type { HabitTemplate } from '../../tracking/client.js'
import { parseDuration } from './duration.js'
import { DuplicateQuestHabit, QuestHabitNotFound, TooManyQuestHabits } from './errors.js'
import { QUEST_HABITS_MAX } from './rules.js'

export interface Reward {
  experience: number
  money: number
}

/** A habit entry of a quest: what each participant's copy is made from. */
export interface QuestHabit extends HabitTemplate {
  /** Chosen by the quest's owner; unique in the quest. */
  habitId: string
}

export interface Quest {
  id: string
  name: string
  description: string
  /** ISO 8601, as the owner set it (checked by parseDuration). */
  duration: string
  reward: Reward
  /** A guild quest may be joined by that guild's members only. */
  guildId: string | null
  ownerAvatarId: string
  /** The player owning ownerAvatarId: only they edit or delete the quest. */
  ownerId: string
  habits: QuestHabit[]
}

export function newQuest(q: Quest): Quest {
  parseDuration(q.duration)
  return q.habits.reduce((quest, h) => addHabit(quest, h), { ...q, name: q.name.trim(), habits: [] as QuestHabit[] })
}

export function changeDuration(q: Quest, duration: string): Quest {
  parseDuration(duration)
  return { ...q, duration }
}

/** habitId is unique in the quest (409); a quest holds at most QUEST_HABITS_MAX entries. */
export function addHabit(q: Quest, h: QuestHabit): Quest {
  if (q.habits.some((e) => e.habitId === h.habitId)) throw new DuplicateQuestHabit(h.habitId)
  if (q.habits.length >= QUEST_HABITS_MAX) throw new TooManyQuestHabits(QUEST_HABITS_MAX)
  return { ...q, habits: [...q.habits, h] }
}

/** The entry must match both its habitId and its title (surrounding spaces aside), else 404. */
export function removeHabit(q: Quest, habitId: string, title: string): Quest {
  const wanted = title.trim()
  const kept = q.habits.filter((e) => !(e.habitId === habitId && e.title === wanted))
  if (kept.length === q.habits.length) throw new QuestHabitNotFound(habitId, title)
  return { ...q, habits: kept }
}
