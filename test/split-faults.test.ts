/**
 * Split services under faults (the split-services issue): a tracking replica killed while attends
 * flow, every avatar replica killed in the middle of marketplace buys or while a player
 * registers, the NATS server stopped and started again (a rolling restart under load is in
 * rolling-restart.test.ts). Whatever fails, what was recorded takes effect exactly once: the avatar's rewards
 * match the completions tracking recorded, and the books of every trade balance. Each test starts
 * a cluster of its own and removes everything it made, also when it fails.
 */
import { randomUUID } from 'node:crypto'
import { sql } from 'drizzle-orm'
import { describe, expect, test } from 'vitest'
import { REGISTRATION_LEASE_MS } from '../src/contexts/edge/domain/rules.js'
import { RECOVER_REGISTRATIONS_JOB } from '../src/contexts/edge/index.js'
import { RECOVER_SAGAS_JOB } from '../src/contexts/marketplace/index.js'
import { SAGA_LEASE_MS } from '../src/contexts/marketplace/domain/rules.js'
import { ManualClock, systemClock } from '../src/platform/clock.js'
import { ownerOf, partition } from '../src/platform/ownership/partitions.js'
import { buildTestApp } from './support/app.js'
import { guildOf, newGuild } from './support/guilds.js'
import { attend, avatarOf, newHabit } from './support/habits.js'
import { booksOf, buy, marketplaceOf, sagaRuns } from './support/marketplaces.js'
import { newPlayer, type Player } from './support/players.js'
import { PrivateNats } from './support/private-nats.js'
import { buildOwnSplitApp, type OwnSplitTestApp, type SplitTestApp } from './support/split-app.js'
import { burst, CONNECTION_FAILED, inParallel, type Answer } from './support/traffic.js'

/** Per test, cluster start included; the steps inside have tighter deadlines of their own. */
const TEST_TIMEOUT_MS = 90_000
/**
 * What a process that died had in hand (outbox rows it claimed, events delivered to it) is taken
 * up by another after these leases; 30 s by default, shorter here so each test stays short.
 */
const LEASES = { OUTBOX_LEASE_SECONDS: '5', NATS_ACK_WAIT_SECONDS: '5' }
/** Waiting for events after a crash: a few leases' worth. */
const SETTLE_AFTER_CRASH_MS = 20_000
/** A request with no answer in this long is a hang. */
const ANSWER_WITHIN_MS = 15_000
const STATUS_OK = 204

const ATTENDS = 48
// 48 first completions of daily habits at 10 experience and 2 money each: 480 experience climbs
// from level 1 to 4 (100 + 150 + 200) with 30 over; money 100 + 96, and 20 for each level gained.
const ALL_ATTENDED = { level: 4, experience: 30, money: 256 }

const splitApp = async (opts: Parameters<typeof buildTestApp>[0] = {}) =>
  (await buildTestApp({ ...opts, ownCluster: true, env: { ACCESS_TOKEN_TTL_SECONDS: '86400', ...LEASES, ...opts.env } })) as OwnSplitTestApp

/** Now as a habit in UTC sees it, e.g. 2026-03-02T08:30:00. */
const localNow = () => systemClock.now().toISOString().slice(0, 19)

const habitsOf = (app: SplitTestApp, p: Player) => inParallel(Array.from({ length: ATTENDS }, (_, i) => i), 8, (i) => newHabit(app, p, { title: `Habit ${i}` }))

/** How many completions tracking recorded for each habit. */
async function completionsOf(app: SplitTestApp, p: Player, habits: string[]): Promise<Map<string, number>> {
  const counts = await inParallel(habits, 8, async (id) => {
    const res = await app.inject({ url: `/api/v1/habits/${id}/history`, headers: p.auth })
    expect(res.statusCode, res.body).toBe(200)
    return res.json().history.length as number
  })
  return new Map(habits.map((id, i) => [id, counts[i]!]))
}

async function rewardsOf(app: SplitTestApp, p: Player) {
  const a = await avatarOf(app, p)
  return { level: a.level.levelNumber, experience: a.level.currentExperience, money: a.money.amount }
}

async function attendAll(app: SplitTestApp, p: Player, habits: string[], date: string): Promise<void> {
  await inParallel(habits, 8, async (id) => {
    const res = await attend(app, p, id, date)
    expect(res.statusCode, res.body).toBe(STATUS_OK)
  })
}

/** A failure the platform may give while a process is down; a 500 or a hang is a defect. */
const expectOnlyOutageFailures = <T>(answers: Answer<T>[], allowed: number[]) => {
  const unexpected = answers.filter((a) => a.status !== STATUS_OK && !allowed.includes(a.status))
  expect(unexpected.map((a) => `${a.status} ${a.body}`)).toEqual([])
}

/** Polling for what a restart or an outage settles into: ten seconds, five times a second. */
const within10s = (message: string) => ({ timeout: 10_000, interval: 200, message })

const readiness = (base: string) =>
  fetch(`${base}/readyz`, { signal: AbortSignal.timeout(2_000) }).then((r) => r.status, () => CONNECTION_FAILED)

describe('split services under faults', () => {
  test('a tracking replica killed while attends flow: each recorded completion is rewarded once, the rest can be retried', async ({ onTestFinished }) => {
    const app = await splitApp()
    onTestFinished(() => app.close())
    const p = await newPlayer(app)
    // Attends the same number of habits as p has completions, without faults: what that many rewards make.
    const twin = await newPlayer(app)
    const guild = await newGuild(app, p)
    const [habits, twinHabits] = await Promise.all([habitsOf(app, p), habitsOf(app, twin)])
    const date = localNow()

    const [victim] = app.cluster.of('tracking')
    const flow = burst(habits, (id) => attend(app, p, id, date), { concurrency: 8, answerWithinMs: ANSWER_WITHIN_MS })
    await flow.answered(ATTENDS / 3)
    await app.cluster.kill(victim!)
    const answers = await flow.done
    expect(app.cluster.of('tracking')).toHaveLength(1)
    // The gateway answers 503 for a request its replica died under (or before it noticed).
    expectOnlyOutageFailures(answers, [503])
    const accepted = answers.filter((a) => a.status === STATUS_OK).map((a) => a.item)
    const failed = answers.filter((a) => a.status !== STATUS_OK).map((a) => a.item)
    expect(accepted.length).toBeGreaterThanOrEqual(ATTENDS / 3)

    await app.restart(victim!)
    await app.settle(SETTLE_AFTER_CRASH_MS)
    const completions = await completionsOf(app, p, habits)
    // A failed attend took effect entirely or not at all; an accepted one exactly once.
    for (const id of habits) expect(completions.get(id), id).toBeLessThanOrEqual(1)
    for (const id of accepted) expect(completions.get(id), id).toBe(1)
    const recorded = habits.filter((id) => completions.get(id) === 1)

    await attendAll(app, twin, twinHabits.slice(0, recorded.length), date)
    await app.settle()
    expect(await rewardsOf(app, p)).toEqual(await rewardsOf(app, twin))
    expect((await guildOf(app, p, guild)).points).toBe(recorded.length)

    // Retried: a first attempt that was recorded is refused as a second completion; the others succeed.
    for (const id of failed) {
      const res = await attend(app, p, id, date)
      if (completions.get(id) === 1) {
        expect(res.statusCode, res.body).toBe(400)
        expect(res.json().type).toBe('/problems/window-already-completed')
      } else expect(res.statusCode, res.body).toBe(STATUS_OK)
    }
    await app.settle()
    expect([...(await completionsOf(app, p, habits)).values()]).toEqual(habits.map(() => 1))
    expect(await rewardsOf(app, p)).toEqual(ALL_ATTENDED)
    expect((await guildOf(app, p, guild)).points).toBe(ATTENDS)
  }, TEST_TIMEOUT_MS)

  test('every avatar replica killed in the middle of buys, then restarted: each run completes or is undone, and the books balance', async ({ onTestFinished }) => {
    const BUYS = 30
    const ITEMS = ['Minor Healing Draught', 'Cup of Strong Coffee']
    const RECOVER = RECOVER_SAGAS_JOB
    const clock = new ManualClock(systemClock.now())
    const app = await splitApp({ clock })
    onTestFinished(() => app.close())
    const p = await newPlayer(app)
    const earn = await app.inject({ method: 'POST', url: `/api/v1/avatars/${p.avatarId}/money/earn`, headers: p.auth, payload: { amount: 100 } })
    expect(earn.statusCode, earn.body).toBe(204)
    const m = await marketplaceOf(app, p)
    const price = new Map<string, number>()
    for (const name of ITEMS) {
      const res = await app.inject({ url: `/api/v1/marketplaces/${m}/items/${encodeURIComponent(name)}`, headers: p.auth })
      expect(res.statusCode, res.body).toBe(200)
      price.set(name, res.json().price)
    }
    const before = await booksOf(app, p)
    expect(before).toEqual({ money: 200, items: [] })

    const avatars = app.cluster.of('avatar')
    expect(avatars).toHaveLength(2)
    const orders = Array.from({ length: BUYS }, (_, i) => ITEMS[i % ITEMS.length]!)
    const flow = burst(orders, (name) => buy(app, p, m, name), { concurrency: 10, answerWithinMs: ANSWER_WITHIN_MS })
    await flow.answered(BUYS / 4)
    await Promise.all(avatars.map((a) => app.cluster.kill(a)))
    const answers = await flow.done
    // Refused for want of money (400), or the avatar unreachable: undone or left to the recovery job (502).
    expectOnlyOutageFailures(answers, [400, 502])
    for (const a of answers.filter((a) => a.status === 400)) expect(JSON.parse(a.body).type).toBe('/problems/insufficient-funds')
    expect(answers.filter((a) => a.status === 502).length).toBeGreaterThan(0)

    for (const a of avatars) await app.restart(a)
    // The gateway and the marketplace find the avatars again on their next health round.
    await expect.poll(async () =>
      (await app.inject({ url: `/api/v1/avatars/${p.avatarId}`, headers: p.auth })).statusCode === 200 &&
      (await app.inject({ method: 'POST', url: '/api/v1/marketplaces', headers: p.auth, payload: { avatarId: p.avatarId } })).statusCode === 200,
    within10s('the avatar reachable through the gateway and the marketplace')).toBe(true)
    clock.advance(SAGA_LEASE_MS + 1000)
    await app.runJob(RECOVER)

    // Every run is settled: DONE, COMPENSATED, or FAILED (refused before anything was applied).
    const runs = await sagaRuns(app, p.avatarId)
    expect(runs).toHaveLength(BUYS)
    expect(runs.filter((r) => !['DONE', 'COMPENSATED', 'FAILED'].includes(r.state))).toEqual([])
    const after = await booksOf(app, p)
    expect(after.money).toBeGreaterThanOrEqual(0)
    // What the inventory gained is what the completed runs bought, paid at the catalog price.
    expect(after.items).toEqual(runs.filter((r) => r.state === 'DONE').map((r) => r.itemName).sort())
    expect(before.money - after.money).toBe(after.items.reduce((sum, name) => sum + price.get(name)!, 0))
    const owned = (name: string) => after.items.filter((i) => i === name).length
    for (const name of ITEMS) {
      expect(owned(name), name).toBeGreaterThanOrEqual(answers.filter((a) => a.item === name && a.status === STATUS_OK).length)
    }
  }, TEST_TIMEOUT_MS)

  test('every avatar replica down while a player registers: 502 and no account; once they are back the recovery job undoes the rest and frees the email', async ({ onTestFinished }) => {
    const clock = new ManualClock(systemClock.now())
    const app = await splitApp({ clock })
    onTestFinished(() => app.close())
    const witness = await newPlayer(app)
    const email = `down-${randomUUID()}@example.com`
    const register = (name: string) => app.inject({ method: 'POST', url: '/auth/register', payload: { name, email, password: 'password-1' } })
    const login = () => app.inject({ method: 'POST', url: '/auth/login', payload: { email, password: 'password-1' } })
    const registrations = async () => (await app.database.db.execute(sql`select state from identity.registrations
      where user_id <> ${witness.userId}`) as unknown as { rows: { state: string }[] }).rows.map((r) => r.state)

    const avatars = app.cluster.of('avatar')
    await Promise.all(avatars.map((a) => app.cluster.kill(a)))
    const failed = await register('Nobody')
    expect(failed.statusCode, failed.body).toBe(502)
    expect(failed.json().type).toBe('/problems/avatar-unavailable')
    // Provisioning failed, and so did discarding its avatar (its outcome unknown): kept for the job.
    expect(await registrations()).toEqual(['COMPENSATING'])
    expect((await login()).statusCode).toBe(401)
    expect((await register('Nobody Else')).statusCode).toBe(409)

    for (const a of avatars) await app.restart(a)
    await expect.poll(async () => (await app.inject({ url: `/api/v1/avatars/${witness.avatarId}`, headers: witness.auth })).statusCode,
      within10s('the avatars reachable through the gateway')).toBe(200)
    clock.advance(REGISTRATION_LEASE_MS + 1000)
    await app.runJob(RECOVER_REGISTRATIONS_JOB)
    expect(await registrations()).toEqual(['COMPENSATED'])
    expect((await login()).statusCode).toBe(401)
    const again = await register('Somebody')
    expect(again.statusCode, again.body).toBe(200)
    expect((await login()).statusCode).toBe(200)
  }, TEST_TIMEOUT_MS)

  test('the NATS server stopped while attends flow and started again: the API keeps answering; no event lost, none applied twice', async ({ onTestFinished }) => {
    const nats = await PrivateNats.launch()
    onTestFinished(() => nats.close())
    const id = `qlfaults_${process.pid}_${Date.now().toString(36)}`
    const app = await buildOwnSplitApp({ env: { ACCESS_TOKEN_TTL_SECONDS: '86400', ...LEASES } },
      { env: { NATS_URL: nats.url, NATS_STREAM: id, NATS_SUBJECT_PREFIX: id }, cleanup: () => nats.close() })
    onTestFinished(() => app.close())
    const p = await newPlayer(app)
    const guild = await newGuild(app, p)
    const habits = await habitsOf(app, p)
    const date = localNow()
    const [first, second, third] = [habits.slice(0, 16), habits.slice(16, 32), habits.slice(32)]
    const send = (ids: string[]) => burst(ids, (h) => attend(app, p, h, date), { concurrency: 4, answerWithinMs: ANSWER_WITHIN_MS })

    const before = send(first)
    await before.answered(first.length / 2)
    await nats.stop()
    const during = send(second)
    // The processes notice: not ready without their event bus.
    const tracking = app.cluster.of('tracking')[0]!
    await expect.poll(() => readiness(tracking.url), within10s('tracking reports its bus down')).toBe(503)
    const answersDuring = await during.done
    const restarted = nats.start()
    const after = send(third)
    await restarted
    const answers = [...(await before.done), ...answersDuring, ...(await after.done)]
    expectOnlyOutageFailures(answers, [])
    // Every bus has reconnected.
    await expect.poll(async () => (await Promise.all(app.cluster.processes.map((c) => readiness(c.url)))).every((status) => status === 200),
      within10s('every process ready again')).toBe(true)

    await app.settle(SETTLE_AFTER_CRASH_MS)
    expect([...(await completionsOf(app, p, habits)).values()]).toEqual(habits.map(() => 1))
    expect(await rewardsOf(app, p)).toEqual(ALL_ATTENDED)
    expect((await guildOf(app, p, guild)).points).toBe(ATTENDS)
  }, TEST_TIMEOUT_MS)

  test("one avatar's requests and events are handled by the replica owning its partition; killed, another takes them over", async ({ onTestFinished }) => {
    const EARNS = 20
    const app = await splitApp()
    onTestFinished(() => app.close())
    const p = await newPlayer(app)
    const habits = await Promise.all([1, 2, 3, 4].map((i) => newHabit(app, p, { title: `Habit ${i}` })))
    const date = localNow()
    const replicas = app.cluster.of('avatar')
    const owner = replicas.find((r) => r.url === ownerOf(partition(p.avatarId), replicas.map((x) => x.url)))!
    const other = replicas.find((r) => r !== owner)!
    const before = await Promise.all(replicas.map(commandsApplied))

    const earn = () => app.inject({ method: 'POST', url: `/api/v1/avatars/${p.avatarId}/money/earn`, headers: p.auth, payload: { amount: 1 } })
    const earned = await inParallel(Array.from({ length: EARNS }, (_, i) => i), 5, earn)
    expect(earned.map((r) => r.statusCode)).toEqual(earned.map(() => 204))
    // Each completion's reward reaches the avatar as an event (HabitAttended), on the avatar's partition.
    await attendAll(app, p, habits.slice(0, 2), date)
    await expect.poll(() => rewardsOf(app, p), within10s('both rewards applied')).toEqual({ level: 1, experience: 20, money: 100 + EARNS + 4 })
    const [ownerApplied, otherApplied] = await Promise.all([owner, other].map(async (r) => (await commandsApplied(r)) - before[replicas.indexOf(r)]!))
    expect(ownerApplied).toBeGreaterThanOrEqual(EARNS + 2)
    // Round-robin would give the other about half; a health check missed under load may send it a few.
    expect(otherApplied).toBeLessThanOrEqual((EARNS + 2) / 10)

    await app.cluster.kill(owner)
    // The gateway takes the next in rank once it sees the owner gone; the survivor takes the partition's events once its health round does.
    await expect.poll(async () => (await earn()).statusCode, within10s('earning through the survivor')).toBe(204)
    await attendAll(app, p, habits.slice(2), date)
    await expect.poll(async () => (await rewardsOf(app, p)).experience, within10s('the rewards applied by the survivor')).toBe(40)
  }, TEST_TIMEOUT_MS)
})

/** The avatar changes a replica has applied since it started (its writer's count, on its /metrics). */
async function commandsApplied(replica: { url: string }): Promise<number> {
  const text = await (await fetch(`${replica.url}/metrics`)).text()
  const line = text.split('\n').find((l) => l.startsWith('avatar_command_batched '))
  expect(line, 'avatar_command_batched on /metrics').toBeDefined()
  return Number(line!.slice(line!.lastIndexOf(' ') + 1))
}
