/**
 * How a webhook delivery is signed: by the Standard Webhooks specification
 * (https://www.standardwebhooks.com), so that a receiver verifies it with a Standard Webhooks
 * library (`standardwebhooks` on npm) given its endpoint's secret, and writes no code of its own. Pure.
 *
 * Each attempt carries `webhook-id` (the delivery's id: the same on every attempt and redelivery,
 * a receiver's idempotency key), `webhook-timestamp` (the attempt's time, unix seconds) and
 * `webhook-signature` (`v1,` and the base64 HMAC-SHA256 of `<id>.<timestamp>.<body>`). The HMAC
 * key is the secret's base64 part, decoded.
 */
import { createHmac } from 'node:crypto'

/** The prefix the specification gives symmetric secrets, so that they are told apart from other keys. */
export const WEBHOOK_SECRET_PREFIX = 'whsec_'

/** A secret as the specification serialises one: the prefix and the key in standard, padded base64. */
export const SPEC_SECRET = /^whsec_((?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?)$/

/** The secret an endpoint is given for these key bytes. */
export const webhookSecret = (key: Uint8Array): string => `${WEBHOOK_SECRET_PREFIX}${Buffer.from(key).toString('base64')}`

interface SigningKey {
  key: Buffer
  /** The secret is not in the specification's form: its deliveries also carry `Questline-Signature`. */
  urlSafe: boolean
}

/**
 * The HMAC key of a stored secret: the specification's form decoded. A secret in the URL-safe form
 * (`whsec_` and 43 base64url characters), which no Standard Webhooks library decodes, is keyed by
 * its own bytes, the key of the `Questline-Signature` its receivers check: they verify the standard
 * headers with `new Webhook(secret, { format: 'raw' })`, and the stored secret stays as it is.
 */
export function signingKey(secret: string): SigningKey {
  const spec = SPEC_SECRET.exec(secret)?.[1]
  if (spec) return { key: Buffer.from(spec, 'base64'), urlSafe: false }
  return { key: Buffer.from(secret, 'utf8'), urlSafe: true }
}

/** `webhook-signature`'s one entry: `v1,<base64 HMAC-SHA256(key, "<id>.<unix seconds>.<body>")>`. */
export function standardSignature(key: Uint8Array, webhookId: string, unixSeconds: number, body: string): string {
  return `v1,${createHmac('sha256', key).update(`${webhookId}.${unixSeconds}.${body}`).digest('base64')}`
}

/** `Questline-Signature`, for URL-safe secrets: `t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>`. */
export function questlineSignature(secret: string, unixSeconds: number, body: string): string {
  return `t=${unixSeconds},v1=${createHmac('sha256', secret).update(`${unixSeconds}.${body}`).digest('hex')}`
}

/** What an attempt at a delivery is identified and signed with (the body is sent as it is). */
export function signedHeaders(delivery: { id: string; eventId: string; body: string; secret: string }, unixSeconds: number): Record<string, string> {
  const { key, urlSafe } = signingKey(delivery.secret)
  return {
    'webhook-id': delivery.id,
    'webhook-timestamp': String(unixSeconds),
    'webhook-signature': standardSignature(key, delivery.id, unixSeconds, delivery.body),
    // The event's id, the same in every endpoint's delivery of it.
    'questline-event-id': delivery.eventId,
    ...(urlSafe ? { 'questline-signature': questlineSignature(delivery.secret, unixSeconds, delivery.body) } : {}),
  }
}
