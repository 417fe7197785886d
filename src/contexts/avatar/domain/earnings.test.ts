import fc from 'fast-check'
import { expect, test } from 'vitest'
import { earnMoney, grantExperience, newAvatar, spendMoney, takeDamage, type Avatar } from './avatar.js'
import { earnedBetween, earningsBucket, lifetimeExperience } from './earnings.js'

const fresh = (): Avatar => newAvatar({ id: 'a', ownerId: 'o', name: 'N', inventoryId: 'i', equipmentId: 'e' })

test('experience gathered counts the levels left: level 3 with 10 in it is 100 + 150 + 10', () => {
  expect(lifetimeExperience({ level: 1, experience: 0 })).toBe(0)
  expect(lifetimeExperience({ level: 3, experience: 10 })).toBe(260)
})

test('a grant over two levels earned all its experience, and the levels\' money (20 each)', () => {
  const before = fresh() // level 1, 100 money
  const after = grantExperience(before, 260).avatar
  expect(after.level).toBe(3)
  expect(earnedBetween(before, after)).toEqual({ experience: 260, money: 40 })
})

test('spending and dying earn nothing, and take nothing back', () => {
  const rich = earnMoney({ ...fresh(), experience: 80 }, 900) // 1,000 money
  expect(earnedBetween(fresh(), rich)).toEqual({ experience: 80, money: 900 })
  expect(earnedBetween(rich, spendMoney(rich, 300))).toEqual({ experience: 0, money: 0 })
  const dead = takeDamage(rich, 1000)
  expect(dead.died).toBe(true)
  expect(earnedBetween(rich, dead.avatar)).toEqual({ experience: 0, money: 0 })
})

test('whatever the level, a grant of n earns exactly n experience', () => {
  fc.assert(fc.property(fc.integer({ min: 1, max: 60 }), fc.integer({ min: 0, max: 40 }), fc.integer({ min: 1, max: 1_000_000 }), (level, into, n) => {
    const a = { ...fresh(), level, experience: into }
    expect(earnedBetween(a, grantExperience(a, n).avatar).experience).toBe(n)
  }))
})

test('earnings are kept by quarter hour', () => {
  expect(earningsBucket(new Date('2026-03-02T10:14:59.999Z'))).toEqual(new Date('2026-03-02T10:00:00Z'))
  expect(earningsBucket(new Date('2026-03-02T10:15:00Z'))).toEqual(new Date('2026-03-02T10:15:00Z'))
  expect(earningsBucket(new Date('2026-03-02T10:59:00Z'))).toEqual(new Date('2026-03-02T10:45:00Z'))
})
