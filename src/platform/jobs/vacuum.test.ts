import { expect, test, vi } from 'vitest'
import type { Database } from '../db/database.js'
import { dueFor, EMBEDDED_MAX_DEFER_MS, EMBEDDED_QUIET_MS, Vacuum, VACUUM_MIN_ROWS } from './vacuum.js'

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

test('on the embedded engine a timed run waits for a quiet moment, or half an hour; on PostgreSQL it never waits', () => {
  vi.useFakeTimers({ now: new Date('2026-11-25T10:00:00Z') })
  try {
    let quiet = 0
    const on = (kind: 'embedded' | 'postgres') => new Vacuum({ kind } as Database, ['s'], 'all', () => quiet).job
    const embedded = on('embedded')
    expect(embedded.due!()).toBe(false)
    expect(on('postgres').due!()).toBe(true)
    quiet = EMBEDDED_QUIET_MS
    expect(embedded.due!()).toBe(true)
    quiet = 0
    vi.advanceTimersByTime(EMBEDDED_MAX_DEFER_MS)
    expect(embedded.due!()).toBe(true)
  } finally {
    vi.useRealTimers()
  }
})
