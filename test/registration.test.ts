import { randomUUID } from 'node:crypto'
import { hash } from '@node-rs/argon2'
import { sql, type SQL } from 'drizzle-orm'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { RECOVER_REGISTRATIONS_JOB } from '../src/contexts/edge/index.js'
import { ManualClock } from '../src/platform/clock.js'
import { buildTestApp, type TestApp } from './support/app.js'

/** Longer than a registration's lease (60 s). */
const PAST_THE_LEASE_MS = 61_000

const clock = new ManualClock(new Date())
let app: TestApp
const rows = async <T>(query: SQL) => (await app.database.db.execute(query) as unknown as { rows: T[] }).rows
const count = async (query: SQL) => (await rows<{ n: number }>(query))[0]!.n

beforeAll(async () => {
  app = await buildTestApp({ clock })
  // Faults injected under the API, the same in both shapes (split services share the database):
  // the avatar insert fails for 'Doomed'; the account of 'Unlucky' cannot be completed once its
  // avatar is made; and while `avatar.stubborn` is there, no avatar named 'Unlucky' can be deleted.
  for (const statement of [
    `create function avatar.refuse_doomed() returns trigger language plpgsql as $$
     begin
       if new.name = 'Doomed' then raise exception 'injected avatar failure'; end if;
       return new;
     end $$`,
    'create trigger refuse_doomed before insert on avatar.avatars for each row execute function avatar.refuse_doomed()',
    `create function identity.refuse_unlucky() returns trigger language plpgsql as $$
     begin raise exception 'injected failure completing the account'; end $$`,
    `create trigger refuse_unlucky before update on identity.users for each row
     when (new.status = 'ACTIVE' and new.name = 'Unlucky') execute function identity.refuse_unlucky()`,
    `create function avatar.keep_unlucky() returns trigger language plpgsql as $$
     begin raise exception 'injected failure deleting the avatar'; end $$`,
    `create trigger keep_unlucky before delete on avatar.avatars for each row
     when (old.name = 'Unlucky') execute function avatar.keep_unlucky()`,
  ]) await app.database.db.execute(sql.raw(statement))
})
afterAll(() => app?.close())

const register = (name: string, email: string) =>
  app.inject({ method: 'POST', url: '/auth/register', payload: { name, email, password: 'password-1' } })
const login = (email: string) => app.inject({ method: 'POST', url: '/auth/login', payload: { email, password: 'password-1' } })

test('when the avatar cannot be made, the account is not made either, and the email is free again', async () => {
  const email = `atomic-${randomUUID()}@example.com`
  const failed = await register('Doomed', email)
  // The same answer in both shapes: registration's partner failed.
  expect(failed.statusCode).toBe(502)
  expect(failed.headers['content-type']).toMatch(/^application\/problem\+json/)
  expect(failed.json().type).toBe('/problems/avatar-unavailable')
  expect(failed.json().detail).not.toContain('injected')

  expect((await login(email)).statusCode).toBe(401)
  expect(await count(sql`select count(*)::int as n from identity.users where email = ${email}`)).toBe(0)
  expect(await count(sql`select count(*)::int as n from avatar.avatars where name = 'Doomed'`)).toBe(0)

  const retry = await register('Lucky', email)
  expect(retry.statusCode).toBe(200)
  const avatar = await app.inject({ url: `/api/v1/avatars/${retry.json().userId}`, headers: { authorization: `Bearer ${retry.json().token}` } })
  expect(avatar.json().name).toBe('Lucky')
  expect((await login(email)).statusCode).toBe(200)
})

test('an undoing that fails is kept, holds the email, and is finished by the recovery job', async () => {
  const email = `unlucky-${randomUUID()}@example.com`
  // The avatar is made, then the account cannot be completed, then the avatar cannot be discarded.
  const failed = await register('Unlucky', email)
  expect(failed.statusCode).toBe(500)
  expect(failed.json().detail).not.toContain('injected')
  const [made] = await rows<{ id: string }>(sql`select id from avatar.avatars where name = 'Unlucky'`)
  expect(made).toBeDefined()
  const userId = made!.id
  const registration = () => rows<{ state: string; failed_attempts: number }>(
    sql`select state, failed_attempts from identity.registrations where user_id = ${userId}`)
  expect(await registration()).toEqual([{ state: 'COMPENSATING', failed_attempts: 1 }])

  // Not an account: no login; its email stays taken until the undoing is done.
  expect((await login(email)).statusCode).toBe(401)
  expect((await register('Someone', email)).statusCode).toBe(409)

  // The job waits for the lease, then tries again; still refused, it says so and keeps the record.
  await app.runJob(RECOVER_REGISTRATIONS_JOB)
  expect(await registration()).toEqual([{ state: 'COMPENSATING', failed_attempts: 1 }])
  clock.advance(PAST_THE_LEASE_MS)
  await expect(app.runJob(RECOVER_REGISTRATIONS_JOB)).rejects.toThrow()
  expect(await registration()).toEqual([{ state: 'COMPENSATING', failed_attempts: 2 }])

  await app.database.db.execute(sql.raw('drop trigger keep_unlucky on avatar.avatars'))
  clock.advance(PAST_THE_LEASE_MS)
  await app.runJob(RECOVER_REGISTRATIONS_JOB)
  expect(await registration()).toEqual([{ state: 'COMPENSATED', failed_attempts: 2 }])
  expect(await count(sql`select count(*)::int as n from avatar.avatars where id = ${userId}`)).toBe(0)
  expect(await count(sql`select count(*)::int as n from identity.users where email = ${email}`)).toBe(0)

  const again = await register('Lucky Again', email)
  expect(again.statusCode).toBe(200)
  expect((await login(email)).statusCode).toBe(200)
})

test('a registration whose request died after making the avatar is undone once its lease runs out', async () => {
  // What a crash between provisioning and completing leaves: a PENDING user, its open log row and its avatar.
  const userId = randomUUID()
  const email = `crashed-${randomUUID()}@example.com`
  const now = clock.now()
  const passwordHash = await hash('password-1')
  await app.database.db.execute(sql`insert into identity.users (id, email, name, password_hash, role, created_at, status)
    values (${userId}, ${email}, 'Crashed', ${passwordHash}, 'player', ${now}, 'PENDING')`)
  await app.database.db.execute(sql`insert into identity.registrations (user_id, state, lease_until, created_at, updated_at)
    values (${userId}, 'PENDING', ${new Date(now.getTime() + 60_000)}, ${now}, ${now})`)
  const service = { authorization: `Bearer ${await app.issueToken(userId, 'service')}` }
  const provisioned = await app.injectAt('avatar', { method: 'PUT', url: `/internal/v1/avatars/${userId}`, headers: service, payload: { ownerId: userId, name: 'Crashed' } })
  expect(provisioned.statusCode).toBeLessThan(300)

  // The right password, but no account yet.
  expect((await login(email)).statusCode).toBe(401)
  await app.runJob(RECOVER_REGISTRATIONS_JOB)
  expect((await app.inject({ url: `/api/v1/avatars/${userId}`, headers: service })).statusCode).toBe(200)

  clock.advance(PAST_THE_LEASE_MS)
  await app.runJob(RECOVER_REGISTRATIONS_JOB)
  expect((await app.inject({ url: `/api/v1/avatars/${userId}`, headers: service })).statusCode).toBe(404)
  expect((await login(email)).statusCode).toBe(401)
  expect((await register('Crashed', email)).statusCode).toBe(200)
})
