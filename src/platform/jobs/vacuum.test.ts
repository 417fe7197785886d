import { expect, test, vi } from 'vitest'
import type { Database } from '../db/database.js'
import { dueFor, EMBEDDED_LOAD_BUDGET_MS, EMBEDDED_MAX_DEFER_MS, EMBEDDED_QUIET_MS, Vacuum, VACUUM_MIN_ROWS } from './vacuum.js'

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

test('on the embedded engine a timed run waits for a quiet moment, or EMBEDDED_MAX_DEFER_MS; on PostgreSQL it never waits', () => {
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

test('under load on the embedded engine a run vacuums the deadest tables first while within its time budget, until none is due', async () => {
  vi.useFakeTimers({ now: new Date('2026-11-25T10:00:00Z') })
  try {
    const dead = new Map([['s.a', 5_000], ['s.b', 3_000], ['s.c', 2_000]])
    // Each pass takes 60 % of the budget: a run under load starts a second pass, never a third.
    const passMs = EMBEDDED_LOAD_BUDGET_MS * 0.6
    const statements: string[] = []
    const execute = async (query: { queryChunks?: unknown[] } & object) => {
      const text = JSON.stringify(query)
      const vacuumed = /vacuum \(analyze\) \\"s\\"\.\\"(\w)\\"/.exec(text)?.[1]
      if (vacuumed) {
        statements.push(vacuumed)
        dead.set(`s.${vacuumed}`, 0)
        vi.advanceTimersByTime(passMs)
        return { rows: [] }
      }
      const rows = [...dead].sort((x, y) => y[1] - x[1]).map(([table, n]) => ({ table, quoted: `"s"."${table.slice(2)}"`, live: 100, dead: n, changed: 0 }))
      return { rows }
    }
    const vacuum = new Vacuum({ kind: 'embedded', db: { execute } } as unknown as Database, ['s'], 'all', () => 0)
    const timedRun = async () => {
      if (vacuum.job.due!()) await vacuum.job.run()
    }
    await timedRun()
    expect(statements).toEqual([])
    vi.advanceTimersByTime(EMBEDDED_MAX_DEFER_MS)
    await timedRun()
    expect(statements).toEqual(['a', 'b'])
    for (let i = 0; i < 3; i++) await timedRun()
    expect(statements).toEqual(['a', 'b', 'c'])
    // All done: the next run under load waits for the deferral limit again.
    dead.set('s.a', 9_000)
    await timedRun()
    expect(statements).toEqual(['a', 'b', 'c'])
    // A manual run (not let through by `due`) does every due table at once.
    dead.set('s.b', 9_000)
    await vacuum.job.run()
    expect(statements).toEqual(['a', 'b', 'c', 'a', 'b'])
  } finally {
    vi.useRealTimers()
  }
})
