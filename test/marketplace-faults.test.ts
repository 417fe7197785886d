/**
 * The buy and sell sagas when the avatar service fails: the marketplace calls the avatar over
 * HTTP through a stand-in that fails chosen calls, before they are applied or after (the answer
 * lost), with 500s, timeouts and cut connections. Whatever fails, the books end exactly as before
 * the trade or exactly as after one success: never money or an item lost or made from nothing.
 * Crashes mid-run are simulated with a database trigger on the saga log; the recovery job then
 * settles the run.
 */
import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { RECOVER_SAGAS_JOB } from '../src/contexts/marketplace/index.js'
import { SAGA_LEASE_MS } from '../src/contexts/marketplace/domain/rules.js'
import { ManualClock } from '../src/platform/clock.js'
import { buildTestApp, type TestApp } from './support/app.js'
import { AvatarStandIn, type Fault } from './support/avatar-stand-in.js'
import { booksOf, buy, giveItem, marketplaceOf, sagaStates, sell, type Books } from './support/marketplaces.js'
import { newPlayer, type Player } from './support/players.js'

/** Long enough that a loaded test machine does not time out calls the test did not mean to fail. */
const TIMEOUT_MS = 1000
const RETRIES = 2
/** Every call of the adapter: the first attempt and its retries. */
const ATTEMPTS = RETRIES + 1
const ALWAYS = Infinity
const RECOVER = RECOVER_SAGAS_JOB

const clock = new ManualClock(new Date())
const standIn = new AvatarStandIn(TIMEOUT_MS)
let app: TestApp

beforeAll(async () => {
  const url = await standIn.start()
  app = await buildTestApp({
    clock,
    // The settings' older names, still honoured (SERVICE_CALL_TIMEOUT_MS and SERVICE_CALL_RETRIES now).
    env: { AVATAR_URL: url, AVATAR_TIMEOUT_MS: String(TIMEOUT_MS), AVATAR_RETRIES: String(RETRIES), ACCESS_TOKEN_TTL_SECONDS: '86400' },
  })
  standIn.target = app
  await installCrashPoints(app)
})
afterAll(async () => {
  await app?.close()
  await standIn.close()
})

/** Lets every lease run out, then runs the recovery job. */
async function recover(on: TestApp = app): Promise<void> {
  clock.advance(SAGA_LEASE_MS + 1000)
  await on.runJob(RECOVER)
}

const SWORD = 'Rusty Shortsword' // 30; level 1
const PAJAMAS = 'Padded Pajamas' // 15, sells for 7
const BEFORE: Books = { money: 100, items: [] }
const BOUGHT: Books = { money: 70, items: [SWORD] }
const OWNING: Books = { money: 100, items: [PAJAMAS] }
const SOLD: Books = { money: 107, items: [] }

async function shopper(): Promise<{ p: Player; m: string }> {
  standIn.heal()
  const p = await newPlayer(app)
  return { p, m: await marketplaceOf(app, p) }
}

async function seller(on: TestApp = app): Promise<{ p: Player; m: string }> {
  standIn.heal()
  const p = await newPlayer(on)
  await giveItem(on, p, { type: 'ARMOR', name: PAJAMAS, description: 'Comfortable enough to sleep in.', power: 2 })
  return { p, m: await marketplaceOf(on, p) }
}

const fault = (call: Fault['call'], when: Fault['when'], kind: Fault['kind'], times: number): Fault => ({ call, when, kind, times })

describe('over HTTP without faults', () => {
  test('buy and sell work through the avatar API with a service token and idempotency keys', async () => {
    const { p, m } = await shopper()
    expect((await buy(app, p, m, SWORD)).statusCode).toBe(204)
    expect(await booksOf(app, p)).toEqual(BOUGHT)
    expect((await sell(app, p, m, SWORD)).statusCode).toBe(204)
    expect(await booksOf(app, p)).toEqual({ money: 85, items: [] })
    // One key per step (a retry on a slow machine would reuse its step's key).
    const byKey = new Map(standIn.calls.filter((c) => c.call && c.call !== 'profile').map((c) => [c.key, c.call]))
    expect([...byKey.values()]).toEqual(['spend', 'add-item', 'take-item', 'earn'])
    expect([...byKey.keys()].every((k) => /^marketplace-saga\/[0-9a-f-]{36}\/(spend|add-item|take-item|earn)$/.test(k ?? ''))).toBe(true)
    const refusal = await buy(app, p, m, 'Dawnbreaker')
    expect(refusal.statusCode).toBe(400)
    expect(refusal.json().type).toBe('/problems/level-too-low')
    await app.inject({ method: 'POST', url: `/api/v1/avatars/${p.avatarId}/money/spend`, headers: p.auth, payload: { amount: 80 } })
    const broke = await buy(app, p, m, SWORD)
    expect(broke.statusCode).toBe(400)
    expect(broke.json().type).toBe('/problems/insufficient-funds')
    expect(await booksOf(app, p)).toEqual({ money: 5, items: [] })
  })
})

describe('buying when the avatar service fails', () => {
  test.each([
    ['a 500 before the spend', fault('spend', 'before', '500', 1)],
    ['the spend applied but its answer lost (500)', fault('spend', 'after', '500', 1)],
    ['the spend applied but its answer lost (timeout)', fault('spend', 'after', 'timeout', 1)],
    ['a cut connection before the spend', fault('spend', 'before', 'reset', 1)],
    ['a timeout before adding the item', fault('add-item', 'before', 'timeout', 1)],
    ['the item added but its answer lost (500)', fault('add-item', 'after', '500', 1)],
    ['a 500 reading the level', fault('profile', 'before', '500', 1)],
  ])('one failed attempt (%s): a retry with the same key succeeds, applied once', async (_case, f) => {
    const { p, m } = await shopper()
    standIn.fail(f)
    const res = await buy(app, p, m, SWORD)
    expect(res.statusCode, res.body).toBe(204)
    expect(await booksOf(app, p)).toEqual(BOUGHT)
    const keys = standIn.calls.filter((c) => c.call === f.call).map((c) => c.key)
    expect(keys.length).toBeGreaterThanOrEqual(2)
    expect(new Set(keys).size).toBe(1)
    expect(await sagaStates(app, p.avatarId)).toEqual(['DONE'])
  })

  test('the level cannot be read: 502 before anything was done', async () => {
    const { p, m } = await shopper()
    standIn.fail(fault('profile', 'before', 'reset', ALWAYS))
    const res = await buy(app, p, m, SWORD)
    expect(res.statusCode).toBe(502)
    expect(res.json().type).toBe('/problems/avatar-unavailable')
    expect(standIn.count('spend')).toBe(0)
    standIn.heal()
    expect(await booksOf(app, p)).toEqual(BEFORE)
    expect(await sagaStates(app, p.avatarId)).toEqual(['FAILED'])
  })

  test('the spend fails through every retry, then the service is back: 502 after compensation, nothing changed', async () => {
    const { p, m } = await shopper()
    standIn.fail(fault('spend', 'before', '500', ATTEMPTS))
    const res = await buy(app, p, m, SWORD)
    expect(res.statusCode).toBe(502)
    expect(res.json().detail).toContain('nothing was changed')
    expect(await booksOf(app, p)).toEqual(BEFORE)
    expect(await sagaStates(app, p.avatarId)).toEqual(['COMPENSATED'])
  })

  test('the item was added but every answer lost, then the service is back: 502 after compensation, nothing changed', async () => {
    const { p, m } = await shopper()
    standIn.fail(fault('add-item', 'after', '500', ATTEMPTS))
    const res = await buy(app, p, m, SWORD)
    expect(res.statusCode).toBe(502)
    expect(await booksOf(app, p)).toEqual(BEFORE)
    expect(await sagaStates(app, p.avatarId)).toEqual(['COMPENSATED'])
  })

  test.each([
    ['the spend never arrives', fault('spend', 'before', '500', ALWAYS), BEFORE],
    ['the spend is applied, every answer lost', fault('spend', 'after', '500', ALWAYS), { money: 70, items: [] }],
    ['the spend times out, applied', fault('spend', 'after', 'timeout', ALWAYS), { money: 70, items: [] }],
    ['adding the item never arrives', fault('add-item', 'before', 'reset', ALWAYS), { money: 70, items: [] }],
    ['the item is added, every answer lost', fault('add-item', 'after', '500', ALWAYS), BOUGHT],
  ])('an outage (%s): 502; the recovery job undoes what was applied once the service is back', async (_case, f, during) => {
    const { p, m } = await shopper()
    standIn.fail(f)
    const res = await buy(app, p, m, SWORD)
    expect(res.statusCode).toBe(502)
    expect(res.json().type).toBe('/problems/avatar-unavailable')
    standIn.heal()
    expect(await booksOf(app, p)).toEqual(during)
    expect(await sagaStates(app, p.avatarId)).toEqual(['COMPENSATING'])
    // Still down when the job runs: nothing is lost, the run stays open.
    standIn.fail({ ...f, times: ALWAYS })
    await recover()
    standIn.heal()
    expect(await booksOf(app, p)).toEqual(during)
    expect(await sagaStates(app, p.avatarId)).toEqual(['COMPENSATING'])
    await recover()
    expect(await booksOf(app, p)).toEqual(BEFORE)
    expect(await sagaStates(app, p.avatarId)).toEqual(['COMPENSATED'])
  })

  test('the refund itself cannot reach the avatar: 502, and the recovery job refunds later', async () => {
    const { p, m } = await shopper()
    standIn.fail(fault('add-item', 'before', '500', ATTEMPTS), fault('earn', 'before', '500', ALWAYS))
    const res = await buy(app, p, m, SWORD)
    expect(res.statusCode).toBe(502)
    standIn.heal()
    expect(await booksOf(app, p)).toEqual({ money: 70, items: [] })
    await recover()
    expect(await booksOf(app, p)).toEqual(BEFORE)
    expect(await sagaStates(app, p.avatarId)).toEqual(['COMPENSATED'])
  })

  test('an item equipped before the recovery job could take it back: the purchase stands', async () => {
    const { p, m } = await shopper()
    standIn.fail(fault('add-item', 'after', '500', ALWAYS))
    expect((await buy(app, p, m, SWORD)).statusCode).toBe(502)
    standIn.heal()
    const equip = await app.inject({ method: 'POST', url: `/api/v1/avatars/${p.avatarId}/inventory/items/equip`, headers: p.auth, payload: { type: 'WEAPON', name: SWORD } })
    expect(equip.statusCode).toBe(204)
    await recover()
    expect(await booksOf(app, p)).toEqual({ money: 70, items: [] })
    expect(await sagaStates(app, p.avatarId)).toEqual(['DONE'])
  })
})

describe('selling when the avatar service fails', () => {
  test.each([
    ['the item taken but the answer lost', fault('take-item', 'after', '500', 1)],
    ['a timeout before paying', fault('earn', 'before', 'timeout', 1)],
    ['paid but the answer lost', fault('earn', 'after', '500', 1)],
  ])('one failed attempt (%s): a retry succeeds, applied once', async (_case, f) => {
    const { p, m } = await seller()
    standIn.fail(f)
    expect((await sell(app, p, m, PAJAMAS)).statusCode).toBe(204)
    expect(await booksOf(app, p)).toEqual(SOLD)
    const sold = (await app.inject({ url: `/api/v1/marketplaces/${m}/sold-items`, headers: p.auth })).json()
    expect(sold.map((s: { name: string; price: number }) => [s.name, s.price])).toEqual([[PAJAMAS, 7]])
  })

  test('paid but every answer lost, then the service is back: 502 after compensation, the item is back', async () => {
    const { p, m } = await seller()
    standIn.fail(fault('earn', 'after', '500', ATTEMPTS))
    expect((await sell(app, p, m, PAJAMAS)).statusCode).toBe(502)
    expect(await booksOf(app, p)).toEqual(OWNING)
    expect(await sagaStates(app, p.avatarId)).toEqual(['COMPENSATED'])
  })

  test.each([
    ['the item taken, every answer lost', fault('take-item', 'after', '500', ALWAYS), { money: 100, items: [] }],
    ['paying never arrives', fault('earn', 'before', '500', ALWAYS), { money: 100, items: [] }],
    ['paid, every answer lost', fault('earn', 'after', 'timeout', ALWAYS), { money: 107, items: [] }],
  ])('an outage (%s): 502; the recovery job undoes it once the service is back', async (_case, f, during) => {
    const { p, m } = await seller()
    standIn.fail(f)
    expect((await sell(app, p, m, PAJAMAS)).statusCode).toBe(502)
    standIn.heal()
    expect(await booksOf(app, p)).toEqual(during)
    await recover()
    expect(await booksOf(app, p)).toEqual(OWNING)
    expect(await sagaStates(app, p.avatarId)).toEqual(['COMPENSATED'])
    expect((await app.inject({ url: `/api/v1/marketplaces/${m}/sold-items`, headers: p.auth })).json()).toEqual([])
  })
})

/**
 * Crash points: a trigger makes the saga log refuse the write that records a step, as if the
 * process died right after the avatar applied it and before the log said so.
 */
async function installCrashPoints(on: TestApp): Promise<void> {
  await on.database.db.execute(sql.raw('create table public.crash_points (avatar_id text primary key, after_step text not null)'))
  await on.database.db.execute(sql.raw(`
    create function public.crash_after_step() returns trigger language plpgsql as $$
    begin
      if exists (select 1 from public.crash_points c where c.avatar_id = new.avatar_id and new.done @> to_jsonb(array[c.after_step])) then
        raise exception 'injected crash';
      end if;
      return new;
    end $$`))
  await on.database.db.execute(sql.raw('create trigger crash_after_step before update on marketplace.sagas for each row execute function public.crash_after_step()'))
}

const crashAfter = (on: TestApp, p: Player, step: string) =>
  on.database.db.execute(sql`insert into public.crash_points values (${p.avatarId}, ${step})`)
const restart = (on: TestApp, p: Player) => on.database.db.execute(sql`delete from public.crash_points where avatar_id = ${p.avatarId}`)

describe('a run that stops midway is settled by the recovery job', () => {
  let local: TestApp
  beforeAll(async () => {
    local = await buildTestApp({ clock, env: { ACCESS_TOKEN_TTL_SECONDS: '86400' } })
    await installCrashPoints(local)
  })
  afterAll(() => local?.close())

  describe.each([['in-process', () => local], ['over HTTP', () => app]])('%s', (_shape, on) => {
    test.each([
      ['after the spend', 'spend', { money: 70, items: [] }],
      ['after adding the item', 'add-item', BOUGHT],
    ])('a buy stopped %s: the books balance once the job has run', async (_case, step, during) => {
      const p = await newPlayer(on())
      const m = await marketplaceOf(on(), p)
      await crashAfter(on(), p, step)
      expect((await buy(on(), p, m, SWORD)).statusCode).toBe(500)
      expect(await booksOf(on(), p)).toEqual(during)
      expect(await sagaStates(on(), p.avatarId)).toEqual(['RUNNING'])
      await restart(on(), p)
      await recover(on())
      expect(await booksOf(on(), p)).toEqual(BEFORE)
      expect(await sagaStates(on(), p.avatarId)).toEqual(['COMPENSATED'])
    })

    test.each([
      ['after taking the item', 'take-item', { money: 100, items: [] }],
      ['after paying', 'earn', SOLD],
    ])('a sale stopped %s: the books balance once the job has run', async (_case, step, during) => {
      const { p, m } = await seller(on())
      await crashAfter(on(), p, step)
      expect((await sell(on(), p, m, PAJAMAS)).statusCode).toBe(500)
      expect(await booksOf(on(), p)).toEqual(during)
      await restart(on(), p)
      await recover(on())
      expect(await booksOf(on(), p)).toEqual(OWNING)
      expect(await sagaStates(on(), p.avatarId)).toEqual(['COMPENSATED'])
    })
  })

  test('a run still within its lease is left alone', async () => {
    const p = await newPlayer(local)
    const m = await marketplaceOf(local, p)
    await crashAfter(local, p, 'spend')
    expect((await buy(local, p, m, SWORD)).statusCode).toBe(500)
    await restart(local, p)
    await local.runJob(RECOVER)
    expect(await sagaStates(local, p.avatarId)).toEqual(['RUNNING'])
    await recover(local)
    expect(await sagaStates(local, p.avatarId)).toEqual(['COMPENSATED'])
  })
})

describe('a run that outlives its lease', () => {
  const slowClock = new ManualClock(new Date())
  const slowStandIn = new AvatarStandIn(5000)
  let slow: TestApp
  beforeAll(async () => {
    const url = await slowStandIn.start()
    slow = await buildTestApp({ clock: slowClock, env: { AVATAR_URL: url, SERVICE_CALL_TIMEOUT_MS: '5000', ACCESS_TOKEN_TTL_SECONDS: '86400' } })
    slowStandIn.target = slow
  })
  afterAll(async () => {
    await slow?.close()
    await slowStandIn.close()
  })

  test('is taken over by the recovery job; its late call is absorbed by the idempotency key; it answers 502', async () => {
    const p = await newPlayer(slow)
    const m = await marketplaceOf(slow, p)
    let open!: () => void
    const gate = new Promise<void>((resolve) => (open = resolve))
    slowStandIn.fail({ call: 'add-item', when: 'before', kind: 'hold', times: 1, gate })
    const pending = buy(slow, p, m, SWORD)
    while (slowStandIn.count('add-item') === 0) await new Promise((r) => setTimeout(r, 10))
    // The request is stuck in its add-item call; its lease runs out and the job takes the run over.
    slowClock.advance(SAGA_LEASE_MS + 1000)
    await slow.runJob(RECOVER)
    expect(await sagaStates(slow, p.avatarId)).toEqual(['COMPENSATED'])
    expect(await booksOf(slow, p)).toEqual(BEFORE)
    // The held call now arrives: its key was applied by the job's resend, so nothing changes again.
    open()
    const res = await pending
    expect(res.statusCode).toBe(502)
    expect(res.json().type).toBe('/problems/avatar-unavailable')
    expect(await booksOf(slow, p)).toEqual(BEFORE)
    expect(await sagaStates(slow, p.avatarId)).toEqual(['COMPENSATED'])
  })
})
