import { expect, test } from 'vitest'
import { dueFor, VACUUM_MIN_ROWS } from './vacuum.js'

const table = (live: number, dead: number, changedSinceAnalyze = 0) => ({ table: 's.t', quoted: '"s"."t"', live, dead, changedSinceAnalyze })

test('a table is due once its dead rows reach the floor and a tenth of its live rows', () => {
  expect(dueFor(table(0, VACUUM_MIN_ROWS - 1))).toBeUndefined()
  expect(dueFor(table(0, VACUUM_MIN_ROWS))).toBe('vacuum')
  // A big table is not walked again for a few dead rows.
  expect(dueFor(table(1_000_000, 99_999))).toBeUndefined()
  expect(dueFor(table(1_000_000, 100_000))).toBe('vacuum')
})

test('a table that only grew gets fresh statistics, not a vacuum: it has nothing to clear', () => {
  expect(dueFor(table(500, 0, VACUUM_MIN_ROWS))).toBe('analyze')
  expect(dueFor(table(50_000, 0, 4_999))).toBeUndefined()
  // Dead rows decide: the vacuum analyzes too.
  expect(dueFor(table(500, VACUUM_MIN_ROWS, VACUUM_MIN_ROWS))).toBe('vacuum')
})
