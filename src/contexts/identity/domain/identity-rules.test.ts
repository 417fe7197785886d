import { expect, test } from 'vitest'
import { FailureWindow } from './login-throttle.js'
import { judgeRefresh } from './refresh-token.js'
import { normalizeEmail } from './rules.js'

test('failed logins block a key after the limit, until the oldest leaves the window', () => {
  const w = new FailureWindow(3, 1000)
  w.record('a', 0)
  w.record('a', 100)
  expect(w.blockedFor('a', 200)).toBe(0)
  w.record('a', 200)
  // Blocked until the failure at 0 is 1000 ms old.
  expect(w.blockedFor('a', 300)).toBe(700)
  expect(w.blockedFor('b', 300)).toBe(0)
  expect(w.blockedFor('a', 1000)).toBe(0)
  w.reset('a')
  expect(w.blockedFor('a', 300)).toBe(0)
})

test('a refresh token is rotated while live, refused when expired or revoked, and a reuse is theft', () => {
  const now = new Date('2026-03-02T08:00:00Z')
  const live = { expiresAt: new Date('2026-03-02T08:00:01Z'), spentAt: null, revokedAt: null }
  expect(judgeRefresh(live, now)).toBe('rotate')
  expect(judgeRefresh({ ...live, expiresAt: now }, now)).toBe('expired')
  expect(judgeRefresh({ ...live, spentAt: now }, now)).toBe('reused')
  expect(judgeRefresh({ ...live, spentAt: now, revokedAt: now }, now)).toBe('revoked')
})

test('emails compare trimmed and lower-cased', () => {
  expect(normalizeEmail('  Ada@Example.COM ')).toBe('ada@example.com')
})
