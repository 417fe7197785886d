import fc from 'fast-check'
import { expect, test } from 'vitest'
import { grantExperience, newAvatar } from './avatar.js'
import { totalExperience, windowAround, windowAtTop } from './experience-board.js'
import { experienceRequired } from './rules.js'

const fresh = () => newAvatar({ id: 'a1', ownerId: 'o', name: 'A', inventoryId: 'i', equipmentId: 'e' })

test('total experience sums the thresholds of the levels left and the experience within the level', () => {
  expect(totalExperience(1, 0)).toBe(0)
  expect(totalExperience(1, 99)).toBe(99)
  expect(totalExperience(2, 0)).toBe(100)
  expect(totalExperience(3, 10)).toBe(100 + 150 + 10)
  let summed = 0
  for (let level = 1; level < 40; level++) summed += experienceRequired(level)
  expect(totalExperience(40, 7)).toBe(summed + 7)
})

test('experience granted in any steps adds exactly that much to the total', () => {
  fc.assert(fc.property(fc.array(fc.integer({ min: 1, max: 5000 }), { maxLength: 20 }), (grants) => {
    const grown = grants.reduce((a, amount) => grantExperience(a, amount).avatar, fresh())
    expect(totalExperience(grown.level, grown.experience)).toBe(grants.reduce((s, g) => s + g, 0))
  }), { numRuns: 50 })
})

test('a page around a rank is centred, clipped at both ends, and never larger than the board', () => {
  expect(windowAround(50, 100, 11)).toEqual({ first: 45, last: 55 })
  expect(windowAround(1, 100, 11)).toEqual({ first: 1, last: 11 })
  expect(windowAround(3, 100, 11)).toEqual({ first: 1, last: 11 })
  expect(windowAround(100, 100, 11)).toEqual({ first: 90, last: 100 })
  expect(windowAround(97, 100, 11)).toEqual({ first: 90, last: 100 })
  expect(windowAround(2, 3, 11)).toEqual({ first: 1, last: 3 })
  expect(windowAround(5, 100, 4)).toEqual({ first: 4, last: 7 })
  expect(windowAround(1, 1, 1)).toEqual({ first: 1, last: 1 })
})

test('every page around a rank holds the rank and min(limit, total) entries', () => {
  fc.assert(fc.property(fc.integer({ min: 1, max: 300 }), fc.integer({ min: 1, max: 101 }), fc.nat(), (total, limit, seed) => {
    const rank = 1 + (seed % total)
    const w = windowAround(rank, total, limit)
    expect(w.last - w.first + 1).toBe(Math.min(limit, total))
    expect(w.first).toBeGreaterThanOrEqual(1)
    expect(w.last).toBeLessThanOrEqual(total)
    expect(rank).toBeGreaterThanOrEqual(w.first)
    expect(rank).toBeLessThanOrEqual(w.last)
  }), { numRuns: 200 })
})

test('the top page holds the first ranks', () => {
  expect(windowAtTop(0, 11)).toEqual({ first: 1, last: 0 })
  expect(windowAtTop(5, 11)).toEqual({ first: 1, last: 5 })
  expect(windowAtTop(500, 11)).toEqual({ first: 1, last: 11 })
})
