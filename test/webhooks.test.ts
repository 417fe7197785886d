/**
 * Webhooks (DESIGN §9.4): an account's endpoints get the events of its avatars, signed, retried
 * with backoff, cut at a timeout, and disabled after a day of failures. Receivers are local HTTP
 * servers (WEBHOOK_ALLOW_PRIVATE=true lets the platform call 127.0.0.1); a manual clock stands in
 * for the backoff's waits.
 */
import { randomUUID } from 'node:crypto'
import { getEventListeners } from 'node:events'
import http from 'node:http'
import { syncBuiltinESMExports } from 'node:module'
import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { SEND_WEBHOOKS_JOB } from '../src/contexts/live/app/webhook-sender.js'
import { WEBHOOK_SENDS_IN_FLIGHT } from '../src/contexts/live/domain/rules.js'
import { ManualClock } from '../src/platform/clock.js'
import { buildTestApp, splitTarget, type TestApp } from './support/app.js'
import { eventually } from './support/eventually.js'
import { newPlayer, signIn } from './support/players.js'
import { addEndpoint, atLeast, deliveriesOf, earn, hooks, receiver } from './support/webhooks.js'

/** An attempt is cut after this long here (10 s in a deployment). */
const TIMEOUT_MS = 2_000
const clock = new ManualClock(new Date('2026-03-02T08:00:00Z'))

let app: TestApp
beforeAll(async () => {
  app = await buildTestApp({ clock, env: { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS) } })
})
afterAll(() => app.close())

/** Runs the sender and looks again until `probe` answers something (at most 5 s). */
const afterSending = <T>(probe: () => Promise<T | undefined> | T | undefined, what: string): Promise<T> =>
  eventually(what, async () => {
    await app.runJob(SEND_WEBHOOKS_JOB)
    return probe()
  })

/** Runs the sender and gives what it might start time to arrive: for checking that nothing is sent. */
async function sendAndWait(): Promise<void> {
  await app.runJob(SEND_WEBHOOKS_JOB)
  await new Promise((resolve) => setTimeout(resolve, 300))
}

describe('webhooks', () => {
  test('a delivery carries the event, signed with the secret shown once; the log shows it delivered', async ({ onTestFinished }) => {
    const p = await newPlayer(app)
    const r = await receiver(onTestFinished)
    const endpoint = await addEndpoint(app, p, r.url)
    expect(endpoint.secret).toMatch(/^whsec_/)
    const listed = (await app.inject({ url: hooks, headers: p.auth })).json().items
    expect(listed).toEqual([expect.objectContaining({ id: endpoint.id, url: r.url, events: ['AvatarChanged'], enabled: true, disabledAt: null })])
    expect(listed[0]).not.toHaveProperty('secret')

    await earn(app, p)
    const [sent] = await afterSending(() => atLeast(r.received, 1), 'a delivery')
    const event = JSON.parse(sent!.body)
    expect(event).toMatchObject({ id: expect.any(String), type: 'AvatarChanged', occurredAt: expect.any(String), payload: { avatarId: p.avatarId, money: 105 } })
    expect(sent!.headers['content-type']).toBe('application/json')
    expect(sent!.headers['user-agent']).toMatch(/^Questline/)
    expect(sent!.headers['questline-event-id']).toBe(event.id)
    // Standard Webhooks' headers (test/standard-webhooks.test.ts verifies them with its library): the attempt's time by the platform's clock.
    expect(sent!.headers['webhook-timestamp']).toBe(String(Math.floor(clock.now().getTime() / 1000)))
    expect(sent!.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/)
    expect(sent!.headers).not.toHaveProperty('questline-signature')

    const delivered = await afterSending(async () => (await deliveriesOf(app, p, endpoint.id)).find((d) => d.status === 'DELIVERED'), 'DELIVERED')
    expect(delivered).toMatchObject({ eventId: event.id, type: 'AvatarChanged', attempts: 1, lastStatusCode: 200, nextAttemptAt: null })
    expect(sent!.headers['webhook-id']).toBe(delivered.id)
  })

  test('a 500 is tried again after the backoff, not before; then a 200 delivers it: two attempts', async ({ onTestFinished }) => {
    const p = await newPlayer(app)
    const r = await receiver(onTestFinished, (n) => (n === 0 ? 500 : 200))
    const endpoint = await addEndpoint(app, p, r.url)
    await earn(app, p)
    const [failed] = await afterSending(async () => atLeast((await deliveriesOf(app, p, endpoint.id)).filter((d) => d.attempts === 1), 1), 'a first attempt')
    expect(failed).toMatchObject({ status: 'PENDING', lastStatusCode: 500, nextAttemptAt: new Date(clock.now().getTime() + 1_000).toISOString() })
    await sendAndWait()
    expect(r.received).toHaveLength(1)

    clock.advance(1_000)
    const delivered = await afterSending(async () => (await deliveriesOf(app, p, endpoint.id)).find((d) => d.status === 'DELIVERED'), 'the retry')
    expect(delivered).toMatchObject({ id: failed!.id, attempts: 2, lastStatusCode: 200 })
    expect(r.received.map((x) => x.headers['questline-event-id'])).toEqual([failed!.eventId, failed!.eventId])
    // One delivery, one webhook-id (a receiver's idempotency key); each attempt at its own time.
    const firstAt = Math.floor(clock.now().getTime() / 1000) - 1
    expect(r.received.map((x) => [x.headers['webhook-id'], x.headers['webhook-timestamp']])).toEqual([[failed!.id, String(firstAt)], [failed!.id, String(firstAt + 1)]])
    expect(r.received[1]!.body).toBe(r.received[0]!.body)
  })

  test('a receiver that hangs does not hold up the delivery to another endpoint', async ({ onTestFinished }) => {
    const p = await newPlayer(app)
    const hanging = await receiver(onTestFinished, () => 'hang')
    const prompt = await receiver(onTestFinished)
    // The hanging endpoint's delivery is made first, and so taken first.
    const stuck = await addEndpoint(app, p, hanging.url)
    const quick = await addEndpoint(app, p, prompt.url)
    await earn(app, p)
    await afterSending(async () => (await deliveriesOf(app, p, quick.id)).find((d) => d.status === 'DELIVERED'), 'the prompt endpoint delivered')
    await afterSending(() => atLeast(hanging.received, 1), 'the hanging endpoint reached')
    // Its attempt is still under way: the other did not wait for it to time out.
    expect(await deliveriesOf(app, p, stuck.id)).toEqual([expect.objectContaining({ status: 'PENDING', attempts: 0 })])
  })

  // In one process: the sender's requests, warnings and close are this process's.
  test.skipIf(splitTarget)('every attempt under way has an abort signal of its own (no listener pile-up on one signal), and closing cuts them all', async ({ onTestFinished }) => {
    const own = await buildTestApp({ clock, env: { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_TIMEOUT_MS: '60000' } })
    let closed = false
    onTestFinished(async () => void (closed || (await own.close())))
    // The signal of each request the sender makes (node:http's request, seen by the transport's import too).
    const signals: AbortSignal[] = []
    const request = http.request
    http.request = ((...args: Parameters<typeof http.request>) => {
      const options = args.find((a) => typeof a === 'object' && a !== null && !(a instanceof URL)) as http.RequestOptions | undefined
      if (options?.signal) signals.push(options.signal)
      return request(...args)
    }) as typeof http.request
    syncBuiltinESMExports()
    onTestFinished(() => {
      http.request = request
      syncBuiltinESMExports()
    })
    // Node 22 warns once 11 listeners wait on one signal (MaxListenersExceededWarning), Node 24 does not: the signals themselves are checked below, the warnings as well.
    const warnings: string[] = []
    const onWarning = (w: Error) => void warnings.push(`${w.name}: ${w.message}`)
    process.on('warning', onWarning)
    onTestFinished(() => void process.off('warning', onWarning))

    const p = await newPlayer(own)
    const hanging = await receiver(onTestFinished, () => 'hang')
    await addEndpoint(own, p, hanging.url)
    for (let i = 0; i < WEBHOOK_SENDS_IN_FLIGHT; i++) await earn(own, p, 1)
    await eventually('every place taken by a hanging attempt', async () => {
      await own.runJob(SEND_WEBHOOKS_JOB)
      return atLeast(hanging.received, WEBHOOK_SENDS_IN_FLIGHT)
    })
    expect(signals).toHaveLength(WEBHOOK_SENDS_IN_FLIGHT)
    expect(new Set(signals).size).toBe(WEBHOOK_SENDS_IN_FLIGHT)
    expect(signals.map((s) => getEventListeners(s, 'abort').length)).toEqual(signals.map(() => 1))
    await new Promise((resolve) => setImmediate(resolve))
    expect(warnings).toEqual([])

    const closing = Date.now()
    await own.close()
    closed = true
    expect(Date.now() - closing).toBeLessThan(10_000)
    expect(signals.every((s) => s.aborted)).toBe(true)
  })

  test('a receiver slower than the timeout is cut: its late 200 does not count, and the attempt is retried', async ({ onTestFinished }) => {
    const p = await newPlayer(app)
    const r = await receiver(onTestFinished, () => ({ status: 200, afterMs: TIMEOUT_MS + 3_000 }))
    const endpoint = await addEndpoint(app, p, r.url)
    await earn(app, p)
    const cut = await afterSending(async () => (await deliveriesOf(app, p, endpoint.id)).find((d) => d.attempts === 1), 'the attempt recorded')
    const tookMs = Date.now() - r.received[0]!.at
    expect(cut).toMatchObject({ status: 'PENDING', lastStatusCode: null, lastError: `no answer within ${TIMEOUT_MS} ms`, nextAttemptAt: expect.any(String) })
    // The receiver stamps the request once its body is in, some time after the sender's clock began (connecting, and
    // under load the event loop's lag): from below, only that it waited most of the timeout, not that it failed at once.
    expect(tookMs).toBeGreaterThanOrEqual(TIMEOUT_MS - 1_000)
    expect(tookMs).toBeLessThan(TIMEOUT_MS + 2_500)
  })

  test('redelivery attempts a delivered event again now, the same body under the same event id', async ({ onTestFinished }) => {
    const p = await newPlayer(app)
    const r = await receiver(onTestFinished)
    const endpoint = await addEndpoint(app, p, r.url)
    await earn(app, p)
    const [delivered] = await afterSending(async () => atLeast((await deliveriesOf(app, p, endpoint.id)).filter((d) => d.status === 'DELIVERED'), 1), 'DELIVERED')
    const res = await app.inject({ method: 'POST', url: `${hooks}/${endpoint.id}/deliveries/${delivered!.id}/redeliver`, headers: p.auth })
    expect(res.statusCode, res.body).toBe(202)
    expect(res.json()).toMatchObject({ id: delivered!.id, status: 'PENDING', attempts: 1, nextAttemptAt: clock.now().toISOString() })
    await afterSending(async () => (await deliveriesOf(app, p, endpoint.id)).find((d) => d.attempts === 2 && d.status === 'DELIVERED'), 'a second attempt')
    expect(r.received).toHaveLength(2)
    expect(r.received[1]!.body).toBe(r.received[0]!.body)
    expect(r.received[1]!.headers['questline-event-id']).toBe(delivered!.eventId)
    expect(r.received.map((x) => x.headers['webhook-id'])).toEqual([delivered!.id, delivered!.id])
    const unknown = await app.inject({ method: 'POST', url: `${hooks}/${endpoint.id}/deliveries/${randomUUID()}/redeliver`, headers: p.auth })
    expect(unknown.statusCode).toBe(404)
  })

  test('an endpoint gets only the event types it asked for', async ({ onTestFinished }) => {
    const p = await newPlayer(app)
    const r = await receiver(onTestFinished)
    const endpoint = await addEndpoint(app, p, r.url, ['AvatarLeveledUp'])
    // Money changes the avatar (AvatarChanged), which this endpoint did not ask for…
    await earn(app, p)
    // …and 100 experience raises it to level 2 (AvatarChanged and AvatarLeveledUp).
    expect((await app.inject({ method: 'POST', url: `/api/v1/avatars/${p.avatarId}/experience/grant`, headers: p.auth, payload: { amount: 100 } })).statusCode).toBe(204)
    await app.settle()
    await afterSending(() => atLeast(r.received, 1), 'the level-up')
    await sendAndWait()
    expect(r.received.map((x) => JSON.parse(x.body).type)).toEqual(['AvatarLeveledUp'])
    expect((await deliveriesOf(app, p, endpoint.id)).map((d) => d.type)).toEqual(['AvatarLeveledUp'])
  })

  test("a day of failures disables the endpoint and tells the account; enabling it sends what waited", async ({ onTestFinished }) => {
    const p = await newPlayer(app)
    let down = true
    const r = await receiver(onTestFinished, () => (down ? 503 : 200))
    const endpoint = await addEndpoint(app, p, r.url)
    await earn(app, p)
    await afterSending(async () => (await deliveriesOf(app, p, endpoint.id)).find((d) => d.attempts === 1), 'a first failed attempt')

    clock.advance(24 * 3_600_000)
    await signIn(app, p)
    await earn(app, p)
    const listed = await afterSending(async () => {
      const [e] = (await app.inject({ url: hooks, headers: p.auth })).json().items
      return e.enabled ? undefined : e
    }, 'the endpoint disabled')
    expect(listed).toMatchObject({ id: endpoint.id, enabled: false, disabledAt: clock.now().toISOString() })
    const inbox = (await app.inject({ url: `/api/v1/avatars/${p.avatarId}/notifications`, headers: p.auth })).json().items
    expect(inbox.filter((n: { type: string }) => n.type === 'WEBHOOK_DISABLED')).toEqual([
      expect.objectContaining({ title: 'Webhook disabled', data: expect.objectContaining({ endpointId: endpoint.id, url: r.url }) }),
    ])
    // Disabled: nothing is attempted, and what waits is paused.
    const attempted = r.received.length
    await sendAndWait()
    expect(r.received).toHaveLength(attempted)
    expect((await deliveriesOf(app, p, endpoint.id)).filter((d) => d.status === 'PENDING').map((d) => d.nextAttemptAt)).toEqual([null, null])

    down = false
    const enabled = await app.inject({ method: 'POST', url: `${hooks}/${endpoint.id}/enable`, headers: p.auth })
    expect(enabled.statusCode, enabled.body).toBe(200)
    expect(enabled.json()).toMatchObject({ enabled: true, disabledAt: null, failingSince: null })
    const log = await afterSending(async () => {
      const items = await deliveriesOf(app, p, endpoint.id)
      return items.every((d) => d.status === 'DELIVERED') ? items : undefined
    }, 'both delivered after enabling')
    expect(log).toHaveLength(2)
  })

  test("deleting the account forgets its endpoints and their log; another account's stay", async ({ onTestFinished }) => {
    const [p, other] = [await newPlayer(app), await newPlayer(app)]
    const r = await receiver(onTestFinished)
    const endpoint = await addEndpoint(app, p, r.url)
    const kept = await addEndpoint(app, other, r.url)
    await earn(app, p)
    await afterSending(async () => atLeast(await deliveriesOf(app, p, endpoint.id), 1), 'a delivery in the log')
    expect((await storedOf(endpoint.id)).endpoints).toBe(1)

    const deleted = await app.inject({ method: 'DELETE', url: '/api/v1/me', headers: p.auth, payload: { password: p.password } })
    expect(deleted.statusCode, deleted.body).toBe(204)
    await app.settle()
    expect(await storedOf(endpoint.id)).toEqual({ endpoints: 0, deliveries: 0 })
    expect((await app.inject({ url: hooks, headers: other.auth })).json().items).toEqual([expect.objectContaining({ id: kept.id })])
  })
})

/** What the live context still stores of an endpoint (its row, its deliveries): read under the API, since its account is gone. */
async function storedOf(endpointId: string): Promise<{ endpoints: number; deliveries: number }> {
  const res = await app.database.db.execute(sql`select
    (select count(*)::int from live.webhook_endpoints where id = ${endpointId}) as endpoints,
    (select count(*)::int from live.webhook_deliveries where endpoint_id = ${endpointId}) as deliveries`)
  return (res as unknown as { rows: { endpoints: number; deliveries: number }[] }).rows[0]!
}

describe('refusals', () => {
  test('a URL that is no http(s) URL, carries credentials, or is on a private address is refused, naming the field; so is an unknown type', async ({ onTestFinished }) => {
    // Without WEBHOOK_ALLOW_PRIVATE, as deployed.
    const strict = await buildTestApp()
    onTestFinished(() => strict.close())
    const p = await newPlayer(strict)
    const refused = async (payload: unknown) => {
      const res = await strict.inject({ method: 'POST', url: hooks, headers: p.auth, payload: payload as object })
      expect(res.statusCode, res.body).toBe(400)
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/)
      return res.json().errors.map((e: { path: string }) => e.path)
    }
    for (const url of ['ftp://example.com/hook', 'https://user:pw@example.com/hook', 'not a url', 'http://127.0.0.1:9/hook', 'http://localhost:9/hook',
      'http://[::1]/hook', 'http://[::ffff:10.0.0.1]/hook', 'http://169.254.169.254/latest', 'http://[fd00::1]/hook', 'http://0.0.0.0/hook']) {
      expect(await refused({ url, events: ['AvatarChanged'] }), url).toEqual(['body/url'])
    }
    expect(await refused({ url: 'https://example.com/hook', events: ['AvatarTeleported'] })).toEqual(['body/events/0'])
    expect((await strict.inject({ url: hooks, headers: p.auth })).json().items).toEqual([])
  })

  test("another account's endpoint is not found, whatever is asked of it", async ({ onTestFinished }) => {
    const owner = await newPlayer(app)
    const other = await newPlayer(app)
    const endpoint = await addEndpoint(app, owner, (await receiver(onTestFinished)).url)
    for (const [method, path] of [['GET', '/deliveries'], ['POST', '/enable'], ['DELETE', ''], ['POST', `/deliveries/${randomUUID()}/redeliver`]] as const) {
      const res = await app.inject({ method, url: `${hooks}/${endpoint.id}${path}`, headers: other.auth })
      expect(res.statusCode, `${method} ${path}`).toBe(404)
    }
    expect((await app.inject({ url: hooks, headers: other.auth })).json().items).toEqual([])
    expect((await app.inject({ url: hooks, headers: owner.auth })).json().items).toHaveLength(1)
    expect((await app.inject({ method: 'DELETE', url: `${hooks}/${endpoint.id}`, headers: owner.auth })).statusCode).toBe(204)
    expect((await app.inject({ url: hooks, headers: owner.auth })).json().items).toEqual([])
  })
})
