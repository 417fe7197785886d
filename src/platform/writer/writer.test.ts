/**
 * The writer on a scratch schema of the embedded engine: a counter aggregate with a part (a tally
 * that adds up), keyed answers and an outbox, written through the batched and the transactional
 * paths.
 */
import { integer, jsonb, pgSchema, primaryKey, text, timestamp, uuid } from 'drizzle-orm/pg-core'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { ManualClock } from '../clock.js'
import { Database } from '../db/database.js'
import { BadRequest, NotFound, ServiceUnavailable } from '../errors.js'
import { Outbox, outboxTable, type DomainEvent } from '../events/outbox.js'
import type { AggregateDefinition } from './aggregate.js'
import type { BatchedCommand } from './decisions.js'
import { loadStatement } from './statements.js'
import { AggregateWriter, type WriterOptions } from './writer.js'

const scratch = pgSchema('writer_test')
const counters = scratch.table('counters', {
  id: text('id').primaryKey(),
  owner: text('owner').notNull(),
  count: integer('count').notNull(),
  /** A field added to the state: written with every change because it is a column, with no list to keep. */
  label: text('label').notNull(),
  tags: jsonb('tags').$type<string[]>().notNull(),
  version: integer('version').notNull(),
  createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull(),
})
const tallies = scratch.table('tallies', {
  counterId: text('counter_id').notNull(),
  day: text('day').notNull(),
  added: integer('added').notNull(),
}, (t) => [primaryKey({ columns: [t.counterId, t.day] })])
const answers = scratch.table('answers', {
  key: text('key').primaryKey(),
  counterId: text('counter_id').notNull(),
  operation: text('operation').notNull(),
  result: jsonb('result'),
  appliedAt: timestamp('applied_at', { withTimezone: true, mode: 'date' }).notNull(),
})
/** An aggregate keyed by a column of another name than `id`, of another type than text. */
const profiles = scratch.table('profiles', {
  ownerId: uuid('owner_id').primaryKey(),
  motto: text('motto').notNull(),
  version: integer('version').notNull(),
})
const outboxRows = outboxTable(scratch)

const DDL = `
create schema writer_test;
create table writer_test.counters (id text primary key, owner text not null, count integer not null, label text not null, tags jsonb not null,
  version integer not null, created_at timestamptz not null);
create table writer_test.tallies (counter_id text not null, day text not null, added integer not null, primary key (counter_id, day));
create table writer_test.profiles (owner_id uuid primary key, motto text not null, version integer not null);
create table writer_test.answers (key text primary key, counter_id text not null, operation text not null, result jsonb, applied_at timestamptz not null);
create table writer_test.outbox (seq bigserial primary key, id uuid not null unique, type text not null, aggregate_id text not null,
  version integer not null, occurred_at timestamptz not null, payload jsonb not null, published_at timestamptz, claimed_until timestamptz,
  attempts integer not null default 0);`

interface Counter {
  id: string
  owner: string
  count: number
  label: string
  tags: string[]
  version: number
}
type CounterDraft = { type: 'Added'; payload: { by: number } } | { type: 'CounterChanged'; payload: { count: number } }

const clock = new ManualClock(new Date('2026-03-02T10:00:00Z'))
let database: Database
let outbox: Outbox<CounterDraft>
const relayed: DomainEvent[] = []

const definition = (): AggregateDefinition<Counter, typeof counters, 'tallies'> => ({
  name: 'counter',
  table: counters,
  key: counters.id,
  version: counters.version,
  fixed: [counters.owner, counters.createdAt],
  outbox,
  toState: ({ createdAt: _made, ...row }) => row,
  toRow: (c) => c,
  keyOf: (c) => c.id,
  parts: { tallies: { table: tallies, of: tallies.counterId, conflict: { on: [tallies.counterId, tallies.day], addUp: [tallies.added] } } },
  answers: { table: answers, key: answers.key, of: answers.counterId, operation: answers.operation, result: answers.result, at: answers.appliedAt },
})

const writerOf = (options: Partial<WriterOptions<Counter, CounterDraft, undefined>> = {}) => new AggregateWriter<Counter, CounterDraft>(definition(), {
  database, clock, missing: (id) => new NotFound('Counter', id), remember: 100, summary: (c) => ({ type: 'CounterChanged', payload: { count: c.count } }), ...options,
})

/** Adds `by`, refused when the count would pass 10; tallied by day; the answer is the count after it. */
const add = (by: number, key?: string): BatchedCommand<Counter, CounterDraft, number, undefined, 'tallies'> => ({
  decide: (c) => {
    if (c.count + by > 10) throw new BadRequest(`${c.count} + ${by} passes 10`, 'too-many')
    return { state: { ...c, count: c.count + by }, events: [{ type: 'Added', payload: { by } }], parts: { tallies: [{ counterId: c.id, day: '2026-03-02', added: by }] }, result: c.count + by }
  },
  call: key === undefined ? undefined : { key, operation: 'add' },
})

const relabel = (label: string, tags: string[]): BatchedCommand<Counter, CounterDraft, void> => ({ decide: (c) => ({ state: { ...c, label, tags }, result: undefined }) })

async function make(id: string, writer = writerOf()): Promise<Counter> {
  const made = await database.transaction((tx) => writer.insert(tx, { id, owner: 'o', count: 0, label: '', tags: [], version: 0 }, [], { createdAt: clock.now() }))
  return made!
}

const rowOf = async (id: string) => (await database.statement('t_row', 'select * from writer_test.counters where id = $1', [id]))[0]
const eventsOf = async (id: string) => database.statement('t_events', 'select type, version, payload from writer_test.outbox where aggregate_id = $1 order by seq', [id])
const settled = <T>(promises: Promise<T>[]) => Promise.allSettled(promises)

beforeAll(async () => {
  database = await Database.embedded({})
  await database.pglite!.exec(DDL)
  outbox = new Outbox<CounterDraft>('counter', outboxRows, clock, database)
  outbox.onCommitted((events) => relayed.push(...events))
}, 60_000)
afterAll(() => database.close())

test('a batch: each command decided on the state the ones before left, refusals answer alone, one write raises the version per applied command', async () => {
  const writer = writerOf()
  await make('a', writer)
  const outcomes = await settled([4, 5, 3, 1].map((by) => writer.submit('a', add(by))))
  // 4 → 4, 5 → 9, 3 would be 12 (refused), 1 → 10.
  expect(outcomes.map((o) => (o.status === 'fulfilled' ? o.value : (o.reason as BadRequest).slug))).toEqual([4, 9, 'too-many', 10])
  expect(await rowOf('a')).toMatchObject({ count: 10, version: 4 })
  // Each applied command's event carries the version after it; the summary carries the last.
  expect(await eventsOf('a')).toEqual([
    { type: 'Added', version: 2, payload: { by: 4 } }, { type: 'Added', version: 3, payload: { by: 5 } },
    { type: 'Added', version: 4, payload: { by: 1 } }, { type: 'CounterChanged', version: 4, payload: { count: 10 } },
  ])
  expect(relayed.filter((e) => e.aggregateId === 'a').map((e) => e.version)).toEqual([2, 3, 4, 4])
  // The part's rows of one write, on one key, were added up into one row.
  expect(await database.statement('t_tally', 'select added from writer_test.tallies where counter_id = $1', ['a'])).toEqual([{ added: 10 }])
})

test('every column but the key and the fixed ones is written: a field a decision changes is stored, jsonb included', async () => {
  const writer = writerOf()
  await make('f', writer)
  await writer.submit('f', relabel('gold', ['x', 'y']))
  expect(await rowOf('f')).toMatchObject({ label: 'gold', tags: ['x', 'y'], owner: 'o', version: 2 })
  // Read back through the writer's own load (a second writer remembers nothing).
  expect(await writerOf().submit('f', add(2))).toBe(2)
  expect(await rowOf('f')).toMatchObject({ label: 'gold', tags: ['x', 'y'], count: 2, version: 3 })
})

test('group commit: the batches of many aggregates at one moment load in one statement and write in one', async () => {
  const writer = writerOf({ remember: 0 })
  const ids = Array.from({ length: 12 }, (_, i) => `g${i}`)
  for (const id of ids) await make(id)
  const statements: string[] = []
  const original = database.statement.bind(database)
  database.statement = (name, text, params) => {
    statements.push(name)
    return original(name, text, params)
  }
  try {
    const answers = await Promise.all(ids.map((id) => writer.submit(id, add(3))))
    expect(answers).toEqual(ids.map(() => 3))
  } finally {
    database.statement = original
  }
  expect(statements).toEqual(['writer_counter_load', 'writer_counter_write'])
  for (const id of ids) expect(await rowOf(id)).toMatchObject({ count: 3, version: 2 })
})

test('a key twice in one batch is applied once and answers alike; a key already answered answers again; a key of another call is 409', async () => {
  const writer = writerOf()
  await make('k', writer)
  const [first, second, other] = await Promise.all([writer.submit('k', add(2, 'key-1')), writer.submit('k', add(2, 'key-1')), writer.submit('k', add(1))])
  expect([first, second, other]).toEqual([2, 2, 3])
  // Another process (no memory of this one's answers) gets the stored answer, and changes nothing.
  expect(await writerOf().submit('k', add(2, 'key-1'))).toBe(2)
  expect(await rowOf('k')).toMatchObject({ count: 3, version: 3 })
  const reused = await settled([writerOf().submit('k', { ...relabel('x', []), call: { key: 'key-1', operation: 'relabel' } })])
  expect(reused[0]).toMatchObject({ status: 'rejected', reason: { status: 409, slug: 'idempotency-key-reused' } })
})

test('two processes on one aggregate: a write on state another changed meanwhile writes nothing and is decided again; nothing is lost', async () => {
  const [one, two] = [writerOf(), writerOf()]
  await make('r', one)
  await one.submit('r', add(1))
  await two.submit('r', add(1))
  // `one` remembers version 2; `two` wrote version 3 meanwhile.
  const answers = await Promise.all([one.submit('r', add(1)), two.submit('r', add(1)), one.submit('r', add(1))])
  expect(answers.sort()).toEqual([3, 4, 5])
  expect(await rowOf('r')).toMatchObject({ count: 5, version: 6 })
})

test('an unknown aggregate answers its missing error; a write the database refuses answers 503 to every caller and applies nothing', async () => {
  const writer = writerOf()
  await expect(writer.submit('nobody', add(1))).rejects.toMatchObject({ status: 404 })
  await make('x', writer)
  const original = database.statement.bind(database)
  database.statement = (name, text, params) => (name.endsWith('_write') ? Promise.reject(new Error('disk on fire')) : original(name, text, params))
  try {
    const outcomes = await settled([writer.submit('x', add(1)), writer.submit('x', add(2))])
    for (const o of outcomes) expect(o).toMatchObject({ status: 'rejected', reason: expect.any(ServiceUnavailable) })
  } finally {
    database.statement = original
  }
  expect(await rowOf('x')).toMatchObject({ count: 0, version: 1 })
  expect(await writer.submit('x', add(1))).toBe(1)
})

test('the transactional path: insert at version 1, save one version on with its events, a stale save writes nothing, remove stamps the next version', async () => {
  const writer = writerOf()
  const made = await make('t', writer)
  expect(made.version).toBe(1)
  expect(await database.transaction((tx) => writer.insert(tx, { ...made }, [], { createdAt: clock.now() }))).toBeUndefined()
  const saved = await database.transaction((tx) => writer.save(tx, made, { ...made, count: 7 }, [{ type: 'Added', payload: { by: 7 } }]))
  expect(saved).toMatchObject({ count: 7, version: 2 })
  expect(await database.transaction((tx) => writer.save(tx, made, { ...made, count: 9 }))).toBeUndefined()
  // The batched path starts from what the transaction wrote.
  expect(await writer.submit('t', add(1))).toBe(8)
  const now = (await rowOf('t')) as unknown as Counter
  await database.transaction((tx) => writer.remove(tx, { ...now, version: 3 }, [{ type: 'Added', payload: { by: 0 } }]))
  expect(await rowOf('t')).toBeUndefined()
  expect((await eventsOf('t')).map((e) => e.version)).toEqual([2, 3, 3, 4])
  await expect(writer.submit('t', add(1))).rejects.toMatchObject({ status: 404 })
})

test('a key of another name and type: every statement finds the aggregate by it, and its events name it', async () => {
  type Profile = { ownerId: string; motto: string; version: number }
  const profileDefinition: AggregateDefinition<Profile, typeof profiles> = {
    name: 'profile', table: profiles, key: profiles.ownerId, version: profiles.version, outbox, toState: (r) => r, toRow: (p) => p, keyOf: (p) => p.ownerId,
  }
  const writer = new AggregateWriter<Profile, CounterDraft>(profileDefinition, { database, clock, missing: (id) => new NotFound('Profile', id) })
  const id = '00000000-0000-4000-8000-000000000001'
  const made = (await database.transaction((tx) => writer.insert(tx, { ownerId: id, motto: 'first', version: 0 }, [])))!
  expect(await database.transaction((tx) => writer.insert(tx, { ...made }, []))).toBeUndefined()
  const saved = await database.transaction((tx) => writer.save(tx, made, { ...made, motto: 'second' }, [{ type: 'Added', payload: { by: 1 } }]))
  expect(saved).toEqual({ ownerId: id, motto: 'second', version: 2 })
  expect(await database.transaction((tx) => writer.save(tx, made, { ...made, motto: 'stale' }))).toBeUndefined()
  // The batched path loads it by its key.
  await writer.submit(id, { decide: (p) => ({ state: { ...p, motto: `${p.motto}!` }, result: undefined }) })
  const [row] = await database.statement('t_profile', 'select motto, version from writer_test.profiles where owner_id = $1', [id])
  expect(row).toEqual({ motto: 'second!', version: 3 })
  await database.transaction((tx) => writer.remove(tx, { ownerId: id, motto: 'second!', version: 3 }, [{ type: 'Added', payload: { by: 0 } }]))
  expect(await database.statement('t_profile', 'select motto from writer_test.profiles where owner_id = $1', [id])).toEqual([])
  expect(await eventsOf(id)).toEqual([{ type: 'Added', version: 2, payload: { by: 1 } }, { type: 'Added', version: 4, payload: { by: 0 } }])
})

test('a state that never changes again (final) refuses from memory; any other refusal is decided again on state just read', async () => {
  const final = writerOf({ final: (c) => c.count === 10 })
  const plain = writerOf()
  await make('z', final)
  await make('y', plain)
  expect(await final.submit('z', add(10))).toBe(10)
  expect(await plain.submit('y', add(10))).toBe(10)
  const statements: string[] = []
  const original = database.statement.bind(database)
  database.statement = (name, text, params) => {
    statements.push(name)
    return original(name, text, params)
  }
  try {
    await expect(final.submit('z', add(1))).rejects.toMatchObject({ slug: 'too-many' })
    expect(statements).toEqual([])
    await expect(plain.submit('y', add(1))).rejects.toMatchObject({ slug: 'too-many' })
    expect(statements).toEqual(['writer_counter_load'])
  } finally {
    database.statement = original
  }
})

test('a load looks each asked key up in the answers\' index, in the generic plan of a prepared statement too (no scan of every answer)', async () => {
  const pglite = database.pglite!
  await pglite.exec(`insert into writer_test.answers select 'plan-' || g, 'p', 'add', null, now() from generate_series(1, 5000) g`)
  await pglite.exec(`set plan_cache_mode = force_generic_plan; prepare load_plan(jsonb) as ${loadStatement(definition())}`)
  try {
    const plan = await pglite.query<{ 'QUERY PLAN': string }>(`explain execute load_plan('[{"id": "a", "keys": ["plan-7", "plan-9"]}]')`)
    const text = plan.rows.map((r) => r['QUERY PLAN']).join('\n')
    expect(text).toMatch(/Index.* on answers_pkey/)
    expect(text).not.toMatch(/Seq Scan on answers/)
  } finally {
    await pglite.exec('deallocate load_plan; reset plan_cache_mode')
  }
})
