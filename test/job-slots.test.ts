import { afterAll, beforeAll, expect, inject, test } from 'vitest'
import { JobSlots } from '../src/platform/jobs/job-slots.js'
import type { Job } from '../src/platform/jobs/scheduler.js'
import { openTestDatabase, type TestDatabase } from './support/backends.js'

let testDb: TestDatabase
beforeAll(async () => {
  testDb = await openTestDatabase(inject('templates'))
})
afterAll(() => testDb.drop())

const job = (name: string, everyMs: number): Job => ({ name, everyMs, run: async () => {} })

test('replicas claiming one period of a job at once: exactly one runs it', async () => {
  // Three replicas, each with its own JobSlots over the shared database.
  const replicas = [new JobSlots(testDb.database), new JobSlots(testDb.database), new JobSlots(testDb.database)]
  const hourly = job('test.hourly', 3_600_000)
  const claims = await Promise.all(replicas.flatMap((r) => [r.claim(hourly), r.claim(hourly)]))
  expect(claims.filter(Boolean)).toHaveLength(1)
  // Another job has periods of its own.
  expect(await replicas[0]!.claim(job('test.other', 3_600_000))).toBe(true)
})

test('the next period can be claimed again', async () => {
  const slots = new JobSlots(testDb.database)
  const fast = job('test.fast', 50)
  expect(await slots.claim(fast)).toBe(true)
  await new Promise((r) => setTimeout(r, 120))
  expect(await slots.claim(fast)).toBe(true)
})

test('a job with a scope shares its periods only with replicas of the same scope', async () => {
  const slots = new JobSlots(testDb.database)
  const of = (scope: string): Job => ({ ...job('test.scoped', 3_600_000), scope })
  // Two processes serving different contexts each run their own period of the platform job.
  expect(await slots.claim(of('avatar'))).toBe(true)
  expect(await slots.claim(of('tracking'))).toBe(true)
  // A second replica of the avatar process skips it.
  expect(await new JobSlots(testDb.database).claim(of('avatar'))).toBe(false)
})
