/**
 * The outbox relay (DESIGN §3): events a process commits are handed to its relay and published at
 * once, leased by id; the poll publishes what nobody holds (a process that died before publishing,
 * a publish that failed). Two relays on one database stand for two processes; each has a bus of
 * its own that records what it was given.
 */
import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, expect, inject, test } from 'vitest'
import { outbox as outboxTable } from '../src/contexts/guild/store/tables.js'
import { systemClock } from '../src/platform/clock.js'
import { LocalBroadcast } from '../src/platform/events/broadcast.js'
import type { EventBus, PublishFailure } from '../src/platform/events/bus.js'
import { Outbox, type DomainEvent } from '../src/platform/events/outbox.js'
import { OutboxRelay } from '../src/platform/events/relay.js'
import { newId } from '../src/platform/ids.js'
import { openTestDatabase, type TestDatabase } from './support/backends.js'

let testDb: TestDatabase
beforeAll(async () => {
  testDb = await openTestDatabase(inject('templates'))
})
afterAll(() => testDb.drop())

/** A bus that records each event it takes, and refuses the first publish of those `refuseOnce` names. */
function recordingBus(refuseOnce = new Set<string>()): EventBus & { taken: DomainEvent[] } {
  const bus = {
    taken: [] as DomainEvent[],
    broadcast: new LocalBroadcast(),
    async publish(_context: string, events: DomainEvent[]): Promise<PublishFailure[]> {
      const failures = events.filter((e) => refuseOnce.delete(e.id)).map((event) => ({ event, error: new Error('refused') }))
      bus.taken.push(...events.filter((e) => !failures.some((f) => f.event === e)))
      return failures
    },
    subscribe: () => {},
    start: async () => {},
    close: async () => {},
    ping: async () => {},
    pending: async () => 0,
    backlog: async () => [],
  }
  return bus
}

/** A process of its own: its outbox and its relay, which polls every `pollMs`. */
const aProcess = (bus: EventBus, pollMs: number) => {
  const outbox = new Outbox('guild', outboxTable, systemClock, testDb.database)
  return { outbox, relay: new OutboxRelay([outbox], bus, testDb.database, undefined, { pollMs }) }
}

const draft = (n: number) => ({ type: 'GuildDisbanded' as const, aggregateId: `relay-test-${n}`, version: 1, payload: { guildId: `relay-test-${n}` } })

/** How many of these events their outbox still holds unpublished. */
const unpublished = async (ids: string[]) => {
  const query = sql`select id from guild.outbox where published_at is null and id in (${sql.join(ids.map((id) => sql`${id}::uuid`), sql`, `)})`
  return ((await testDb.database.db.execute(query)) as unknown as { rows: unknown[] }).rows.length
}

test('events handed over at commit are published at once, not at the next poll, and marked published', async () => {
  const bus = recordingBus()
  const { outbox, relay } = aProcess(bus, 60_000)
  await relay.start()
  try {
    await testDb.database.transaction((tx) => outbox.add(tx, [draft(1), draft(2)]))
    await expect.poll(() => bus.taken.filter((e) => e.aggregateId.startsWith('relay-test-')).length, { timeout: 3_000 }).toBe(2)
    const ids = bus.taken.map((e) => e.id)
    expect(bus.taken.map((e) => e.payload)).toEqual([{ guildId: 'relay-test-1' }, { guildId: 'relay-test-2' }])
    await expect.poll(() => unpublished(ids), { timeout: 3_000 }).toBe(0)
  } finally {
    await relay.close()
  }
})

test('two processes: each event is published once, whether its own process leases it or the other\'s poll does first', async () => {
  const [a, b] = [recordingBus(), recordingBus()]
  const one = aProcess(a, 60_000)
  // The other process polls all the time, racing the first for every event it commits.
  const two = aProcess(b, 5)
  await Promise.all([one.relay.start(), two.relay.start()])
  try {
    for (let i = 0; i < 40; i++) {
      await testDb.database.transaction((tx) => one.outbox.add(tx, [draft(100 + 2 * i), draft(101 + 2 * i)]))
    }
    const ofThisTest = () => [...a.taken, ...b.taken].filter((e) => Number(e.aggregateId.split('-').at(-1)) >= 100)
    await expect.poll(() => ofThisTest().length, { timeout: 10_000 }).toBeGreaterThanOrEqual(80)
    await new Promise((r) => setTimeout(r, 200))
    const ids = ofThisTest().map((e) => e.id)
    expect(ids).toHaveLength(80)
    expect(new Set(ids).size).toBe(80)
    expect(await unpublished(ids)).toBe(0)
  } finally {
    await Promise.all([one.relay.close(), two.relay.close()])
  }
})

test('an event left in the outbox is published by the poll: one committed without being handed over, one whose publish failed', async () => {
  const refused = newId()
  const bus = recordingBus(new Set([refused]))
  const { outbox, relay } = aProcess(bus, 50)
  await relay.start()
  try {
    // Committed by a process that died before handing it over: only the table has it.
    const left = newId()
    await testDb.database.db.execute(sql`insert into guild.outbox (id, type, aggregate_id, version, occurred_at, payload)
      values (${left}, 'GuildDisbanded', 'relay-test-left', 1, now(), ${JSON.stringify({ guildId: 'relay-test-left' })}::jsonb)`)
    // Handed over, refused by the bus once: it backs off, then the poll publishes it.
    await testDb.database.db.execute(sql`insert into guild.outbox (id, type, aggregate_id, version, occurred_at, payload)
      values (${refused}, 'GuildDisbanded', 'relay-test-refused', 1, now(), ${JSON.stringify({ guildId: 'relay-test-refused' })}::jsonb)`)
    outbox.committed([{ id: refused, type: 'GuildDisbanded', aggregateId: 'relay-test-refused', version: 1, occurredAt: new Date().toISOString(), payload: { guildId: 'relay-test-refused' } }])
    await expect.poll(() => [left, refused].every((id) => bus.taken.some((e) => e.id === id)), { timeout: 10_000 }).toBe(true)
    expect(bus.taken.filter((e) => e.id === refused)).toHaveLength(1)
    await expect.poll(() => unpublished([left, refused]), { timeout: 3_000 }).toBe(0)
  } finally {
    await relay.close()
  }
})
