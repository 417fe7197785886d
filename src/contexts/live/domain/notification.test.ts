import { expect, test } from 'vitest'
import { battleLost, battleWon, died, leveledUp, missedWindowSettled, questCompleted, questExpired, reminded } from './notification.js'

test('a battle won or lost tells every participant, each in their own inbox', () => {
  const battle = { battleId: 'b1', guildId: 'g1', bossType: 'DARK_DRAGON', participants: ['a1', 'a2'] }
  const won = battleWon({ ...battle, reward: { experience: 50, money: 30 } })
  expect(won.map((n) => n.avatarId)).toEqual(['a1', 'a2'])
  expect(won[0]).toMatchObject({ type: 'BATTLE_WON', body: 'Your guild defeated the dark dragon: +50 experience, +30 gold.', data: { battleId: 'b1', guildId: 'g1' } })
  const lost = battleLost({ ...battle, penalty: 15 })
  expect(lost.map((n) => [n.avatarId, n.type])).toEqual([['a1', 'BATTLE_LOST'], ['a2', 'BATTLE_LOST']])
  expect(lost[1]!.body).toBe('The dark dragon won the battle: 15 damage to each fighter.')
})

test('one level is not "1 levels"; a death without money lost does not mention gold', () => {
  expect(leveledUp({ avatarId: 'a', level: 2, levelsGained: 1, spellsLearned: [] }).body).toBe('You gained 1 level.')
  expect(died({ avatarId: 'a', moneyLost: 0 }).body).toBe('Your health ran out: you lost the experience of this level, and wake with full health and mana.')
  expect(died({ avatarId: 'a', moneyLost: 12 }).body).toContain('and 12 gold')
})

test('a missed habit and a completed quest carry what a client links to', () => {
  expect(missedWindowSettled({ ...settled, outcome: 'DAMAGED', damage: 5, freezesHeld: 0 })).toEqual({
    avatarId: 'a', type: 'HABIT_MISSED', title: 'A habit was missed', body: 'A window of one of your habits ended without a completion: 5 damage.',
    data: { habitId: 'h', windowStart: '2026-11-24', windowEnd: '2026-11-25', damage: 5, penalty: 5 },
  })
  expect(questCompleted({ avatarId: 'a', questId: 'q', reward: { experience: 20, money: 10 } }))
    .toMatchObject({ type: 'QUEST_COMPLETED', body: 'You completed a quest: +20 experience, +10 gold.', data: { questId: 'q' } })
})

const settled = { avatarId: 'a', habitId: 'h', windowStart: '2026-11-24', windowEnd: '2026-11-25', penalty: 5, dailyCap: 25 }

test("a missed window past the day's cap says why it cost nothing", () => {
  expect(missedWindowSettled({ ...settled, outcome: 'DAMAGED', damage: 0, freezesHeld: 0 })).toMatchObject({
    type: 'HABIT_MISSED', body: "A window of one of your habits ended without a completion: 0 damage: the day's cap of 25 is reached.", data: { damage: 0 },
  })
})

test('a window a streak freeze took is STREAK_FROZEN, counting the freezes left', () => {
  expect(missedWindowSettled({ ...settled, outcome: 'FROZEN', damage: 0, freezesHeld: 1 })).toEqual({
    avatarId: 'a', type: 'STREAK_FROZEN', title: 'Streak frozen',
    body: 'A window of one of your habits ended without a completion: a streak freeze took the blow and the streak is kept (1 freeze left).',
    data: { habitId: 'h', windowStart: '2026-11-24', windowEnd: '2026-11-25', freezesHeld: 1 },
  })
  expect(missedWindowSettled({ ...settled, outcome: 'FROZEN', damage: 0, freezesHeld: 0 }).body).toContain('(no freezes left)')
})

test('a reminder names the habit still to do and carries its window', () => {
  const n = reminded({ avatarId: 'a1', habitId: 'h1', habitTitle: 'Stretch', windowStart: '2026-03-02T00:00:00.000Z', windowEnd: '2026-03-03T00:00:00.000Z', reminderTime: '09:00', timeZone: 'UTC' })
  expect(n).toEqual({
    avatarId: 'a1', type: 'REMINDER', title: 'Reminder', body: 'Still to do: Stretch.',
    data: { habitId: 'h1', habitTitle: 'Stretch', windowStart: '2026-03-02T00:00:00.000Z', windowEnd: '2026-03-03T00:00:00.000Z', reminderTime: '09:00', timeZone: 'UTC' },
  })
})

test('an expired quest says how far the player got', () => {
  expect(questExpired({ avatarId: 'a1', questId: 'q1', done: 1, required: 3 })).toEqual({
    avatarId: 'a1', type: 'QUEST_EXPIRED', title: 'Quest expired', body: 'A quest ran out of time: 1 of 3 completions done, no reward.',
    data: { questId: 'q1', done: 1, required: 3 },
  })
})
