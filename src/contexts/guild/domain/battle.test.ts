import { describe, expect, test } from 'vitest'
import { FighterNotRead, pointsForVictory, startBattle, strike, type Battle, type Fighter } from './battle.js'
import { BOSSES } from './rules.js'

const t0 = new Date('2026-03-02T08:00:00Z')
const goblinFight = (memberIds = ['a', 'b']): Battle => startBattle({ id: 'b1', guildId: 'g1', bossType: 'GOBLIN', memberIds, now: t0 })
/** What is read of an attacker before its first attack. */
const fighter = (attack: number, defense: number, health: number): Fighter => ({ ownerId: 'owner', attack, defense, health })
const fallenIn = (b: Battle, id: string): Battle => ({ ...b, participants: b.participants.map((p) => (p.avatarId === id ? { ...p, fallen: true, health: 0 } : p)) })

describe('starting a battle', () => {
  test('turns are 6 per member for the goblin, shared by all, from turn 0 at full health', () => {
    const b = goblinFight(['a', 'b', 'c'])
    expect(b).toMatchObject({ status: 'IN_PROGRESS', currentTurn: 0, numOfTurns: 18, bossRemainingHealth: 150 })
    expect(b.participants.map((p) => p.avatarId)).toEqual(['a', 'b', 'c'])
  })

  test('members read at the start enter the fight then, as they were; one not read enters with its first attack', () => {
    const b = startBattle({ id: 'b1', guildId: 'g1', bossType: 'GOBLIN', memberIds: ['a', 'b'], fighters: new Map([['a', fighter(12, 3, 40)]]), now: t0 })
    expect(b.participants[0]).toMatchObject({ fighter: { ownerId: 'owner', attack: 12, defense: 3 }, health: 40 })
    expect(b.participants[1]).not.toHaveProperty('fighter')
    // 'a' needs nothing read, and what is read of it later (better gear, more health) does not count: 10 dealt, 5 back.
    expect(strike(b, 'a', 50, undefined, t0)).toMatchObject({ dealt: 10, strikeBack: 5 })
    expect(strike(b, 'a', 50, fighter(100, 100, 100), t0).battle.participants[0]).toMatchObject({ health: 35, fighter: { attack: 12 } })
    expect(() => strike(b, 'b', 1, undefined, t0)).toThrow(FighterNotRead)
  })
})

describe('an attack', () => {
  test('deals min(damage, attack) minus the boss defense and takes the boss strength minus defense back', () => {
    // goblin: defense 2, strength 8. min(50, 12) - 2 = 10 dealt; 8 - 3 = 5 back.
    const s = strike(goblinFight(), 'a', 50, fighter(12, 3, 100), t0)
    expect(s.dealt).toBe(10)
    expect(s.strikeBack).toBe(5)
    expect(s.battle.bossRemainingHealth).toBe(140)
    expect(s.battle.currentTurn).toBe(1)
    expect(s.battle.participants[0]).toMatchObject({ damageDealt: 10, attacks: 1 })
  })

  test('asking for less than the attack deals what was asked, minus defense', () => {
    expect(strike(goblinFight(), 'a', 5, fighter(12, 0, 100), t0).dealt).toBe(3)
  })

  test('a hit and a strike-back are at least 1', () => {
    const s = strike(goblinFight(), 'a', 0, fighter(12, 100, 100), t0)
    expect(s.dealt).toBe(1)
    expect(s.strikeBack).toBe(1)
  })

  test('the killing blow deals only the health left, wins, and draws no strike-back', () => {
    let b = goblinFight()
    b = { ...b, bossRemainingHealth: 4 }
    const s = strike(b, 'b', 100, fighter(100, 0, 100), t0)
    expect(s.dealt).toBe(4)
    expect(s.strikeBack).toBe(0)
    expect(s.battle).toMatchObject({ status: 'WON', bossRemainingHealth: 0, endedAt: t0 })
  })

  test('outsiders, fallen attackers and finished battles are refused', () => {
    expect(() => strike(goblinFight(), 'z', 1, fighter(5, 0, 100), t0)).toThrow(/not a participant/)
    expect(() => strike(fallenIn(goblinFight(), 'a'), 'a', 1, fighter(5, 0, 100), t0)).toThrow(/fallen/)
    expect(() => strike({ ...goblinFight(), status: 'WON' }, 'a', 1, fighter(5, 0, 100), t0)).toThrow(/over/)
  })
})

describe('the strike-back and the fall', () => {
  test('a strike-back that takes the last health fells the attacker, judged by the battle at once', () => {
    // goblin strength 8, defense 0: 8 back; 8 health left.
    const s = strike(goblinFight(), 'a', 1, fighter(5, 0, 8), t0)
    expect(s).toMatchObject({ strikeBack: 8, attackerFell: true })
    expect(s.battle.participants[0]).toMatchObject({ fallen: true, health: 0 })
    expect(s.battle.status).toBe('IN_PROGRESS')
  })

  test('the battle counts its own strike-backs though the avatar still reports its health from before them', () => {
    // 20 health, 8 back each time: 12, 4, then fallen; the avatar reports 20 all along.
    const read = fighter(5, 0, 20)
    let b = goblinFight()
    const fell: boolean[] = []
    for (let i = 0; i < 3; i++) {
      const s = strike(b, 'a', 1, read, t0)
      fell.push(s.attackerFell)
      b = s.battle
    }
    expect(fell).toEqual([false, false, true])
    expect(b.participants[0]).toMatchObject({ health: 0, fallen: true, attacks: 3 })
    expect(() => strike(b, 'a', 1, read, t0)).toThrow(/fallen/)
  })

  test('the killing blow draws no strike-back and fells no one', () => {
    const s = strike({ ...goblinFight(), bossRemainingHealth: 1 }, 'a', 1, fighter(5, 0, 1), t0)
    expect(s).toMatchObject({ strikeBack: 0, attackerFell: false })
    expect(s.battle.participants[0]).toMatchObject({ fallen: false, health: 1 })
  })
})

describe('entering the fight', () => {
  test('an attacker fights as it entered: its later attacks need nothing read, and what is read later does not count', () => {
    // Entered with attack 12, defense 3, health 100: 10 dealt, 5 back, each time.
    const first = strike(goblinFight(), 'a', 50, fighter(12, 3, 100), t0)
    expect(first.battle.participants[0]).toMatchObject({ fighter: { ownerId: 'owner', attack: 12, defense: 3 }, health: 95 })
    const second = strike(first.battle, 'a', 50, undefined, t0)
    expect(second).toMatchObject({ dealt: 10, strikeBack: 5 })
    // Better gear and health lost elsewhere since: the battle goes by what the attacker entered with.
    const third = strike(second.battle, 'a', 50, fighter(100, 100, 1), t0)
    expect(third).toMatchObject({ dealt: 10, strikeBack: 5, attackerFell: false })
    expect(third.battle.participants[0]).toMatchObject({ health: 85, attacks: 3, fighter: { attack: 12, defense: 3 } })
  })

  test('a first attack with nothing read of the attacker is not judged: FighterNotRead', () => {
    expect(() => strike(goblinFight(), 'a', 1, undefined, t0)).toThrow(FighterNotRead)
    // Refusals come first: an outsider or a finished battle is refused, not read for.
    expect(() => strike(goblinFight(), 'z', 1, undefined, t0)).toThrow(/not a participant/)
    expect(() => strike({ ...goblinFight(), status: 'LOST' }, 'a', 1, undefined, t0)).toThrow(/over/)
  })

  test('an attacker of a battle stored without its fighters enters with the lower health: the battle\'s or its own', () => {
    // The battle left 92 (no fighter kept); the avatar reports 5 (hurt elsewhere since): 5 - 8 fells it.
    const before = { ...goblinFight(), participants: goblinFight().participants.map((p) => (p.avatarId === 'a' ? { ...p, attacks: 1, health: 92 } : p)) }
    const s = strike(before, 'a', 1, fighter(5, 0, 5), t0)
    expect(s.attackerFell).toBe(true)
    expect(s.battle.participants[0]).toMatchObject({ health: 0, fallen: true })
    expect(strike(before, 'a', 1, fighter(5, 0, 100), t0).battle.participants[0]!.health).toBe(84)
  })

})

describe('the outcome', () => {
  test('the last turn used without a kill loses', () => {
    const b = { ...goblinFight(['a']), currentTurn: 5 }
    const s = strike(b, 'a', 3, fighter(3, 0, 100), t0)
    expect(s.battle.currentTurn).toBe(6)
    expect(s.battle).toMatchObject({ status: 'LOST', endedAt: t0 })
  })

  test('everyone fallen loses; one still standing fights on', () => {
    const one = strike(goblinFight(), 'a', 1, fighter(5, 0, 1), t0).battle
    expect(one.status).toBe('IN_PROGRESS')
    expect(strike(one, 'b', 1, fighter(5, 0, 1), t0).battle).toMatchObject({ status: 'LOST', endedAt: t0 })
  })

  test('the last turn that kills the boss wins', () => {
    const b = { ...goblinFight(['a']), currentTurn: 5, bossRemainingHealth: 3 }
    expect(strike(b, 'a', 5, fighter(5, 0, 100), t0).battle.status).toBe('WON')
  })

  test('victory points are a tenth of the experience reward', () => {
    expect(pointsForVictory(BOSSES.GOBLIN)).toBe(5)
    expect(pointsForVictory(BOSSES.DRAGON)).toBe(200)
  })
})
