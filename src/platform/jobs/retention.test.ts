import { expect, test } from 'vitest'
import { horizonsAt, Retention, type PruneRule } from './retention.js'

const now = new Date('2026-03-10T12:00:00Z')

test('finished rows go after the retention period; delivery records too when nothing older waits to be published', () => {
  expect(horizonsAt(now, 7, undefined)).toEqual({
    now,
    retention: new Date('2026-03-03T12:00:00Z'),
    deliveries: new Date('2026-03-03T12:00:00Z'),
    // Published events are kept for minutes, whatever the retention period.
    published: new Date('2026-03-10T11:59:00Z'),
  })
  // An event still unpublished, but younger than the retention period, changes nothing.
  expect(horizonsAt(now, 7, new Date('2026-03-09T00:00:00Z')).deliveries).toEqual(new Date('2026-03-03T12:00:00Z'))
})

test('an older event still unpublished holds back the delivery records made since it occurred', () => {
  const h = horizonsAt(now, 1, new Date('2026-03-01T08:30:00Z'))
  expect(h.retention).toEqual(new Date('2026-03-09T12:00:00Z'))
  expect(h.deliveries).toEqual(new Date('2026-03-01T08:30:00Z'))
})

test('a run deletes batch after batch until one comes back short, at most 100 of 1,000; a failing table does not stop the others', async () => {
  const left = new Map([['a.some', 2_500], ['c.few', 3], ['d.backlog', 150_000]])
  const table = (name: string): PruneRule => ({
    table: name,
    pruneSome: async (_h, limit) => {
      const n = Math.min(limit, left.get(name)!)
      left.set(name, left.get(name)! - n)
      return n
    },
  })
  const broken: PruneRule = { table: 'b.broken', pruneSome: () => Promise.reject(new Error('relation "b.broken" does not exist')) }
  const retention = new Retention({
    clock: { now: () => now }, retentionDays: 7, scope: 'test', oldestUnpublished: async () => undefined,
    rules: [table('a.some'), broken, table('c.few'), table('d.backlog')],
  })
  await expect(retention.run()).rejects.toThrow('pruning failed for b.broken')
  // The backlog's rest waits for the next run.
  expect(Object.fromEntries(left)).toEqual({ 'a.some': 0, 'c.few': 0, 'd.backlog': 50_000 })
})
