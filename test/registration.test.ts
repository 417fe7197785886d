import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { buildTestApp, callRetries, type TestApp } from './support/app.js'

let app: TestApp
beforeAll(async () => {
  app = await buildTestApp()
  // Fault injection under the API: the avatar insert fails for one chosen name.
  await app.database.db.execute(sql.raw(`
    create function avatar.refuse_doomed() returns trigger language plpgsql as $$
    begin
      if new.name = 'Doomed' then raise exception 'injected avatar failure'; end if;
      return new;
    end $$`))
  await app.database.db.execute(
    sql.raw('create trigger refuse_doomed before insert on avatar.avatars for each row execute function avatar.refuse_doomed()'),
  )
})
afterAll(() => app.close())

test('when the avatar cannot be made, the account is not made either', async () => {
  const email = 'atomic@example.com'
  const failed = await app.inject({ method: 'POST', url: '/auth/register', payload: { name: 'Doomed', email, password: 'password-1' } })
  // In one process the failure is registration's own (500); across services the avatar service's failure is a 502.
  expect(failed.statusCode).toBe(callRetries > 0 ? 502 : 500)
  expect(failed.headers['content-type']).toMatch(/^application\/problem\+json/)
  expect(failed.json().detail).not.toContain('injected')

  const login = await app.inject({ method: 'POST', url: '/auth/login', payload: { email, password: 'password-1' } })
  expect(login.statusCode).toBe(401)
  const users = await app.database.db.execute(sql`select count(*)::int as n from identity.users where email = ${email}`)
  expect((users as unknown as { rows: { n: number }[] }).rows[0]!.n).toBe(0)

  const retry = await app.inject({ method: 'POST', url: '/auth/register', payload: { name: 'Lucky', email, password: 'password-1' } })
  expect(retry.statusCode).toBe(200)
  const avatar = await app.inject({ url: `/api/v1/avatars/${retry.json().userId}`, headers: { authorization: `Bearer ${retry.json().token}` } })
  expect(avatar.json().name).toBe('Lucky')
})
