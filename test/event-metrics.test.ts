import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { metricsUrl } from '../src/platform/http/metrics-listener.js'
import { newId } from '../src/platform/ids.js'
import { buildTestApp, splitTarget, type TestApp } from './support/app.js'
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

test.runIf(process.env.QL_TEST_BUS === 'nats')('/metrics shows each durable consumer backlog over NATS, and the trouble pulling deliveries by kind', async () => {
  await app.settle()
  const text = await app.metricsOf('avatar')
  // The avatar context reads tracking's events (rewards) and guild's (battle outcomes).
  for (const consumer of ['avatar--tracking', 'avatar--guild']) {
    expect(sample(text, 'event_consumer_pending', `consumer="${consumer}"`)).toBe(0)
    expect(sample(text, 'event_consumer_unacknowledged', `consumer="${consumer}"`)).toBe(0)
  }
  // Trouble pulling deliveries, by kind: each kind counted from the start (heartbeats missed may have happened).
  for (const kind of ['heartbeats_missed', 'refused', 'stalled', 'ended', 'unreadable']) {
    expect(sample(text, 'event_pull_trouble_total', `kind="${kind}"`)).toBeGreaterThanOrEqual(0)
  }
})

test('a scrape reads no database: with the outbox locked it answers at once, with what was last sampled', async () => {
  await app.metricsOf('avatar') // a sample of the backlog is there to answer
  let release!: () => void
  const released = new Promise<void>((resolve) => (release = resolve))
  let lockTaken!: () => void
  const locked = new Promise<void>((resolve) => (lockTaken = resolve))
  const holding = app.database.transaction(async (tx) => {
    await tx.execute(sql`lock table avatar.outbox in access exclusive mode`)
    lockTaken()
    await released
  })
  await locked
  try {
    const scrape = app.metricsOf('avatar', { sampleFirst: false })
    const bound = new Promise<'no answer'>((resolve) => setTimeout(() => resolve('no answer'), 2_000).unref())
    const text = await Promise.race([scrape, bound])
    expect(text).not.toBe('no answer')
    expect(sample(text, 'outbox_unpublished_events', 'context="avatar"')).toBe(0)
  } finally {
    release()
    await holding
  }
})

test.skipIf(splitTarget)('with METRICS_PORT, /metrics is served there as Prometheus text and the API port answers it 404', async ({ onTestFinished }) => {
  const apart = await buildTestApp({ env: { METRICS_PORT: '0' } })
  onTestFinished(() => apart.close())
  const url = metricsUrl(apart.http)
  expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
  const res = await fetch(`${url}/metrics`)
  expect(res.status).toBe(200)
  expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/)
  expect(await res.text()).toMatch(/^# HELP outbox_unpublished_events /m)
  const elsewhere = await fetch(`${url}/healthz`)
  expect(elsewhere.status).toBe(404)
  expect(elsewhere.headers.get('content-type')).toMatch(/^application\/problem\+json/)
  const onApiPort = await apart.inject({ url: '/metrics' })
  expect(onApiPort.statusCode).toBe(404)
  expect(onApiPort.headers['content-type']).toMatch(/^application\/problem\+json/)
  expect(onApiPort.json().type).toBe('/problems/not-found')
})
