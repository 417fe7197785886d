import { expect, test } from 'vitest'
import { failureOf, maySendAgain } from './second-attempt.js'

test('a refused connection sends anything again; a reset or a 503 only reads and keyed writes; anything else nothing', () => {
  const plainPost = { method: 'POST', keyed: false }
  const keyedPost = { method: 'POST', keyed: true }
  const get = { method: 'GET', keyed: false }
  expect(maySendAgain(plainPost, 'refused')).toBe(true)
  expect(maySendAgain(plainPost, 'reset')).toBe(false)
  expect(maySendAgain(plainPost, 'unavailable')).toBe(false)
  expect(maySendAgain(keyedPost, 'reset')).toBe(true)
  expect(maySendAgain(keyedPost, 'unavailable')).toBe(true)
  expect(maySendAgain(get, 'unavailable')).toBe(true)
  expect(maySendAgain({ method: 'HEAD', keyed: false }, 'reset')).toBe(true)
  expect(maySendAgain(get, 'other')).toBe(false)
})

test('the failure is read from the error or what caused it', () => {
  const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' })
  expect(failureOf(new Error('fetch failed', { cause: refused }))).toBe('refused')
  expect(failureOf(Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }))).toBe('reset')
  expect(failureOf(Object.assign(new Error('wrapped'), { code: 'FST_REPLY_FROM_INTERNAL_SERVER_ERROR', cause: { code: 'ECONNRESET' } }))).toBe('reset')
  expect(failureOf(Object.assign(new Error('headers timeout'), { code: 'UND_ERR_HEADERS_TIMEOUT' }))).toBe('other')
  expect(failureOf('nonsense')).toBe('other')
})
