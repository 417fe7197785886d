import { Webhook } from 'standardwebhooks'
import { describe, expect, test } from 'vitest'
import { questlineSignature, signedHeaders, signingKey, standardSignature, webhookSecret } from './webhook-signature.js'

describe('Standard Webhooks signatures', () => {
  test('the signature of the specification\'s reference libraries\' test vector', () => {
    // The vector of the Standard Webhooks (and Svix) libraries' own tests.
    const { key } = signingKey('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw')
    expect(standardSignature(key, 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1_614_265_330, '{"test": 2432232314}'))
      .toBe('v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=')
  })

  test('a secret is whsec_ and its key in padded base64, and the key is the secret decoded', () => {
    const key = Uint8Array.from({ length: 32 }, (_, i) => i)
    const secret = webhookSecret(key)
    expect(secret).toBe('whsec_AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=')
    expect(signingKey(secret)).toEqual({ key: Buffer.from(key), urlSafe: false })
  })

  test('an attempt\'s headers verify with the standardwebhooks package, under the delivery\'s id and the attempt\'s time', () => {
    const secret = webhookSecret(Uint8Array.from({ length: 32 }, (_, i) => 255 - i))
    const body = '{"id":"e1","type":"HabitAttended","occurredAt":"2026-11-25T12:00:00.000Z","payload":{}}'
    const now = Math.floor(Date.now() / 1000)
    const headers = signedHeaders({ id: 'd1', eventId: 'e1', body, secret }, now)
    expect(headers).toEqual({ 'webhook-id': 'd1', 'webhook-timestamp': String(now), 'webhook-signature': expect.stringMatching(/^v1,/), 'questline-event-id': 'e1' })
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body))
    expect(() => new Webhook(secret).verify(body.replace('e1', 'e2'), headers)).toThrow('No matching signature found')
    expect(() => new Webhook(secret).verify(body, { ...headers, 'webhook-id': 'd2' })).toThrow('No matching signature found')
  })
})

describe('a secret in the URL-safe form (whsec_ and 43 base64url characters)', () => {
  const secret = 'whsec_EsHSRHlBZaPe3dwkc4PHPCLYAnjhvoE9ntuFTU_HIjs'
  const body = '{"id":"e1","type":"HabitAttended"}'

  test('is keyed by its own bytes: the standardwebhooks package verifies it in its raw format, not as base64', () => {
    expect(signingKey(secret)).toEqual({ key: Buffer.from(secret), urlSafe: true })
    const headers = signedHeaders({ id: 'd1', eventId: 'e1', body, secret }, Math.floor(Date.now() / 1000))
    expect(new Webhook(secret, { format: 'raw' }).verify(body, headers)).toEqual(JSON.parse(body))
    expect(() => new Webhook(secret)).toThrow('incorrect characters')
  })

  test('also gets Questline-Signature: the hex HMAC-SHA256 of "<t>.<body>" under the whole secret', () => {
    // Worked out with: printf '%s' '1700000000.{"id":"e1","type":"HabitAttended"}' | openssl dgst -sha256 -hmac whsec_test
    expect(questlineSignature('whsec_test', 1_700_000_000, body)).toBe('t=1700000000,v1=2b1fc272f86b8fb2c793d31c22a06c5924a3d6a50464d2f736fa4c6a056c80df')
    expect(signedHeaders({ id: 'd1', eventId: 'e1', body, secret }, 1_700_000_000)['questline-signature']).toBe(questlineSignature(secret, 1_700_000_000, body))
  })
})
