/**
 * The avatar's rules (DESIGN §6): a new avatar, experience and levels, spells, rewards, the wallet,
 * damage and death, healing, mana and stats.
 */
import { describe, expect, test } from 'vitest'
import {
  checkNewAvatar, earnMoney, equip, grantExperience, heal, increaseStat, receiveReward, restoreMana, spellsKnownAt, spendMana, spendMoney,
  takeDamage, type Avatar,
} from './avatar.js'
import { InsufficientFunds, InsufficientMana, NoStatPoints, ReservedAvatarId, TooManyAvatars, WalletFull } from './errors.js'
import { experienceRequired } from './rules.js'
import { fresh, potion, sword, withItems } from './test-avatars.js'

// Every expected number below is worked out by hand from DESIGN §6; none is read from rules.ts.

/** An avatar at the given level with no experience in it (max health and mana as if it had grown there). */
const atLevel = (level: number, maxHealth: number, maxMana: number): Avatar =>
  ({ ...fresh(), level, experience: 0, maxHealth, health: maxHealth, maxMana, mana: maxMana })

describe('a new avatar', () => {
  test('starts at level 1 with the starting values and nothing owned', () => {
    expect(fresh()).toEqual({
      id: 'a', ownerId: 'o', name: 'N', inventoryId: 'i', equipmentId: 'e',
      level: 1, experience: 0, health: 100, maxHealth: 100, mana: 50, maxMana: 50, money: 100,
      strength: 10, defense: 10, intelligence: 10, unspentPoints: 5, inventory: [], equipped: [],
      streakFreezes: 0, missedDamage: {}, deaths: 0, timeZone: 'UTC', version: 0,
    })
  })

  test('knows no spells', () => {
    expect(spellsKnownAt(fresh().level)).toEqual([])
  })

  test('a reserved word is no avatar id', () => {
    expect(() => checkNewAvatar('search', 0)).toThrow(ReservedAvatarId)
  })
  test('a player has the registration avatar and at most 10 more', () => {
    expect(() => checkNewAvatar('hero-2', 10)).not.toThrow()
    expect(() => checkNewAvatar('hero-12', 11)).toThrow(TooManyAvatars)
  })
})

describe('experience and levels', () => {
  test('leaving a level needs 100, 150, 200, … (50·L + 50)', () => {
    expect(experienceRequired(1)).toBe(100)
    expect(experienceRequired(2)).toBe(150)
    expect(experienceRequired(3)).toBe(200)
    expect(experienceRequired(4)).toBe(250)
    expect(experienceRequired(10)).toBe(550) // 500 + 50
    expect(experienceRequired(15)).toBe(800) // 750 + 50
  })

  test('a grant short of the next level changes only experience', () => {
    const hurt = { ...fresh(), health: 40, mana: 5 }
    const g = grantExperience(hurt, 99)
    expect(g).toEqual({ avatar: { ...hurt, experience: 99 }, levelsGained: 0, spellsLearned: [] })
  })

  test('experience already held counts towards the next level', () => {
    // level 2 needs 150: 140 + 9 = 149 stays, 140 + 10 = 150 leaves it with 0 over
    const a = { ...atLevel(2, 110, 55), experience: 140 }
    expect(grantExperience(a, 9).avatar).toMatchObject({ level: 2, experience: 149 })
    expect(grantExperience(a, 10).avatar).toMatchObject({ level: 3, experience: 0 })
  })

  test('exactly enough for one level: level 2 with its reward', () => {
    const hurt = { ...fresh(), health: 40, mana: 5 }
    const g = grantExperience(hurt, 100)
    expect(g.levelsGained).toBe(1)
    expect(g.spellsLearned).toEqual([])
    // max health 100 + 10, max mana 50 + 5, both refilled; points 5 + 1; money 100 + 20
    expect(g.avatar).toEqual({
      ...hurt, level: 2, experience: 0, maxHealth: 110, health: 110, maxMana: 55, mana: 55, unspentPoints: 6, money: 120,
    })
  })

  test('one grant can raise two levels and carries the rest over', () => {
    // leaving level 1 needs 100, level 2 needs 150: 260 = 100 + 150 + 10
    const g = grantExperience({ ...fresh(), health: 1, mana: 0 }, 260)
    expect(g.levelsGained).toBe(2)
    // two rewards: max health 100 + 20, max mana 50 + 10, points 5 + 2, money 100 + 40
    expect(g.avatar).toMatchObject({
      level: 3, experience: 10, maxHealth: 120, health: 120, maxMana: 60, mana: 60, unspentPoints: 7, money: 140,
    })
  })

  test('three levels: one short of the third stays two, exactly the third is three', () => {
    // 100 + 150 + 200 = 450 to reach level 4
    expect(grantExperience(fresh(), 449)).toMatchObject({ levelsGained: 2, avatar: { level: 3, experience: 199 } }) // 449 − 250
    const g = grantExperience(fresh(), 450)
    expect(g.levelsGained).toBe(3)
    // max health 100 + 30, max mana 50 + 15, points 5 + 3, money 100 + 60
    expect(g.avatar).toMatchObject({
      level: 4, experience: 0, maxHealth: 130, health: 130, maxMana: 65, mana: 65, unspentPoints: 8, money: 160,
    })
  })

  test('levelling up leaves stats, inventory and equipment alone', () => {
    const a = { ...equip(withItems(fresh(), sword, potion), { name: 'Sword' }), strength: 14 }
    const g = grantExperience(a, 100)
    expect(g.avatar).toMatchObject({ strength: 14, defense: 10, intelligence: 10, inventory: [potion], equipped: [sword] })
  })

  test('the level-up money stops at the wallet limit', () => {
    // 1,000,000,000,000 − 5 + 20 would pass the limit
    const g = grantExperience({ ...fresh(), money: 999_999_999_995 }, 100)
    expect(g.avatar.money).toBe(1_000_000_000_000)
  })

  test('the avatar given is not changed', () => {
    const a = fresh()
    grantExperience(a, 260)
    expect(a).toEqual(fresh())
  })
})

describe('spells', () => {
  test('Fireball is learned on reaching level 5, not before', () => {
    // leaving level 4 needs 250
    const four = atLevel(4, 130, 65)
    expect(grantExperience(four, 249).spellsLearned).toEqual([])
    expect(grantExperience(four, 250)).toMatchObject({ levelsGained: 1, spellsLearned: ['Fireball'], avatar: { level: 5 } })
  })

  test('from level 1, 700 experience reaches level 5 and Fireball', () => {
    // 100 + 150 + 200 + 250 = 700
    expect(grantExperience(fresh(), 700)).toMatchObject({ levelsGained: 4, spellsLearned: ['Fireball'], avatar: { level: 5 } })
  })

  test('Blizzard at level 10 and Thunder at level 15, without learning Fireball again', () => {
    // leaving level 9 needs 500; leaving level 14 needs 750
    expect(grantExperience(atLevel(9, 180, 90), 500).spellsLearned).toEqual(['Blizzard'])
    expect(grantExperience(atLevel(14, 230, 115), 750).spellsLearned).toEqual(['Thunder'])
    // level 5 → 10 leaves levels 5…9: 300 + 350 + 400 + 450 + 500 = 2000; Fireball is already known
    expect(grantExperience(atLevel(5, 140, 70), 2000)).toMatchObject({ levelsGained: 5, spellsLearned: ['Blizzard'] })
  })

  test('a jump from level 4 to 16 learns all three, with twelve rewards', () => {
    // leaving levels 4…15 needs 250 + 300 + 350 + 400 + 450 + 500 + 550 + 600 + 650 + 700 + 750 + 800 = 6300
    const g = grantExperience(atLevel(4, 130, 65), 6300)
    expect(g.levelsGained).toBe(12)
    expect(g.spellsLearned).toEqual(['Fireball', 'Blizzard', 'Thunder'])
    // max health 130 + 120, max mana 65 + 60, points 5 + 12, money 100 + 240
    expect(g.avatar).toMatchObject({
      level: 16, experience: 0, maxHealth: 250, health: 250, maxMana: 125, mana: 125, unspentPoints: 17, money: 340,
    })
  })

  test('the spellbook: Fireball 5 mana, power 10; Blizzard 7, 15; Thunder 10, 20', () => {
    const brief = (level: number) => spellsKnownAt(level).map(({ name, manaCost, power, requiredLevel }) => ({ name, manaCost, power, requiredLevel }))
    expect(brief(4)).toEqual([])
    expect(brief(9)).toEqual([{ name: 'Fireball', manaCost: 5, power: 10, requiredLevel: 5 }])
    expect(brief(15)).toEqual([
      { name: 'Fireball', manaCost: 5, power: 10, requiredLevel: 5 },
      { name: 'Blizzard', manaCost: 7, power: 15, requiredLevel: 10 },
      { name: 'Thunder', manaCost: 10, power: 20, requiredLevel: 15 },
    ])
    for (const s of spellsKnownAt(15)) expect(s.description).not.toBe('')
  })

  test('past level 15 there is nothing more to learn', () => {
    // leaving level 16 needs 850
    expect(grantExperience(atLevel(16, 250, 125), 850)).toMatchObject({ levelsGained: 1, spellsLearned: [] })
  })
})

describe('rewards from play', () => {
  test('pay money and experience together', () => {
    // 100 + 30 money, then level 2 brings 20 more: 150
    const g = receiveReward(fresh(), { experience: 100, money: 30 })
    expect(g).toMatchObject({ levelsGained: 1, avatar: { level: 2, experience: 0, money: 150 } })
  })

  test('a reward without experience pays only money', () => {
    expect(receiveReward(fresh(), { experience: 0, money: 7 })).toEqual({
      avatar: { ...fresh(), money: 107 }, levelsGained: 0, spellsLearned: [],
    })
  })

  test('never fail, even with a full wallet', () => {
    const rich = { ...fresh(), money: 999_999_999_999 }
    expect(receiveReward(rich, { experience: 10, money: 2 }).avatar).toMatchObject({ money: 1_000_000_000_000, experience: 10 })
  })
})

describe('wallet', () => {
  test('earning adds to the money held', () => {
    expect(earnMoney(fresh(), 25).money).toBe(125)
    expect(earnMoney(earnMoney(fresh(), 1), 1_000_000).money).toBe(1_000_101)
  })

  test('spending takes from it, down to exactly nothing', () => {
    expect(spendMoney(fresh(), 40).money).toBe(60)
    expect(spendMoney(fresh(), 100).money).toBe(0)
  })

  test('spending more than held is refused and changes nothing', () => {
    const a = fresh()
    expect(() => spendMoney(a, 101)).toThrow(InsufficientFunds)
    expect(() => spendMoney({ ...a, money: 0 }, 1)).toThrow(InsufficientFunds)
    expect(a.money).toBe(100)
  })

  test('the wallet holds up to 1,000,000,000,000 and no more', () => {
    const nearlyFull = { ...fresh(), money: 999_999_999_990 }
    expect(earnMoney(nearlyFull, 10).money).toBe(1_000_000_000_000)
    expect(() => earnMoney(nearlyFull, 11)).toThrow(WalletFull)
    expect(() => earnMoney({ ...fresh(), money: 1_000_000_000_000 }, 1)).toThrow(WalletFull)
    expect(nearlyFull.money).toBe(999_999_999_990)
  })

  test('earning and spending do not change the avatar given', () => {
    const a = fresh()
    earnMoney(a, 5)
    spendMoney(a, 5)
    expect(a).toEqual(fresh())
  })
})

describe('damage and death', () => {
  test('damage short of death lowers health only', () => {
    expect(takeDamage(fresh(), 30)).toEqual({ avatar: { ...fresh(), health: 70 }, died: false, moneyLost: 0 })
    expect(takeDamage(fresh(), 99)).toMatchObject({ died: false, avatar: { health: 1 } })
  })

  test('damage 0 changes nothing', () => {
    expect(takeDamage(fresh(), 0)).toEqual({ avatar: fresh(), died: false, moneyLost: 0 })
  })

  const wounded: Avatar = {
    ...fresh(), level: 4, experience: 120, money: 155, health: 30, maxHealth: 130, mana: 3, maxMana: 65,
    strength: 13, unspentPoints: 2,
  }

  test('health exactly 0 is death: level experience and a tenth of the money lost, then full again, one more death counted', () => {
    const hurt = takeDamage(wounded, 30)
    // 155 − floor(155 / 10) = 155 − 15 = 140
    expect(hurt).toEqual({
      died: true,
      moneyLost: 15,
      avatar: { ...wounded, level: 4, experience: 0, money: 140, health: 130, mana: 65, deaths: wounded.deaths + 1 },
    })
  })

  test('damage beyond the health left is the same death', () => {
    const hurt = takeDamage(wounded, 1_000_000)
    expect(hurt).toMatchObject({ died: true, moneyLost: 15, avatar: { level: 4, experience: 0, money: 140, health: 130, mana: 65 } })
  })

  test('one short of death is not death', () => {
    expect(takeDamage(wounded, 29)).toMatchObject({ died: false, moneyLost: 0, avatar: { health: 1, experience: 120, money: 155, mana: 3 } })
  })

  test('the money lost rounds down', () => {
    const die = (money: number) => takeDamage({ ...fresh(), health: 1, money }, 1)
    expect(die(100)).toMatchObject({ moneyLost: 10, avatar: { money: 90 } })
    expect(die(19)).toMatchObject({ moneyLost: 1, avatar: { money: 18 } }) // floor(1.9) = 1
    expect(die(9)).toMatchObject({ moneyLost: 0, avatar: { money: 9 } }) // floor(0.9) = 0
    expect(die(0)).toMatchObject({ moneyLost: 0, avatar: { money: 0 } })
  })
})

describe('healing and mana', () => {
  test('heal adds health and stops at the maximum', () => {
    expect(heal({ ...fresh(), health: 60 }, 30).health).toBe(90)
    expect(heal({ ...fresh(), health: 90 }, 10).health).toBe(100)
    expect(heal({ ...fresh(), health: 90 }, 50).health).toBe(100)
    expect(heal({ ...fresh(), health: 90, maxHealth: 120 }, 50).health).toBe(120)
  })

  test('restore adds mana and stops at the maximum', () => {
    expect(restoreMana({ ...fresh(), mana: 20 }, 15).mana).toBe(35)
    expect(restoreMana({ ...fresh(), mana: 45 }, 50).mana).toBe(50)
    expect(restoreMana({ ...fresh(), mana: 45, maxMana: 60 }, 50).mana).toBe(60)
  })

  test('mana is spent down to zero and no further', () => {
    expect(spendMana(fresh(), 20).mana).toBe(30)
    expect(spendMana(fresh(), 50).mana).toBe(0)
    const a = { ...fresh(), mana: 4 }
    expect(() => spendMana(a, 5)).toThrow(InsufficientMana)
    expect(a.mana).toBe(4)
  })
})

describe('stats', () => {
  test('a point raises the chosen stat by one', () => {
    expect(increaseStat(fresh(), 'strength')).toEqual({ ...fresh(), strength: 11, unspentPoints: 4 })
    expect(increaseStat(fresh(), 'defense')).toEqual({ ...fresh(), defense: 11, unspentPoints: 4 })
    expect(increaseStat(fresh(), 'intelligence')).toEqual({ ...fresh(), intelligence: 11, unspentPoints: 4 })
  })

  test('the five starting points raise a stat five times, then none is left', () => {
    let a = fresh()
    for (let i = 0; i < 5; i++) a = increaseStat(a, 'strength')
    expect(a).toMatchObject({ strength: 15, unspentPoints: 0 })
    expect(() => increaseStat(a, 'defense')).toThrow(NoStatPoints)
    expect(a.defense).toBe(10)
  })
})
