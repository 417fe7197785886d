/**
 * Webhook deliveries by the Standard Webhooks specification: a receiver verifies each one with the
 * specification's own library (npm `standardwebhooks`) and its endpoint's secret, and writes no
 * code of its own. On the system clock, since the library checks the attempt's time against its
 * own (five minutes either way).
 */
import { createHmac, randomUUID } from 'node:crypto'
import { sql } from 'drizzle-orm'
import { Webhook, WebhookVerificationError } from 'standardwebhooks'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { SEND_WEBHOOKS_JOB } from '../src/contexts/live/app/webhook-sender.js'
import { buildTestApp, type TestApp } from './support/app.js'
import { eventually } from './support/eventually.js'
import { newPlayer } from './support/players.js'
import { addEndpoint, atLeast, deliveriesOf, earn, receiver, type Received } from './support/webhooks.js'

let app: TestApp
beforeAll(async () => {
  // test/webhooks.test.ts's settings: split, both files drive one cluster.
  app = await buildTestApp({ env: { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_TIMEOUT_MS: '2000' } })
})
afterAll(() => app.close())

/** Runs the sender until `probe` answers something (the retry after a failure is due a second later). */
const afterSending = <T>(probe: () => Promise<T | undefined> | T | undefined, what: string): Promise<T> =>
  eventually(what, async () => {
    await app.runJob(SEND_WEBHOOKS_JOB)
    return probe()
  })

/** A receiver's verification: the body as it came, the headers as they came. */
const verify = (secret: string, { body, headers }: { body: string; headers: Received['headers'] }, options?: { format: 'raw' }) =>
  new Webhook(secret, options).verify(body, headers as Record<string, string>)

describe('Standard Webhooks', () => {
  test('every attempt at a delivery verifies with the standardwebhooks package and the secret shown once, under one webhook-id', async ({ onTestFinished }) => {
    const p = await newPlayer(app)
    const r = await receiver(onTestFinished, (n) => (n === 0 ? 503 : 200))
    const endpoint = await addEndpoint(app, p, r.url)
    // `whsec_` and 32 random bytes in base64, as the specification serialises a secret.
    expect(endpoint.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/)
    expect(Buffer.from(endpoint.secret.slice('whsec_'.length), 'base64')).toHaveLength(32)

    await earn(app, p)
    const attempts = await afterSending(() => atLeast(r.received, 2), 'an attempt and its retry')
    const [delivery] = await deliveriesOf(app, p, endpoint.id)
    for (const attempt of attempts) {
      expect(verify(endpoint.secret, attempt)).toEqual({
        id: delivery!.eventId, type: 'AvatarChanged', occurredAt: expect.any(String), payload: expect.objectContaining({ avatarId: p.avatarId, money: 105 }),
      })
      expect(attempt.headers).toMatchObject({ 'webhook-id': delivery!.id, 'questline-event-id': delivery!.eventId })
    }
  })

  test('a tampered body, another webhook-id or timestamp, or another endpoint\'s secret fails verification', async ({ onTestFinished }) => {
    const [p, other] = [await newPlayer(app), await newPlayer(app)]
    const r = await receiver(onTestFinished)
    const endpoint = await addEndpoint(app, p, r.url)
    const othersEndpoint = await addEndpoint(app, other, r.url)
    await earn(app, p)
    const [genuine] = await afterSending(() => atLeast(r.received, 1), 'a delivery')
    expect(verify(endpoint.secret, genuine!)).toMatchObject({ type: 'AvatarChanged' })

    const refused = (secret: string, tampered: Partial<Received>) => () => verify(secret, { ...genuine!, ...tampered })
    const noMatch = new WebhookVerificationError('No matching signature found')
    expect(refused(endpoint.secret, { body: genuine!.body.replace('"money":105', '"money":1105') })).toThrow(noMatch)
    expect(refused(endpoint.secret, { body: `${genuine!.body} ` })).toThrow(noMatch)
    expect(refused(endpoint.secret, { headers: { ...genuine!.headers, 'webhook-id': randomUUID() } })).toThrow(noMatch)
    const earlier = String(Number(genuine!.headers['webhook-timestamp']) - 1)
    expect(refused(endpoint.secret, { headers: { ...genuine!.headers, 'webhook-timestamp': earlier } })).toThrow(noMatch)
    expect(refused(othersEndpoint.secret, {})).toThrow(noMatch)
  })

  test('an endpoint whose secret is in the URL-safe form also gets Questline-Signature, and verifies with the package\'s raw format', async ({ onTestFinished }) => {
    const p = await newPlayer(app)
    const r = await receiver(onTestFinished)
    const endpoint = await addEndpoint(app, p, r.url)
    // A secret of that form (`whsec_` and 43 base64url characters), which the API does not make: written under it.
    const urlSafe = 'whsec_EsHSRHlBZaPe3dwkc4PHPCLYAnjhvoE9ntuFTU_HIjs'
    await app.database.db.execute(sql`update live.webhook_endpoints set secret = ${urlSafe} where id = ${endpoint.id}`)

    await earn(app, p)
    const [sent] = await afterSending(() => atLeast(r.received, 1), 'a delivery')
    expect(verify(urlSafe, sent!, { format: 'raw' })).toMatchObject({ type: 'AvatarChanged' })
    // Its receivers' check: the hex HMAC-SHA256 of "<t>.<body>" under the whole secret.
    const [, t, v1] = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(sent!.headers['questline-signature']))!
    expect(t).toBe(sent!.headers['webhook-timestamp'])
    expect(createHmac('sha256', urlSafe).update(`${t}.${sent!.body}`).digest('hex')).toBe(v1)
  })
})
