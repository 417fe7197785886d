/**
 * Streak freezes (DESIGN §9.3): earned by completions, taken by missed windows within the day's
 * damage cap, and the Ice Crystal.
 */
import { describe, expect, test } from 'vitest'
import { changedPayload, useItem, type Item } from './avatar.js'
import { rewardCompletion, settleMissedWindow } from './habit-effects.js'
import { FreezesFull } from './errors.js'
import { fresh, potion, withItems } from './test-avatars.js'

// Every expected number below is worked out by hand from DESIGN §6; none is read from rules.ts.

const crystal: Item = { type: 'CONSUMABLE', name: 'Ice Crystal', description: 'Cold.', power: 1, effect: 'FREEZE' }

describe('streak freezes earned by completions', () => {
  const completion = (streak: number, windowCompleted = true) => ({ reward: { experience: 10, money: 2 }, streak, windowCompleted })

  test('a streak of 7 pays its reward and earns one freeze; 6 and 8 earn none', () => {
    const r = rewardCompletion(fresh(), completion(7))
    expect(r).toEqual({ avatar: { ...fresh(), experience: 10, money: 102, streakFreezes: 1 }, levelsGained: 0, spellsLearned: [], freezeEarned: true })
    expect(rewardCompletion(fresh(), completion(6))).toMatchObject({ avatar: { streakFreezes: 0 }, freezeEarned: false })
    expect(rewardCompletion(fresh(), completion(8))).toMatchObject({ avatar: { streakFreezes: 0 }, freezeEarned: false })
  })

  test('14 and 21 earn one each time, up to 2 held; at 2 the reward is still paid and no third is earned', () => {
    const one = rewardCompletion(fresh(), completion(7)).avatar
    const two = rewardCompletion(one, completion(14)).avatar
    expect(two.streakFreezes).toBe(2)
    const three = rewardCompletion(two, completion(21))
    expect(three).toMatchObject({ avatar: { streakFreezes: 2, experience: 30, money: 106 }, freezeEarned: false })
  })

  test('a TIMES_PER_WEEK week still short earns none, whatever its streak', () => {
    expect(rewardCompletion(fresh(), completion(7, false))).toMatchObject({ avatar: { streakFreezes: 0, experience: 10 }, freezeEarned: false })
  })

  test('the freeze survives a level-up in the same reward', () => {
    const r = rewardCompletion({ ...fresh(), experience: 95 }, completion(14))
    expect(r).toMatchObject({ levelsGained: 1, avatar: { level: 2, experience: 5, streakFreezes: 1 }, freezeEarned: true })
  })
})

describe('missed windows', () => {
  const missed = (day: string, damage = 5) => ({ day, damage })

  test('with a freeze held, one is used up instead of the damage', () => {
    const a = { ...fresh(), health: 60, streakFreezes: 2 }
    expect(settleMissedWindow(a, missed('2026-03-02'))).toEqual({
      avatar: { ...a, streakFreezes: 1 }, outcome: 'FROZEN', damage: 0, died: false, moneyLost: 0,
    })
  })

  test('a freeze is used even when the day is already at its cap: it keeps the streak', () => {
    const a = { ...fresh(), streakFreezes: 1, missedDamage: { '2026-03-02': 25 } }
    expect(settleMissedWindow(a, missed('2026-03-02'))).toMatchObject({ outcome: 'FROZEN', avatar: { streakFreezes: 0, health: 100 } })
  })

  test('without one, the window costs its damage, recorded on its day', () => {
    const r = settleMissedWindow(fresh(), missed('2026-03-02'))
    expect(r).toEqual({ avatar: { ...fresh(), health: 95, missedDamage: { '2026-03-02': 5 } }, outcome: 'DAMAGED', damage: 5, died: false, moneyLost: 0 })
  })

  test('six windows missed on one day cost 25 in all: the sixth costs nothing', () => {
    let a = fresh()
    const taken: number[] = []
    for (let i = 0; i < 6; i++) {
      const r = settleMissedWindow(a, missed('2026-03-02'))
      taken.push(r.damage)
      a = r.avatar
    }
    expect(taken).toEqual([5, 5, 5, 5, 5, 0])
    expect(a).toMatchObject({ health: 75, missedDamage: { '2026-03-02': 25 } })
  })

  test('a penalty that would pass the cap is cut to what the day has left', () => {
    const a = { ...fresh(), missedDamage: { '2026-03-02': 22 } }
    expect(settleMissedWindow(a, missed('2026-03-02'))).toMatchObject({ damage: 3, avatar: { health: 97, missedDamage: { '2026-03-02': 25 } } })
  })

  test('each day has its own cap', () => {
    const a = { ...fresh(), missedDamage: { '2026-03-02': 25 } }
    const next = settleMissedWindow(a, missed('2026-03-03'))
    expect(next).toMatchObject({ damage: 5, avatar: { health: 95, missedDamage: { '2026-03-02': 25, '2026-03-03': 5 } } })
    // A window of the capped day judged late still costs nothing.
    expect(settleMissedWindow(next.avatar, missed('2026-03-02'))).toMatchObject({ damage: 0, avatar: { health: 95 } })
  })

  test('only the latest 14 days are remembered', () => {
    // 1 to 14 March, 5 each: the 15th pushes 1 March out.
    const days = Array.from({ length: 14 }, (_, i) => `2026-03-${String(i + 1).padStart(2, '0')}`)
    const a = { ...fresh(), missedDamage: Object.fromEntries(days.map((d) => [d, 5])) }
    const r = settleMissedWindow(a, missed('2026-03-15'))
    expect(Object.keys(r.avatar.missedDamage)).toEqual([...days.slice(1), '2026-03-15'])
    // A day older than a full record cannot be told from one that took its cap: no damage.
    expect(settleMissedWindow(r.avatar, missed('2026-03-01'))).toMatchObject({ damage: 0, avatar: { health: 95 } })
  })

  test('the damage may kill: then the avatar dies as from any blow', () => {
    const a = { ...fresh(), health: 5, money: 50 }
    expect(settleMissedWindow(a, missed('2026-03-02'))).toMatchObject({
      outcome: 'DAMAGED', damage: 5, died: true, moneyLost: 5, avatar: { health: 100, money: 45, missedDamage: { '2026-03-02': 5 } },
    })
  })
})

describe('the Ice Crystal', () => {
  test('using it adds one freeze and uses it up, leaving health and mana alone', () => {
    const a = { ...withItems(fresh(), crystal, potion), health: 50 }
    expect(useItem(a, 'Ice Crystal')).toEqual({ avatar: { ...a, streakFreezes: 1, inventory: [potion] }, item: crystal })
  })

  test('with 2 held it is refused and kept', () => {
    const a = { ...withItems(fresh(), crystal), streakFreezes: 2 }
    expect(() => useItem(a, 'Ice Crystal')).toThrow(FreezesFull)
    expect(() => useItem(a, 'Ice Crystal')).toThrow('holds 2 streak freezes')
    expect(a.inventory).toEqual([crystal])
  })

  test('the avatar\'s live state shows the freezes held and the most it may hold', () => {
    expect(changedPayload({ ...fresh(), streakFreezes: 1 }).streakFreezes).toEqual({ held: 1, max: 2 })
  })
})
