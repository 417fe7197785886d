import { describe, expect, test } from 'vitest'
import { DuplicateQuestHabit, InvalidDuration, QuestHabitNotFound, TooManyQuestHabits } from './errors.js'
import { addHabit, changeDuration, newQuest, removeHabit, type Quest, type QuestHabit } from './quest.js'

const entry = (habitId: string, title = 'Read'): QuestHabit => ({ habitId, title, description: '', tags: [], recurrence: { type: 'DAILY' } })
const base: Quest = {
  id: 'q', name: ' Spring ', description: '', duration: 'P7D', reward: { experience: 100, money: 50 }, guildId: null,
  ownerAvatarId: 'a', ownerId: 'u', habits: [],
}

describe('quests', () => {
  test('a new quest has its name trimmed and its habits in order', () => {
    const q = newQuest({ ...base, habits: [entry('a'), entry('b')] })
    expect(q.name).toBe('Spring')
    expect(q.habits.map((h) => h.habitId)).toEqual(['a', 'b'])
  })

  test('a habitId appears once: in the new quest and when added', () => {
    expect(() => newQuest({ ...base, habits: [entry('a'), entry('a')] })).toThrow(DuplicateQuestHabit)
    expect(() => addHabit(newQuest({ ...base, habits: [entry('a')] }), entry('a', 'Other'))).toThrow(DuplicateQuestHabit)
  })

  test('at most 20 habits', () => {
    const full = newQuest({ ...base, habits: Array.from({ length: 20 }, (_, i) => entry(`h${i}`)) })
    expect(() => addHabit(full, entry('h20'))).toThrow(TooManyQuestHabits)
  })

  test('removing needs habitId and title to match one entry', () => {
    const q = newQuest({ ...base, habits: [entry('a', 'Read'), entry('b', 'Run')] })
    expect(() => removeHabit(q, 'a', 'Run')).toThrow(QuestHabitNotFound)
    expect(() => removeHabit(q, 'c', 'Read')).toThrow(QuestHabitNotFound)
    expect(removeHabit(q, 'a', ' Read ').habits.map((h) => h.habitId)).toEqual(['b'])
  })

  test('the duration is checked when set, and kept as written', () => {
    expect(() => newQuest({ ...base, duration: '7D' })).toThrow(InvalidDuration)
    expect(() => changeDuration(base, 'P2Y')).toThrow(InvalidDuration)
    expect(changeDuration(base, 'PT36H').duration).toBe('PT36H')
  })
})
