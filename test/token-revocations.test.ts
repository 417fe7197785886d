/**
 * The revocation list shared through the database (platform.token_revocations): each process
 * keeps its own copy in memory and learns the others' revocations by polling. Here every
 * RevocationList on the one test database stands for a process of its own.
 */
import { randomUUID } from 'node:crypto'
import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, expect, inject, test, vi } from 'vitest'
import { POLL_WHILE_CHECKED_MS, RevocationList, REVOCATIONS_FRESH_MS } from '../src/platform/auth/revocations.js'
import { tokenRevocations } from '../src/platform/auth/tables.js'
import { ManualClock, systemClock } from '../src/platform/clock.js'
import { backend, openTestDatabase, type TestDatabase } from './support/backends.js'

let testDb: TestDatabase
beforeAll(async () => {
  testDb = await openTestDatabase(inject('templates'))
})
afterAll(() => testDb.drop())

const aProcess = () => new RevocationList(testDb.database, systemClock)
const inAnHour = () => Math.floor(Date.now() / 1000) + 3600

test('a revocation takes effect at once where it is made, and in another process at its next poll', async () => {
  const [edge, avatar] = [aProcess(), aProcess()]
  await avatar.poll()
  const tokenId = randomUUID()

  await edge.revoke(tokenId, inAnHour())
  expect(edge.isRevoked(tokenId)).toBe(true)
  expect(avatar.isRevoked(tokenId)).toBe(false)
  await avatar.poll()
  expect(avatar.isRevoked(tokenId)).toBe(true)
})

test('inside a transaction, a revocation counts from its commit, and a rolled-back one never', async () => {
  const [edge, avatar] = [aProcess(), aProcess()]
  const [kept, undone] = [randomUUID(), randomUUID()]
  await testDb.database.transaction(async () => {
    await edge.revoke(kept, inAnHour())
    expect(edge.isRevoked(kept)).toBe(false)
  })
  expect(edge.isRevoked(kept)).toBe(true)

  const rollback = new Error('rolled back')
  await expect(testDb.database.transaction(async () => {
    await edge.revoke(undone, inAnHour())
    throw rollback
  })).rejects.toBe(rollback)
  expect(edge.isRevoked(undone)).toBe(false)
  await avatar.poll()
  expect([avatar.isRevoked(kept), avatar.isRevoked(undone)]).toEqual([true, false])
})

test('a process starting later loads the revocations still live, not the expired ones', async () => {
  const edge = aProcess()
  const [live, expired] = [randomUUID(), randomUUID()]
  await edge.revoke(live, inAnHour())
  await edge.revoke(expired, Math.floor(Date.now() / 1000) - 1)

  const late = aProcess()
  await late.poll()
  expect(late.isRevoked(live)).toBe(true)
  expect(late.isRevoked(expired)).toBe(false)
})

// PGlite has one connection: two transactions cannot be open at once there.
test.skipIf(backend() === 'embedded')('a revocation whose transaction commits after a later one\'s is still learned', async () => {
  const [edge, avatar] = [aProcess(), aProcess()]
  await avatar.poll()
  const [early, late] = [randomUUID(), randomUUID()]
  let commitEarly!: () => void
  let written!: () => void
  const earlyWritten = new Promise<void>((resolve) => (written = resolve))
  const earlyTx = testDb.database.transaction(async () => {
    await edge.revoke(early, inAnHour()) // this transaction takes its id first
    written()
    await new Promise<void>((resolve) => (commitEarly = resolve))
  })
  await earlyWritten
  await edge.revoke(late, inAnHour()) // a later transaction, committed at once

  await avatar.poll()
  expect([avatar.isRevoked(early), avatar.isRevoked(late)]).toEqual([false, true])
  commitEarly()
  await earlyTx
  await avatar.poll()
  expect(avatar.isRevoked(early)).toBe(true)
})

// The embedded database's one process polls once a second whatever it does.
test.skipIf(backend() === 'embedded')('a process polls in the background while it checks tokens; idle, it reads first at its next check', async () => {
  const avatar = aProcess()
  await avatar.start()
  const polls = vi.spyOn(avatar, 'poll')
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
  try {
    for (let i = 0; i < 20; i++) { // checked every 100 ms for two seconds: polled about every 250 ms
      await avatar.current()
      await sleep(100)
    }
    expect(polls.mock.calls.length).toBeGreaterThanOrEqual(4)
    await sleep(POLL_WHILE_CHECKED_MS + 300) // the window after the last check closes
    polls.mockClear()
    await sleep(REVOCATIONS_FRESH_MS + 300) // unchecked: nothing is read, and the view grows old
    expect(polls).not.toHaveBeenCalled()
    const caughtUp = avatar.current()
    expect(caughtUp).toBeInstanceOf(Promise)
    await caughtUp
    expect(polls).toHaveBeenCalledTimes(1)
    expect(avatar.current()).toBeUndefined()
  } finally {
    await avatar.close()
  }
})

test('expired revocations are pruned from the table and from memory', async () => {
  const own = await openTestDatabase(inject('templates')) // the prune would reach other tests' rows
  try {
    const clock = new ManualClock(new Date())
    const list = new RevocationList(own.database, clock)
    const nowSeconds = Math.floor(clock.now().getTime() / 1000)
    const [soon, later] = [randomUUID(), randomUUID()]
    await list.revoke(soon, nowSeconds + 60)
    await list.revoke(later, nowSeconds + 7200)
    await list.poll() // the first poll prunes nothing yet: both live

    clock.advance(3600_000) // `soon` has expired, `later` has not; a prune is due
    await list.poll()
    const rows = await own.database.db.select({ tokenId: tokenRevocations.tokenId }).from(tokenRevocations)
    expect(rows.map((r) => r.tokenId)).toEqual([later])
    expect([list.isRevoked(soon), list.isRevoked(later)]).toEqual([false, true])
    expect(await own.database.db.select().from(tokenRevocations).where(eq(tokenRevocations.tokenId, soon))).toEqual([])
  } finally {
    await own.drop()
  }
})
