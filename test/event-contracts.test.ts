/**
 * Events as checked contracts (DESIGN §3): a consumer checks each payload against the producer's
 * schema on receipt; one that does not fit is parked — a dead-letter row with the reason, a count
 * in /metrics — and never applied nor delivered again.
 */
import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { newId } from '../src/platform/ids.js'
import { buildTestApp, splitTarget, type TestApp } from './support/app.js'
import { newPlayer } from './support/players.js'

let app: TestApp
beforeAll(async () => {
  app = await buildTestApp()
})
afterAll(() => app.close())

const rows = async <T>(query: ReturnType<typeof sql>) => ((await app.database.db.execute(query)) as unknown as { rows: T[] }).rows

test('a HabitAttended whose reward is not a number is parked by every consumer, and no one is rewarded', async () => {
  const p = await newPlayer(app)
  const before = (await app.inject({ url: `/api/v1/avatars/${p.avatarId}`, headers: p.auth })).json()
  const eventId = newId()
  const payload = {
    habitId: newId(), avatarId: p.avatarId, questId: null, windowStart: '2026-03-02', windowEnd: '2026-03-02',
    attendedAt: '2026-03-02T09:00:00', streak: 1, reward: { experience: 'lots', money: 2 },
  }
  await app.database.db.execute(sql`insert into tracking.outbox (id, type, aggregate_id, version, occurred_at, payload)
    values (${eventId}, 'HabitAttended', ${payload.habitId}, 2, now(), ${JSON.stringify(payload)}::jsonb)`)
  await app.settle()

  const parked = await rows<{ consumer: string; producer: string; type: string; reason: string }>(
    sql`select consumer, producer, type, reason from platform.dead_letters where event_id = ${eventId} order by consumer`)
  // Avatar (rewards), guild (points), quest (progress) and live (the player's stream) consume HabitAttended.
  expect(parked.map((r) => r.consumer)).toEqual(['avatar', 'guild', 'live', 'quest'])
  for (const r of parked) {
    expect(r).toMatchObject({ producer: 'tracking', type: 'HabitAttended' })
    expect(r.reason).toMatch(/\/reward\/experience/)
  }
  const after = (await app.inject({ url: `/api/v1/avatars/${p.avatarId}`, headers: p.auth })).json()
  expect(after.level).toEqual(before.level)
  expect(after.money).toEqual(before.money)
  // Published once and done with: nothing is left to deliver again.
  expect(await rows(sql`select 1 from tracking.outbox where id = ${eventId} and published_at is null`)).toHaveLength(0)
  // Split services run two avatar processes: either may have parked it.
  if (!splitTarget) expect(await app.metricsOf('avatar')).toMatch(/events_parked_total\{consumer="avatar",event="tracking.HabitAttended"\} 1/)
})

test('an event that fits its contract is applied as before', async () => {
  const p = await newPlayer(app)
  const habitId = newId()
  const payload = {
    habitId, avatarId: p.avatarId, questId: null, windowStart: '2026-03-02', windowEnd: '2026-03-02',
    attendedAt: '2026-03-02T09:00:00', streak: 1, reward: { experience: 10, money: 2 },
  }
  await app.database.db.execute(sql`insert into tracking.outbox (id, type, aggregate_id, version, occurred_at, payload)
    values (${newId()}, 'HabitAttended', ${habitId}, 2, now(), ${JSON.stringify(payload)}::jsonb)`)
  await app.settle()
  const after = (await app.inject({ url: `/api/v1/avatars/${p.avatarId}`, headers: p.auth })).json()
  expect(after.level.currentExperience).toBe(10)
  expect(after.money.amount).toBe(102)
})
