import { describe, expect, test } from 'vitest'
import { fallOut, judgeAttack, pointsForVictory, startBattle, type Battle, type Fighter, type Strike } from './battle.js'
import { BOSSES } from './rules.js'

const t0 = new Date('2026-03-02T08:00:00Z')
const goblinFight = (memberIds = ['a', 'b']): Battle => startBattle({ id: 'b1', guildId: 'g1', bossType: 'GOBLIN', memberIds, now: t0 })
/** An attacker as the avatar context reports it. */
const fighter = (attack: number, defense: number, health: number, deaths = 0): Fighter => ({ ownerId: 'owner', attack, defense, health, deaths })
const fallenIn = (b: Battle, id: string): Battle => ({ ...b, participants: b.participants.map((p) => (p.avatarId === id ? { ...p, fallen: true } : p)) })

const strike = (b: Battle, id: string, damage: number, f: Fighter, healthBefore = f.health): Strike => judgeAttack(b, id, damage, f, healthBefore, t0)

describe('starting a battle', () => {
  test('turns are 6 per member for the goblin, shared by all, from turn 0', () => {
    const b = goblinFight(['a', 'b', 'c'])
    expect(b).toMatchObject({ status: 'IN_PROGRESS', currentTurn: 0, numOfTurns: 18, bossRemainingHealth: 150 })
    expect(b.participants.map((p) => p.avatarId)).toEqual(['a', 'b', 'c'])
  })

  test('members read at the start enter with their deaths counted; one not read enters with its first attack', () => {
    const b = startBattle({ id: 'b1', guildId: 'g1', bossType: 'GOBLIN', memberIds: ['a', 'b'], fighters: new Map([['a', fighter(12, 3, 40, 2)]]), now: t0 })
    expect(b.participants[0]).toMatchObject({ deathsAtEntry: 2 })
    expect(b.participants[1]!.deathsAtEntry).toBeUndefined()
    expect(strike(b, 'b', 1, fighter(5, 0, 100, 7)).battle.participants[1]).toMatchObject({ deathsAtEntry: 7 })
  })
})

describe('an attack', () => {
  test('deals min(damage, attack) minus the boss defense and takes the boss strength minus defense back', () => {
    // goblin: defense 2, strength 8. min(50, 12) - 2 = 10 dealt; 8 - 3 = 5 back.
    const s = strike(goblinFight(), 'a', 50, fighter(12, 3, 100))
    expect(s).toMatchObject({ dealt: 10, strikeBack: 5, attackerFell: false })
    expect(s.battle).toMatchObject({ bossRemainingHealth: 140, currentTurn: 1 })
    expect(s.battle.participants[0]).toMatchObject({ damageDealt: 10, attacks: 1 })
  })

  test('the attacker fights as it is: gear changed since the last attack counts at once', () => {
    const first = strike(goblinFight(), 'a', 100, fighter(10, 0, 100))
    expect(strike(first.battle, 'a', 100, fighter(60, 0, 92))).toMatchObject({ dealt: 58 })
  })

  test('asking for less than the attack deals what was asked, minus defense; a hit and a strike-back are at least 1', () => {
    expect(strike(goblinFight(), 'a', 5, fighter(12, 0, 100)).dealt).toBe(3)
    expect(strike(goblinFight(), 'a', 0, fighter(12, 100, 100))).toMatchObject({ dealt: 1, strikeBack: 1 })
  })

  test('the killing blow deals only the health left, wins, and draws no strike-back', () => {
    const s = strike({ ...goblinFight(), bossRemainingHealth: 4 }, 'b', 100, fighter(100, 0, 100))
    expect(s).toMatchObject({ dealt: 4, strikeBack: 0, attackerFell: false })
    expect(s.battle).toMatchObject({ status: 'WON', bossRemainingHealth: 0, endedAt: t0 })
  })

  test('outsiders, fallen attackers and finished battles are refused', () => {
    expect(() => judgeAttack(goblinFight(), 'z', 1, fighter(5, 0, 100), 100, t0)).toThrow(/not a participant/)
    expect(() => judgeAttack(fallenIn(goblinFight(), 'a'), 'a', 1, fighter(5, 0, 100), 100, t0)).toThrow(/fallen/)
    expect(() => judgeAttack({ ...goblinFight(), status: 'WON' }, 'a', 1, fighter(5, 0, 100), 100, t0)).toThrow(/over/)
  })
})

describe('the fall', () => {
  test('a strike-back that takes the last health fells the attacker', () => {
    // goblin strength 8, defense 0: 8 back with 8 health left.
    const s = strike(goblinFight(), 'a', 1, fighter(5, 0, 8))
    expect(s).toMatchObject({ strikeBack: 8, attackerFell: true })
    expect(s.battle.participants[0]).toMatchObject({ fallen: true })
    expect(s.battle.status).toBe('IN_PROGRESS')
  })

  test('the health before an attack is what the caller says it is (the strike-backs of a batch not applied yet)', () => {
    // Reported 20, but two strike-backs of 8 of this batch are not applied yet: 4 left, 8 back fells.
    expect(strike(goblinFight(), 'a', 1, fighter(5, 0, 20), 4).attackerFell).toBe(true)
  })

  test('an attacker who died since it entered, in this battle or elsewhere, is refused, and the battle does not change', () => {
    const b = strike(goblinFight(), 'a', 1, fighter(5, 0, 100, 3)).battle
    expect(() => judgeAttack(b, 'a', 1, fighter(5, 0, 100, 4), 100, t0)).toThrow(/fallen/)
  })

  test('an attacker whom a strike-back not yet applied will kill is refused', () => {
    expect(() => judgeAttack(goblinFight(), 'a', 1, fighter(5, 0, 5), -3, t0)).toThrow(/fallen/)
  })

  test('a fall the battle hears of marks the participant; the last one standing out loses the battle', () => {
    const one = fallOut(goblinFight(), 'b', t0)
    expect(one.participants[1]).toMatchObject({ fallen: true })
    expect(one.status).toBe('IN_PROGRESS')
    expect(fallOut(one, 'a', t0)).toMatchObject({ status: 'LOST', endedAt: t0 })
    // Nothing to do: the battle as it was.
    expect(fallOut(one, 'b', t0)).toBe(one)
    expect(fallOut(one, 'z', t0)).toBe(one)
  })
})

describe('the outcome', () => {
  test('the last turn used without a kill loses', () => {
    const s = strike({ ...goblinFight(['a']), currentTurn: 5 }, 'a', 3, fighter(3, 0, 100))
    expect(s.battle).toMatchObject({ currentTurn: 6, status: 'LOST', endedAt: t0 })
  })

  test('everyone fallen loses; one still standing fights on', () => {
    const one = strike(goblinFight(), 'a', 1, fighter(5, 0, 1)).battle
    expect(one.status).toBe('IN_PROGRESS')
    expect(strike(one, 'b', 1, fighter(5, 0, 1)).battle).toMatchObject({ status: 'LOST', endedAt: t0 })
  })

  test('the last turn that kills the boss wins', () => {
    expect(strike({ ...goblinFight(['a']), currentTurn: 5, bossRemainingHealth: 3 }, 'a', 5, fighter(5, 0, 100)).battle.status).toBe('WON')
  })

  test('victory points are a tenth of the experience reward', () => {
    expect(pointsForVictory(BOSSES.GOBLIN)).toBe(5)
    expect(pointsForVictory(BOSSES.DRAGON)).toBe(200)
  })
})
