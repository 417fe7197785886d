/**
 * Concurrent changes of one avatar are decided together and written together (DESIGN §9.1): each
 * caller gets its own answer, a refused command does not disturb the others, and a write that
 * fails leaves nothing half-applied and answers everyone.
 */
import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { buildTestApp, splitTarget, type TestApp } from './support/app.js'
import { newPlayer, type Player } from './support/players.js'

let app: TestApp
beforeAll(async () => {
  app = await buildTestApp()
})
afterAll(() => app.close())

const money = async (p: Player) => (await app.inject({ url: `/api/v1/avatars/${p.avatarId}/money`, headers: p.auth })).json().amount as number
const post = (p: Player, path: string, payload: Record<string, unknown>, key?: string) =>
  app.inject({ method: 'POST', url: `/api/v1/avatars/${p.avatarId}/${path}`, headers: { ...p.auth, ...(key ? { 'idempotency-key': key } : {}) }, payload })

/** Batches and batched commands so far, from the avatar process's /metrics. */
async function batching(): Promise<{ batches: number; batched: number }> {
  const text = await app.metricsOf('avatar')
  const read = (name: string) => Number(new RegExp(`^${name} (\\d+)$`, 'm').exec(text)?.[1] ?? NaN)
  return { batches: read('avatar_command_batches'), batched: read('avatar_command_batched') }
}

test('a burst of spends on one avatar: exactly what the wallet holds is spent, the rest refused one by one', async () => {
  const p = await newPlayer(app)
  const before = await batching()
  // 100 money, 30 spends of 10: ten succeed whatever the batches, twenty are insufficient-funds.
  const answers = await Promise.all(Array.from({ length: 30 }, () => post(p, 'money/spend', { amount: 10 })))
  const statuses = answers.map((r) => r.statusCode)
  expect(statuses.filter((s) => s === 204)).toHaveLength(10)
  expect(statuses.filter((s) => s === 400)).toHaveLength(20)
  for (const r of answers.filter((a) => a.statusCode === 400)) {
    expect(r.headers['content-type']).toMatch(/application\/problem\+json/)
    expect(r.json().type).toBe('/problems/insufficient-funds')
  }
  expect(await money(p)).toBe(0)
  if (!splitTarget) {
    // One process took all 30: they cannot have gone one batch each.
    const after = await batching()
    expect(after.batched - before.batched).toBe(30)
    expect(after.batches - before.batches).toBeLessThan(30)
  }
})

test('accepted and refused commands mixed in one burst each answer for themselves', async () => {
  const p = await newPlayer(app)
  const burst = [
    post(p, 'money/earn', { amount: 5 }),
    post(p, 'money/spend', { amount: 1_000 }), // refused: holds 100 (+5)
    post(p, 'mana/spend', { amount: 20 }),
    post(p, 'mana/spend', { amount: 40 }), // refused once the first took 20 of 50; accepted if it came first
    post(p, 'health/damage', { amount: 30 }),
    post(p, 'money/earn', { amount: 7 }),
  ]
  const [earn, bigSpend, mana20, mana40, damage, earn7] = await Promise.all(burst)
  expect(earn!.statusCode).toBe(204)
  expect(bigSpend!.statusCode).toBe(400)
  expect(bigSpend!.json().type).toBe('/problems/insufficient-funds')
  expect([mana20!.statusCode, mana40!.statusCode].sort()).toEqual([204, 400])
  expect(damage!.statusCode).toBe(200)
  expect(earn7!.statusCode).toBe(204)
  expect(damage!.json()).toMatchObject({ died: false })
  const a = (await app.inject({ url: `/api/v1/avatars/${p.avatarId}`, headers: p.auth })).json()
  expect(a.health.current).toBe(70)
  expect(a.mana.amount).toBe(50 - (mana20!.statusCode === 204 ? 20 : 40))
  expect(await money(p)).toBe(112)
})

test('one idempotency key sent twice in the same burst is applied once, and both get the same answer', async () => {
  const p = await newPlayer(app)
  const answers = await Promise.all([
    ...Array.from({ length: 8 }, () => post(p, 'money/earn', { amount: 1 })),
    post(p, 'money/earn', { amount: 50 }, 'twice-in-a-batch'),
    post(p, 'money/earn', { amount: 50 }, 'twice-in-a-batch'),
    post(p, 'health/damage', { amount: 7 }, 'hurt-once'),
    post(p, 'health/damage', { amount: 7 }, 'hurt-once'),
  ])
  expect(answers.slice(0, 10).every((r) => r.statusCode === 204)).toBe(true)
  const [hurt1, hurt2] = answers.slice(10)
  expect(hurt1!.statusCode).toBe(200)
  expect(hurt2!.json()).toEqual(hurt1!.json())
  expect(await money(p)).toBe(100 + 8 + 50)
  const health = (await app.inject({ url: `/api/v1/avatars/${p.avatarId}/health`, headers: p.auth })).json()
  expect(health.current).toBe(93)
})

test.skipIf(splitTarget)('a batch whose write fails is applied not at all, and every caller is answered 503; other avatars written at that moment are not held back', async () => {
  const p = await newPlayer(app)
  const bystanders = await Promise.all([newPlayer(app), newPlayer(app), newPlayer(app)])
  const db = app.database.db
  await db.execute(sql.raw(`
    create function avatar.refuse_frozen() returns trigger language plpgsql as $$
    begin
      if new.id = '${p.avatarId}' then raise exception 'injected write failure'; end if;
      return new;
    end $$`))
  await db.execute(sql.raw('create trigger refuse_frozen before update on avatar.avatars for each row execute function avatar.refuse_frozen()'))
  try {
    // The bystanders' earns go to the database in the same statements as the frozen avatar's.
    const [answers, others] = await Promise.all([
      Promise.all(Array.from({ length: 12 }, (_, i) => post(p, 'money/earn', { amount: 1 + i }))),
      Promise.all(bystanders.flatMap((b) => [post(b, 'money/earn', { amount: 5 }), post(b, 'money/earn', { amount: 7 })])),
    ])
    for (const r of answers) {
      expect(r.statusCode).toBe(503)
      expect(r.headers['content-type']).toMatch(/application\/problem\+json/)
    }
    expect(others.map((r) => r.statusCode)).toEqual(Array(6).fill(204))
  } finally {
    await db.execute(sql.raw('drop trigger refuse_frozen on avatar.avatars'))
    await db.execute(sql.raw('drop function avatar.refuse_frozen()'))
  }
  expect(await money(p)).toBe(100)
  for (const b of bystanders) expect(await money(b)).toBe(112)
  // Nothing stuck: the avatar takes changes again.
  expect((await post(p, 'money/earn', { amount: 3 })).statusCode).toBe(204)
  expect(await money(p)).toBe(103)
})
