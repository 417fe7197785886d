/**
 * The retention job (`platform.prune`): what is finished and older than RETENTION_DAYS goes, the
 * rest stays. Activity goes through the API; what is left is counted under it, and two states the
 * API cannot make on demand (a saga left open, an event its relay never published) are written
 * there too.
 */
import { sql, type SQL } from 'drizzle-orm'
import { expect, test } from 'vitest'
import { ManualClock } from '../src/platform/clock.js'
import { newId } from '../src/platform/ids.js'
import { PRUNE_JOB, PUBLISHED_EVENTS_KEPT_MS } from '../src/platform/jobs/retention.js'
import { VACUUM_JOB, VACUUM_MIN_ROWS } from '../src/platform/jobs/vacuum.js'
import { DAY_MS } from '../src/platform/time/index.js'
import { buildTestApp, type TestApp } from './support/app.js'
import { attend, newHabit } from './support/habits.js'
import { buy, marketplaceOf } from './support/marketplaces.js'
import { sample } from './support/metrics.js'
import { newPlayer, signIn, type Player } from './support/players.js'
import { openStream } from './support/streams.js'

async function count(app: TestApp, query: SQL): Promise<number> {
  const res = (await app.database.db.execute(query)) as unknown as { rows: { n: number | string }[] }
  return Number(res.rows[0]!.n)
}

/** A new player's purchase and habit completion: a registration, a session, a saga, events, inbox rows, keys. */
async function play(app: TestApp, clock: ManualClock): Promise<Player> {
  const p = await newPlayer(app)
  await app.settle()
  expect((await buy(app, p, await marketplaceOf(app, p), 'Minor Healing Draught')).statusCode).toBe(204)
  expect((await attend(app, p, await newHabit(app, p), clock.now().toISOString().slice(0, 19))).statusCode).toBe(204)
  await app.settle()
  return p
}

/** A failed login counts against the email and the address (two rows). */
async function failLogin(app: TestApp, p: Player): Promise<void> {
  const res = await app.inject({ method: 'POST', url: '/auth/login', payload: { email: p.email, password: 'not the password' } })
  expect(res.statusCode).toBe(401)
}

test('the job deletes finished rows older than RETENTION_DAYS, never unfinished or recent ones; /metrics shows table sizes', async ({ onTestFinished }) => {
  // Starts at the database's own time: published_at is stamped by the database.
  const clock = new ManualClock(new Date())
  const t0 = clock.now()
  // Refresh tokens of an hour: the old ones have expired for longer than the retention period.
  const app = await buildTestApp({ clock, env: { RETENTION_DAYS: '7', REFRESH_TOKEN_TTL_SECONDS: '3600' } })
  onTestFinished(() => app.close())
  const old = await play(app, clock)
  await failLogin(app, old)
  // A saga left open by a crash, and an event a relay leased and never published.
  const openSaga = newId()
  await app.database.db.execute(sql`insert into marketplace.sagas
    (id, kind, marketplace_id, avatar_id, item_name, state, done, undone, attempts, version, lease_until, created_at, updated_at)
    values (${openSaga}, 'BUY', ${newId()}, ${old.avatarId}, 'Rusty Shortsword', 'RUNNING', '[]', '[]', 0, 1, ${t0}, ${t0}, ${t0})`)
  const stuck = newId()
  await app.database.db.execute(sql`insert into tracking.outbox (id, type, aggregate_id, version, occurred_at, payload, claimed_until)
    values (${stuck}, 'HabitAttended', ${newId()}, 1, ${new Date(t0.getTime() - 60_000)}, '{}'::jsonb, now() + interval '1 day')`)

  clock.advance(8 * DAY_MS)
  const fresh = await play(app, clock)
  const t1 = clock.now()
  const before = {
    outbox: await count(app, sql`select count(*) as n from identity.outbox where occurred_at < ${t1}`),
    inbox: await count(app, sql`select count(*) as n from guild.inbox where handled_at < ${t1}`),
    keys: await count(app, sql`select count(*) as n from avatar.applied_calls where avatar_id = ${old.avatarId}`),
  }
  expect(before.outbox).toBeGreaterThan(0)
  expect(before.inbox).toBeGreaterThan(0)
  expect(before.keys).toBeGreaterThan(0)

  await app.runJob(PRUNE_JOB)
  const ofOld = {
    sagas: await count(app, sql`select count(*) as n from marketplace.sagas where avatar_id = ${old.avatarId} and id <> ${openSaga}`),
    registrations: await count(app, sql`select count(*) as n from identity.registrations where user_id = ${old.userId}`),
    refreshTokens: await count(app, sql`select count(*) as n from identity.refresh_tokens where user_id = ${old.userId}`),
    loginFailures: await count(app, sql`select count(*) as n from identity.login_failures where failed_at < ${t1}`),
    outbox: await count(app, sql`select count(*) as n from identity.outbox where occurred_at < ${t1}`),
  }
  expect(ofOld).toEqual({ sagas: 0, registrations: 0, refreshTokens: 0, loginFailures: 0, outbox: 0 })
  // Never deleted: the open saga and the unpublished event, however old.
  expect(await count(app, sql`select count(*) as n from marketplace.sagas where id = ${openSaga}`)).toBe(1)
  expect(await count(app, sql`select count(*) as n from tracking.outbox where id = ${stuck}`)).toBe(1)
  // That event may yet be delivered again, to consumers that took it already: their records stay.
  expect(await count(app, sql`select count(*) as n from guild.inbox where handled_at < ${t1}`)).toBe(before.inbox)
  expect(await count(app, sql`select count(*) as n from avatar.applied_calls where avatar_id = ${old.avatarId}`)).toBe(before.keys)

  // Once it is published, they go too.
  await failLogin(app, fresh)
  await app.database.db.execute(sql`update tracking.outbox set published_at = now(), claimed_until = null where id = ${stuck}`)
  await app.runJob(PRUNE_JOB)
  expect(await count(app, sql`select count(*) as n from guild.inbox where handled_at < ${t1}`)).toBe(0)
  expect(await count(app, sql`select count(*) as n from avatar.applied_calls where avatar_id = ${old.avatarId}`)).toBe(0)
  expect(await count(app, sql`select count(*) as n from tracking.outbox where id = ${stuck}`)).toBe(0)

  // The recent ones stay: the fresh player's runs, registration, session, events, records and keys.
  const ofFresh = {
    sagas: await count(app, sql`select count(*) as n from marketplace.sagas where avatar_id = ${fresh.avatarId}`),
    registrations: await count(app, sql`select count(*) as n from identity.registrations where user_id = ${fresh.userId}`),
    loginFailures: await count(app, sql`select count(*) as n from identity.login_failures`),
    outbox: await count(app, sql`select count(*) as n from identity.outbox where occurred_at >= ${t1}`),
    inbox: await count(app, sql`select count(*) as n from guild.inbox`),
    keys: await count(app, sql`select count(*) as n from avatar.applied_calls where avatar_id = ${fresh.avatarId}`),
  }
  expect(ofFresh).toEqual({ sagas: 1, registrations: 1, loginFailures: 2, outbox: 1, inbox: 1, keys: before.keys })
  const refreshed = await app.inject({ method: 'POST', url: '/auth/refresh', payload: { refreshToken: fresh.refreshToken } })
  expect(refreshed.statusCode).toBe(200)

  const metrics = await app.metricsOf('marketplace')
  expect(sample(metrics, 'retention_pruned_rows_total', 'table="marketplace.sagas"')).toBe(1)
  expect(sample(metrics, 'retention_pruned_rows_total', 'table="identity.registrations"')).toBe(1)
  expect(sample(metrics, 'db_table_bytes', 'table="marketplace.sagas"')).toBeGreaterThan(0)
  // The two players' avatars, as the statistics count live rows once a write's counts reach them.
  await expect.poll(async () => sample(await app.metricsOf('marketplace'), 'db_table_rows', 'table="avatar.avatars"'), { timeout: 10_000 }).toBe(2)
})

test('a published event leaves its outbox minutes after it was published, not RETENTION_DAYS; an unpublished one stays', async ({ onTestFinished }) => {
  const clock = new ManualClock(new Date())
  const app = await buildTestApp({ clock, env: { RETENTION_DAYS: '7' } })
  onTestFinished(() => app.close())
  const early = await play(app, clock)
  const events = (avatarId: string) => count(app, sql`select count(*) as n from avatar.outbox where aggregate_id = ${avatarId}`)
  expect(await events(early.avatarId)).toBeGreaterThan(0)
  const stuck = newId()
  await app.database.db.execute(sql`insert into tracking.outbox (id, type, aggregate_id, version, occurred_at, payload, claimed_until)
    values (${stuck}, 'HabitAttended', ${newId()}, 1, ${clock.now()}, '{}'::jsonb, now() + interval '1 day')`)

  clock.advance(PUBLISHED_EVENTS_KEPT_MS / 2)
  await app.runJob(PRUNE_JOB)
  expect(await events(early.avatarId)).toBeGreaterThan(0)

  clock.advance(PUBLISHED_EVENTS_KEPT_MS)
  const late = await play(app, clock)
  await app.runJob(PRUNE_JOB)
  expect(await events(early.avatarId)).toBe(0)
  expect(await events(late.avatarId)).toBeGreaterThan(0)
  expect(await count(app, sql`select count(*) as n from tracking.outbox where id = ${stuck}`)).toBe(1)
})

/** A table's dead rows as the statistics count them (they reach the counts within about a second of a commit). */
const deadRows = (app: TestApp, table: string) =>
  count(app, sql`select n_dead_tup as n from pg_stat_user_tables where schemaname || '.' || relname = ${table}`)

test('the vacuum job clears dead rows from the tables that have enough of them, and times each pass in /metrics', async ({ onTestFinished }) => {
  const app = await buildTestApp()
  onTestFinished(() => app.close())
  const p = await newPlayer(app)
  // Rows written and deleted, as the retention job and every published event leave them.
  const rows = VACUUM_MIN_ROWS * 2
  await app.database.db.execute(sql`insert into platform.job_runs (job, slot, claimed_at) select 'test.churn', g, now() from generate_series(1, ${rows}) g`)
  await app.database.db.execute(sql`delete from platform.job_runs where job = 'test.churn'`)
  await expect.poll(() => deadRows(app, 'platform.job_runs'), { timeout: 10_000 }).toBeGreaterThanOrEqual(rows)

  await app.runJob(VACUUM_JOB)
  expect(await deadRows(app, 'platform.job_runs')).toBe(0)
  const metrics = await app.metricsOf('avatar')
  expect(sample(metrics, 'db_maintenance_seconds_count', 'table="platform.job_runs",pass="vacuum"')).toBe(1)
  // A table with a few changes is left alone.
  expect(metrics).not.toContain('db_maintenance_seconds_count{table="avatar.avatars"')
  expect((await app.inject({ url: `/api/v1/avatars/${p.avatarId}`, headers: p.auth })).statusCode).toBe(200)
})

test('the stream history keeps what a replay may ask for (15 minutes or 500 events), and nothing past RETENTION_DAYS; then a replay resyncs', async ({ onTestFinished }) => {
  const clock = new ManualClock(new Date())
  const app = await buildTestApp({ clock })
  onTestFinished(() => app.close())
  const p = await newPlayer(app)
  // Recorded only while watched: a stream open.
  const watching = await openStream(`${await app.baseUrl()}/api/v1/avatars/${p.avatarId}/stream`, p.auth)
  for (const amount of [1, 2, 3]) {
    expect((await app.inject({ method: 'POST', url: `/api/v1/avatars/${p.avatarId}/money/earn`, headers: p.auth, payload: { amount } })).statusCode).toBe(204)
  }
  await app.settle()
  watching.close()
  const kept = () => count(app, sql`select count(*) as n from live.stream_events where avatar_id = ${p.avatarId}`)
  const before = await kept()
  expect(before).toBeGreaterThanOrEqual(1)
  // An hour on: older than 15 minutes, but among the avatar's last 500: kept.
  clock.advance(3_600_000)
  await app.runJob(PRUNE_JOB)
  expect(await kept()).toBe(before)
  // Past the retention period: gone.
  clock.advance(8 * DAY_MS)
  await signIn(app, p)
  await app.runJob(PRUNE_JOB)
  expect(await kept()).toBe(0)
  const s = await openStream(`${await app.baseUrl()}/api/v1/avatars/${p.avatarId}/stream`, { ...p.auth, 'last-event-id': '1' })
  try {
    expect((await s.next(() => true)).event).toBe('resync')
  } finally {
    s.close()
  }
})

test('an attend key answers its first result for 30 days, past RETENTION_DAYS, and goes after', async ({ onTestFinished }) => {
  const clock = new ManualClock(new Date())
  const app = await buildTestApp({ clock, env: { RETENTION_DAYS: '7' } })
  onTestFinished(() => app.close())
  const p = await newPlayer(app)
  const item = { key: 'offline-check-in-1', habitId: await newHabit(app, p), date: clock.now().toISOString().slice(0, 19) }
  const checkIn = async () => {
    await signIn(app, p)
    const res = await app.inject({ method: 'POST', url: `/api/v1/avatars/${p.avatarId}/attends`, headers: p.auth, payload: { attends: [item] } })
    expect(res.statusCode, res.body).toBe(200)
    return res.json().results[0].status
  }
  const keys = () => count(app, sql`select count(*) as n from tracking.attend_answers where key like ${`attend/${p.avatarId}/%`}`)
  expect(await checkIn()).toBe(204)

  clock.advance(8 * DAY_MS)
  await app.runJob(PRUNE_JOB)
  expect(await keys()).toBe(1)
  // The first answer again (decided afresh, the window completed would refuse it).
  expect(await checkIn()).toBe(204)

  clock.advance(23 * DAY_MS)
  await app.runJob(PRUNE_JOB)
  expect(await keys()).toBe(0)
})
