import { describe, expect, test } from 'vitest'
import { retryAfterMs } from './login-throttle.js'
import { judgeRefresh, type RefreshTokenState } from './refresh-token.js'
import { OPEN_REGISTRATION_STATES, REGISTRATION_STATES, SETTLED_REGISTRATION_STATES } from './registration.js'
import { normalizeEmail } from './rules.js'

describe('failed-login window', () => {
  // 3 failures within 1000 ms block the key.
  const limit = { maxFailures: 3, windowMs: 1000 }

  test('a key with no failures may try', () => {
    expect(retryAfterMs([], limit, 0)).toBe(0)
  })

  test('fewer failures than the limit do not block', () => {
    expect(retryAfterMs([0, 100], limit, 200)).toBe(0)
  })

  test('the limit reached blocks until the oldest failure leaves the window', () => {
    const failures = [0, 100, 200]
    // the failure at 0 leaves at 0 + 1000: from 200 that is 800 away, from 300 700, from 999 1
    expect(retryAfterMs(failures, limit, 200)).toBe(800)
    expect(retryAfterMs(failures, limit, 300)).toBe(700)
    expect(retryAfterMs(failures, limit, 999)).toBe(1)
    expect(retryAfterMs(failures, limit, 1000)).toBe(0)
  })

  test('the window slides: failures older than it no longer count', () => {
    // at 1000 the failure at 0 has left: 2 remain in (0, 1000]
    expect(retryAfterMs([0, 100, 1000], limit, 1000)).toBe(0)
    // 100, 1000, 1050: three again; 100 leaves at 1100
    expect(retryAfterMs([0, 100, 1000, 1050], limit, 1050)).toBe(50)
    expect(retryAfterMs([0, 100, 1000, 1050], limit, 1100)).toBe(0)
  })

  test('with more failures than the limit, the block lasts until enough have left', () => {
    const failures = [0, 100, 200, 300]
    // below the limit needs at most 2 in the window: 0 and 100 must leave; 100 leaves at 1100
    expect(retryAfterMs(failures, limit, 350)).toBe(750)
    expect(retryAfterMs(failures, limit, 1050)).toBe(50)
    expect(retryAfterMs(failures, limit, 1100)).toBe(0)
  })

  test('failures spread wider than the window never block', () => {
    // at most two at a time are less than 1000 ms old
    expect(retryAfterMs([0, 600, 1200, 1800, 2400], limit, 2400)).toBe(0)
  })

  test('the order the failures arrive in does not matter', () => {
    expect(retryAfterMs([200, 0, 100], limit, 300)).toBe(700)
  })

  test('other limits: 5 failures in a minute', () => {
    const perMinute = { maxFailures: 5, windowMs: 60_000 }
    expect(retryAfterMs([0, 10_000, 20_000, 30_000], perMinute, 40_000)).toBe(0)
    expect(retryAfterMs([0, 10_000, 20_000, 30_000, 40_000], perMinute, 40_000)).toBe(20_000) // 0 leaves at 60,000
  })
})

describe('refresh-token verdict', () => {
  const now = new Date('2026-03-02T08:00:00.000Z')
  const live: RefreshTokenState = { expiresAt: new Date('2026-04-01T08:00:00.000Z'), spentAt: null, revokedAt: null }
  const earlier = new Date('2026-03-01T08:00:00.000Z')

  test('a live, unspent token is rotated', () => {
    expect(judgeRefresh(live, now)).toBe('rotate')
  })

  test('expiry: one millisecond before is live, the instant itself and after are expired', () => {
    expect(judgeRefresh({ ...live, expiresAt: new Date('2026-03-02T08:00:00.001Z') }, now)).toBe('rotate')
    expect(judgeRefresh({ ...live, expiresAt: new Date('2026-03-02T08:00:00.000Z') }, now)).toBe('expired')
    expect(judgeRefresh({ ...live, expiresAt: new Date('2026-03-02T07:59:59.999Z') }, now)).toBe('expired')
  })

  test('a spent token shown again is reuse', () => {
    expect(judgeRefresh({ ...live, spentAt: earlier }, now)).toBe('reused')
  })

  test('a spent token is reuse even after it expired', () => {
    expect(judgeRefresh({ ...live, expiresAt: earlier, spentAt: earlier }, now)).toBe('reused')
  })

  test('a revoked token is revoked, whether live, spent or expired', () => {
    expect(judgeRefresh({ ...live, revokedAt: earlier }, now)).toBe('revoked')
    expect(judgeRefresh({ ...live, spentAt: earlier, revokedAt: earlier }, now)).toBe('revoked')
    expect(judgeRefresh({ ...live, expiresAt: earlier, revokedAt: earlier }, now)).toBe('revoked')
  })
})

describe('email normalisation', () => {
  test('emails compare trimmed and lower-cased', () => {
    expect(normalizeEmail('  Ada@Example.COM ')).toBe('ada@example.com')
    expect(normalizeEmail('\tBOB@EXAMPLE.ORG\n')).toBe('bob@example.org')
  })

  test('an already normal email is unchanged', () => {
    expect(normalizeEmail('ada@example.com')).toBe('ada@example.com')
  })

  test('spaces inside are kept', () => {
    expect(normalizeEmail(' A B@x.io ')).toBe('a b@x.io')
  })
})

test('every registration state is either open (recovered, never pruned) or settled (pruned after the retention period)', () => {
  expect([...OPEN_REGISTRATION_STATES, ...SETTLED_REGISTRATION_STATES].sort()).toEqual([...REGISTRATION_STATES].sort())
})
