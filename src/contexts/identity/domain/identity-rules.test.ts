import { describe, expect, test } from 'vitest'
import { FailureWindow } from './login-throttle.js'
import { judgeRefresh, type RefreshTokenState } from './refresh-token.js'
import { normalizeEmail } from './rules.js'

describe('failed-login window', () => {
  // 3 failures within 1000 ms block the key.
  const window = () => new FailureWindow(3, 1000)

  test('a key with no failures may try', () => {
    expect(window().blockedFor('ada@example.com', 0)).toBe(0)
  })

  test('fewer failures than the limit do not block', () => {
    const w = window()
    w.record('a', 0)
    w.record('a', 100)
    expect(w.blockedFor('a', 200)).toBe(0)
  })

  test('the limit reached blocks until the oldest failure leaves the window', () => {
    const w = window()
    w.record('a', 0)
    w.record('a', 100)
    w.record('a', 200)
    // the failure at 0 leaves at 0 + 1000: from 200 that is 800 away, from 300 700, from 999 1
    expect(w.blockedFor('a', 200)).toBe(800)
    expect(w.blockedFor('a', 300)).toBe(700)
    expect(w.blockedFor('a', 999)).toBe(1)
    expect(w.blockedFor('a', 1000)).toBe(0)
  })

  test('the window slides: failures older than it no longer count', () => {
    const w = window()
    w.record('a', 0)
    w.record('a', 100)
    w.record('a', 1000) // the failure at 0 has left: 2 remain in (0, 1000]
    expect(w.blockedFor('a', 1000)).toBe(0)
    w.record('a', 1050) // 100, 1000, 1050: three again; 100 leaves at 1100
    expect(w.blockedFor('a', 1050)).toBe(50)
    expect(w.blockedFor('a', 1100)).toBe(0)
  })

  test('with more failures than the limit, the block lasts until enough have left', () => {
    const w = window()
    for (const t of [0, 100, 200, 300]) w.record('a', t)
    // below the limit needs at most 2 in the window: 0 and 100 must leave; 100 leaves at 1100
    expect(w.blockedFor('a', 350)).toBe(750)
    expect(w.blockedFor('a', 1050)).toBe(50)
    expect(w.blockedFor('a', 1100)).toBe(0)
  })

  test('failures spread wider than the window never block', () => {
    const w = window()
    for (const t of [0, 600, 1200, 1800, 2400]) w.record('a', t)
    // at most two at a time are less than 1000 ms old
    expect(w.blockedFor('a', 2400)).toBe(0)
  })

  test('a reset forgets the key', () => {
    const w = window()
    for (const t of [0, 100, 200]) w.record('a', t)
    w.reset('a')
    expect(w.blockedFor('a', 300)).toBe(0)
    w.record('a', 300)
    w.record('a', 400)
    expect(w.blockedFor('a', 400)).toBe(0) // counting starts again from none
  })

  test('keys are counted apart', () => {
    const w = window()
    for (const t of [0, 100]) w.record('a', t)
    w.record('b', 150)
    expect(w.blockedFor('a', 200)).toBe(0)
    expect(w.blockedFor('b', 200)).toBe(0)
    w.record('a', 200)
    expect(w.blockedFor('a', 300)).toBe(700)
    expect(w.blockedFor('b', 300)).toBe(0)
    w.reset('b')
    expect(w.blockedFor('a', 300)).toBe(700)
  })

  test('other limits: 5 failures in a minute', () => {
    const w = new FailureWindow(5, 60_000)
    for (const t of [0, 10_000, 20_000, 30_000]) w.record('1.2.3.4', t)
    expect(w.blockedFor('1.2.3.4', 40_000)).toBe(0)
    w.record('1.2.3.4', 40_000)
    expect(w.blockedFor('1.2.3.4', 40_000)).toBe(20_000) // 0 leaves at 60,000
  })

  test('sweeping stale keys under a flood keeps the ones still blocked', () => {
    const w = window()
    // the victim still holds one stale failure (750) beside three live ones when the sweep comes
    for (const t of [750, 1500, 1600, 1700]) w.record('victim', t)
    for (let i = 0; i < 99_999; i++) w.record(`stale-${i}`, 0) // 100,000 keys in all
    w.record('flood', 1800) // the 100,001st key starts a sweep at 1800: failures at or before 800 are stale
    expect(w.blockedFor('victim', 1800)).toBe(700) // 1500 leaves at 2500
    expect(w.blockedFor('stale-0', 1800)).toBe(0)
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
