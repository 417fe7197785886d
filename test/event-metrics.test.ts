import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { newId } from '../src/platform/ids.js'
import { buildTestApp, type TestApp } from './support/app.js'
import { sample } from './support/metrics.js'
import { newPlayer } from './support/players.js'

let app: TestApp
beforeAll(async () => {
  app = await buildTestApp()
})
afterAll(() => app.close())

test('/metrics shows the outbox backlog: nothing once events are delivered, then a held event and its age', async () => {
  await newPlayer(app)
  await app.settle()
  const settled = await app.metricsOf('avatar')
  expect(sample(settled, 'outbox_unpublished_events', 'context="avatar"')).toBe(0)
  expect(sample(settled, 'outbox_lag_seconds', 'context="avatar"')).toBe(0)

  // An event committed 90 s ago and leased by a relay that has not come back: not yet published.
  await app.database.db.execute(sql`insert into avatar.outbox (id, type, aggregate_id, version, occurred_at, payload, claimed_until)
    values (${newId()}, 'AvatarRenamed', ${newId()}, 1, now() - interval '90 seconds', '{}'::jsonb, now() + interval '1 hour')`)
  const held = await app.metricsOf('avatar')
  expect(sample(held, 'outbox_unpublished_events', 'context="avatar"')).toBe(1)
  expect(sample(held, 'outbox_lag_seconds', 'context="avatar"')).toBeGreaterThanOrEqual(90)
  await app.database.db.execute(sql`delete from avatar.outbox where published_at is null`)
})

test.runIf(process.env.QL_TEST_BUS === 'nats')('/metrics shows each durable consumer backlog over NATS', async () => {
  await app.settle()
  const text = await app.metricsOf('avatar')
  // The avatar context reads tracking's events (rewards) and guild's (battle outcomes).
  for (const consumer of ['avatar--tracking', 'avatar--guild']) {
    expect(sample(text, 'event_consumer_pending', `consumer="${consumer}"`)).toBe(0)
    expect(sample(text, 'event_consumer_unacknowledged', `consumer="${consumer}"`)).toBe(0)
  }
})
