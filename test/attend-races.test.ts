/**
 * Attends batched per habit and written with a guard on each habit's version (DESIGN §9.1): two
 * processes attending the same habits at once. Each HabitCommands on the one test database stands
 * for a process of its own; a habit whose write lost the race has its attends decided again on
 * fresh state, and the answers of its other habits stand.
 */
import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, expect, inject, test } from 'vitest'
import type { AvatarClient } from '../src/contexts/avatar/client.js'
import { HabitCommands } from '../src/contexts/tracking/app/habit-commands.js'
import { HabitQueries } from '../src/contexts/tracking/app/habit-queries.js'
import { outbox as outboxTable } from '../src/contexts/tracking/store/tables.js'
import { ManualClock } from '../src/platform/clock.js'
import type { Principal } from '../src/platform/auth/principal.js'
import { Outbox } from '../src/platform/events/outbox.js'
import { NotFound } from '../src/platform/errors.js'
import { AggregateWriter } from '../src/platform/writer/writer.js'
import type { TrackingDraft } from '../src/contracts/events/tracking.js'
import type { Habit } from '../src/contexts/tracking/domain/habit.js'
import { habitAggregate } from '../src/contexts/tracking/store/habit-aggregate.js'
import { openTestDatabase, type TestDatabase } from './support/backends.js'

let testDb: TestDatabase
beforeAll(async () => {
  testDb = await openTestDatabase(inject('templates'))
})
afterAll(() => testDb.drop())

const clock = new ManualClock(new Date('2026-03-02T08:00:00Z'))
const player: Principal = { userId: randomUUID(), role: 'player', tokenId: 't', expiresAt: Number.MAX_SAFE_INTEGER }
const avatars = { ownerOf: async () => player.userId } as unknown as AvatarClient
function aProcess(): HabitCommands {
  const outbox = new Outbox('tracking', outboxTable, clock, testDb.database)
  const habits = new AggregateWriter<Habit, TrackingDraft>(habitAggregate(outbox), { database: testDb.database, clock, missing: (id) => new NotFound('Habit', id) })
  return new HabitCommands({ database: testDb.database, clock, avatars, outbox, habits })
}
const answer = (p: Promise<void>) => p.then(() => 'attended', (e: Error & { type?: string }) => e.constructor.name)

test('two processes attend the same habits at once: each window is completed once, and every attend is answered', async () => {
  const [one, two] = [aProcess(), aProcess()]
  const habits = await Promise.all(Array.from({ length: 10 }, (_, i) => one.create(player, { avatarId: 'hero', title: `h${i}`, recurrence: { type: 'DAILY' } })))
  const ids = habits.map((h) => h.id)
  // Both processes attend all ten in one burst each; process two also attends a habit of its own.
  const own = (await two.create(player, { avatarId: 'hero', title: 'own', recurrence: { type: 'DAILY' } })).id
  const [first, second, ownAnswer] = await Promise.all([
    Promise.all(ids.map((id) => answer(one.attend(player, id, '2026-03-02T09:00:00')))),
    Promise.all(ids.map((id) => answer(two.attend(player, id, '2026-03-02T09:30:00')))),
    answer(two.attend(player, own, '2026-03-02T09:30:00')),
  ])
  ids.forEach((_, i) => expect([first[i], second[i]].sort()).toEqual(['WindowAlreadyCompleted', 'attended']))
  expect(ownAnswer).toBe('attended')
  const reads = new HabitQueries({ database: testDb.database, clock, avatars })
  for (const id of [...ids, own]) {
    expect(await reads.completionHistory(player, id)).toHaveLength(1)
    expect((await reads.get(player, id)).habit).toMatchObject({ streak: 1, version: 2 })
  }
})
