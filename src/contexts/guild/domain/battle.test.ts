import { describe, expect, test } from 'vitest'
import { afterStrikeBack, pointsForVictory, startBattle, strike, type Battle } from './battle.js'
import { BOSSES } from './rules.js'

const t0 = new Date('2026-03-02T08:00:00Z')
const goblinFight = (memberIds = ['a', 'b']): Battle => startBattle({ id: 'b1', guildId: 'g1', bossType: 'GOBLIN', memberIds, now: t0 })

describe('starting a battle', () => {
  test('turns are 6 per member for the goblin, shared by all, from turn 0 at full health', () => {
    const b = goblinFight(['a', 'b', 'c'])
    expect(b).toMatchObject({ status: 'IN_PROGRESS', currentTurn: 0, numOfTurns: 18, bossRemainingHealth: 150 })
    expect(b.participants.map((p) => p.avatarId)).toEqual(['a', 'b', 'c'])
  })
})

describe('an attack', () => {
  test('deals min(damage, attack) minus the boss defense and takes the boss strength minus defense back', () => {
    // goblin: defense 2, strength 8. min(50, 12) - 2 = 10 dealt; 8 - 3 = 5 back.
    const s = strike(goblinFight(), 'a', 50, { attack: 12, defense: 3 }, t0)
    expect(s.dealt).toBe(10)
    expect(s.strikeBack).toBe(5)
    expect(s.battle.bossRemainingHealth).toBe(140)
    expect(s.battle.currentTurn).toBe(1)
    expect(s.battle.participants[0]).toMatchObject({ damageDealt: 10, attacks: 1 })
  })

  test('asking for less than the attack deals what was asked, minus defense', () => {
    expect(strike(goblinFight(), 'a', 5, { attack: 12, defense: 0 }, t0).dealt).toBe(3)
  })

  test('a hit and a strike-back are at least 1', () => {
    const s = strike(goblinFight(), 'a', 0, { attack: 12, defense: 100 }, t0)
    expect(s.dealt).toBe(1)
    expect(s.strikeBack).toBe(1)
  })

  test('the killing blow deals only the health left, wins, and draws no strike-back', () => {
    let b = goblinFight()
    b = { ...b, bossRemainingHealth: 4 }
    const s = strike(b, 'b', 100, { attack: 100, defense: 0 }, t0)
    expect(s.dealt).toBe(4)
    expect(s.strikeBack).toBe(0)
    expect(s.battle).toMatchObject({ status: 'WON', bossRemainingHealth: 0, endedAt: t0 })
  })

  test('outsiders, fallen attackers and finished battles are refused', () => {
    expect(() => strike(goblinFight(), 'z', 1, { attack: 5, defense: 0 }, t0)).toThrow(/not a participant/)
    const fallen = afterStrikeBack(goblinFight(), 'a', true, t0)
    expect(() => strike(fallen, 'a', 1, { attack: 5, defense: 0 }, t0)).toThrow(/fallen/)
    expect(() => strike({ ...goblinFight(), status: 'WON' }, 'a', 1, { attack: 5, defense: 0 }, t0)).toThrow(/over/)
  })
})

describe('the outcome', () => {
  test('the last turn used without a kill loses', () => {
    const b = { ...goblinFight(['a']), currentTurn: 5 }
    const s = strike(b, 'a', 3, { attack: 3, defense: 0 }, t0)
    expect(s.battle.currentTurn).toBe(6)
    expect(afterStrikeBack(s.battle, 'a', false, t0).status).toBe('LOST')
  })

  test('everyone fallen loses; one still standing fights on', () => {
    const one = afterStrikeBack(goblinFight(), 'a', true, t0)
    expect(one.status).toBe('IN_PROGRESS')
    expect(afterStrikeBack(one, 'b', true, t0).status).toBe('LOST')
  })

  test('a won battle stays won', () => {
    expect(afterStrikeBack({ ...goblinFight(), status: 'WON' }, 'a', true, t0).status).toBe('WON')
  })

  test('victory points are a tenth of the experience reward', () => {
    expect(pointsForVictory(BOSSES.GOBLIN)).toBe(5)
    expect(pointsForVictory(BOSSES.DRAGON)).toBe(200)
  })
})
