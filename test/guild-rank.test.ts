/**
 * The rank tallies against a plain count: guilds spread over many points buckets, big ties and
 * more than one creation block, changed by the same writer and repository calls the use cases make;
 * and points, which change without the guild's version, never written back by a membership change.
 */
import { afterAll, beforeAll, expect, test } from 'vitest'
import { inject } from 'vitest'
import { randomUUID } from 'node:crypto'
import { foundingColumns, guildAggregate, type VersionedGuild } from '../src/contexts/guild/store/guild-aggregate.js'
import { guildRepo } from '../src/contexts/guild/store/guilds.js'
import { outbox as outboxTable } from '../src/contexts/guild/store/tables.js'
import { systemClock } from '../src/platform/clock.js'
import { NotFound } from '../src/platform/errors.js'
import { Outbox } from '../src/platform/events/outbox.js'
import { AggregateWriter } from '../src/platform/writer/writer.js'
import { openTestDatabase, type TestDatabase } from './support/backends.js'

let testDb: TestDatabase
beforeAll(async () => {
  testDb = await openTestDatabase(inject('templates'))
})
afterAll(() => testDb.drop())

/** The platform writer of guilds, as the guild app builds it. */
const guildWriter = () => new AggregateWriter<VersionedGuild>(guildAggregate(new Outbox('guild', outboxTable, systemClock, testDb.database)), {
  database: testDb.database, clock: systemClock, missing: (id) => new NotFound('Guild', id),
})

/** A small deterministic generator, so a failure can be replayed. */
function random(seed: number) {
  let s = seed
  return () => ((s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31)
}

test('rank from the tallies equals counting every guild ahead', async () => {
  const db = testDb.database
  const writer = guildWriter()
  const next = random(42)
  const ids: string[] = []
  // 1,100 guilds: more than one creation block; points in 0–450 cross several buckets; most end on few values (ties).
  await db.transaction(async (tx) => {
    for (let i = 0; i < 1100; i++) {
      const id = randomUUID()
      ids.push(id)
      const guild = { id, name: `Rank ${i} ${id}`, points: 0, createdAt: new Date(), members: [{ avatarId: `rank-${id}`, nickname: 'n', role: 'LEADER' as const, joinedAt: new Date() }] }
      await writer.insert(tx, { id, version: 0 }, [], foundingColumns(guild))
      await guildRepo.founded(tx, guild)
    }
  })
  await db.transaction(async (tx) => {
    for (const id of ids) {
      const r = next()
      const points = r < 0.3 ? 0 : r < 0.5 ? 7 : Math.floor(next() * 450)
      // Several steps, as habit completions and battle wins would add them.
      for (let left = points; left > 0;) {
        const step = Math.min(left, 1 + Math.floor(next() * 250))
        await guildRepo.addPoints(tx, id, step)
        left -= step
      }
    }
    // Deleting guilds takes them out of the tallies.
    for (const id of ids.splice(0, 50)) {
      const guild = await guildRepo.getForUpdate(tx, id)
      await guildRepo.dissolve(tx, guild)
      await writer.remove(tx, guild)
    }
  })
  const q = db.current()
  const all = await Promise.all(ids.map((id) => guildRepo.get(q, id)))
  const ordered = [...all].sort((a, b) => b.points - a.points || a.seq - b.seq)
  const expected = new Map(ordered.map((g, i) => [g.id, i + 1]))
  const sample = all.filter((_, i) => i % 7 === 0 || i > all.length - 5)
  for (const g of sample) expect(await guildRepo.rankOf(q, g), `${g.points} points, seq ${g.seq}`).toBe(expected.get(g.id))
  const top = await guildRepo.leaderboard(q, 10)
  expect(top.map((g) => g.id)).toEqual(ordered.slice(0, 10).map((g) => g.id))
}, 120_000)

test("a membership change writes the guild's version alone: points added after the guild was read stay", async () => {
  const db = testDb.database
  const writer = guildWriter()
  const id = randomUUID()
  const founded = { id, name: `Points ${id}`, points: 0, createdAt: new Date(), members: [{ avatarId: `points-${id}`, nickname: 'n', role: 'LEADER' as const, joinedAt: new Date() }] }
  await db.transaction(async (tx) => {
    await writer.insert(tx, { id, version: 0 }, [], foundingColumns(founded))
    await guildRepo.founded(tx, founded)
  })
  const read = await guildRepo.get(db.current(), id)
  expect(read).toMatchObject({ points: 0, version: 1 })
  // Points come without a version (a habit completion, a battle won): the guild read above is still at its version.
  await db.transaction((tx) => guildRepo.addPoints(tx, id, 30))
  expect(await db.transaction((tx) => writer.save(tx, read, read))).toMatchObject({ id, version: 2 })
  expect(await guildRepo.get(db.current(), id)).toMatchObject({ points: 30, version: 2 })
})
