import { expect, test } from 'vitest'
import { isDue, VACUUM_MIN_ROWS } from './vacuum.js'

const table = (live: number, dead: number, changedSinceAnalyze = 0) => ({ table: 's.t', quoted: '"s"."t"', live, dead, changedSinceAnalyze })

test('a table is due once its dead rows reach the floor and a tenth of its live rows', () => {
  expect(isDue(table(0, VACUUM_MIN_ROWS - 1))).toBe(false)
  expect(isDue(table(0, VACUUM_MIN_ROWS))).toBe(true)
  // A big table is not walked again for a few dead rows.
  expect(isDue(table(1_000_000, 99_999))).toBe(false)
  expect(isDue(table(1_000_000, 100_000))).toBe(true)
})

test('a table that only grew is due for its statistics: the planner would plan by stale ones', () => {
  expect(isDue(table(500, 0, VACUUM_MIN_ROWS))).toBe(true)
  expect(isDue(table(50_000, 0, 4_999))).toBe(false)
})
