import { describe, expect, test } from 'vitest'
import { addressKind, afterAttempt, isDelivered, isFailingTooLong, parseTarget, refusedAddress, retryDelayMs } from './webhook.js'

describe('the retry schedule', () => {
  test('waits 1 s after the first failure, a constant factor longer after each further one, and 1 h before the last of nine retries', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 8, 9].map(retryDelayMs)).toEqual([1_000, 2_783, 7_746, 21_558, 60_000, 166_989, 464_758, 1_293_495, 3_600_000])
    // The tenth attempt was the last.
    expect(retryDelayMs(10)).toBeUndefined()
  })

  test('a failed attempt with attempts left is due again after its wait; the tenth failure is FAILED; a 2xx is DELIVERED', () => {
    const now = new Date('2026-11-25T12:00:00Z')
    expect(afterAttempt(3, false, now)).toEqual({ status: 'PENDING', nextAttemptAt: new Date('2026-11-25T12:00:07.746Z') })
    expect(afterAttempt(10, false, now)).toEqual({ status: 'FAILED', nextAttemptAt: null })
    expect(afterAttempt(10, true, now)).toEqual({ status: 'DELIVERED', nextAttemptAt: null })
    // An endpoint being disabled: the delivery waits for it with no time set, unless it has no attempt left.
    expect(afterAttempt(3, false, now, true)).toEqual({ status: 'PENDING', nextAttemptAt: null })
    expect(afterAttempt(10, false, now, true)).toEqual({ status: 'FAILED', nextAttemptAt: null })
  })

  test('only 2xx delivers: a redirect, a 4xx or no answer at all does not', () => {
    expect([200, 204, 299].map(isDelivered)).toEqual([true, true, true])
    expect([undefined, 199, 301, 302, 404, 500].map(isDelivered)).toEqual([false, false, false, false, false, false])
  })

  test('an endpoint failing for a whole day is disabled, not a minute sooner', () => {
    const since = new Date('2026-11-24T12:00:00Z')
    expect(isFailingTooLong(since, new Date('2026-11-25T11:59:00Z'))).toBe(false)
    expect(isFailingTooLong(since, new Date('2026-11-25T12:00:00Z'))).toBe(true)
  })
})

describe('addresses', () => {
  test.each([
    ['8.8.8.8', 'public'], ['93.184.215.14', 'public'], ['2606:4700:4700::1111', 'public'],
    ['0.0.0.0', 'unspecified'], ['::', 'unspecified'],
    ['127.0.0.1', 'loopback'], ['127.255.0.9', 'loopback'], ['::1', 'loopback'],
    ['10.1.2.3', 'private'], ['172.16.0.1', 'private'], ['172.31.255.255', 'private'], ['192.168.1.1', 'private'], ['100.64.0.1', 'private'],
    ['169.254.169.254', 'link-local'], ['fe80::1', 'link-local'],
    ['fc00::1', 'unique-local'], ['fd12:3456::1', 'unique-local'],
    ['224.0.0.1', 'multicast'], ['ff02::1', 'multicast'], ['255.255.255.255', 'reserved'], ['::7f00:1', 'reserved'],
    // IPv4-mapped IPv6 is the IPv4 address it carries, however it is written.
    ['::ffff:127.0.0.1', 'loopback'], ['::ffff:7f00:1', 'loopback'], ['::ffff:10.0.0.1', 'private'], ['::ffff:8.8.8.8', 'public'],
  ])('%s is %s', (ip, kind) => {
    expect(addressKind(ip)).toBe(kind)
  })

  test('172.15 and 172.32 are outside the private 172.16/12', () => {
    expect([addressKind('172.15.255.255'), addressKind('172.32.0.0')]).toEqual(['public', 'public'])
  })

  test('a non-public address is refused, saying what it is, unless private targets are allowed', () => {
    expect(refusedAddress('192.168.0.10', false)).toBe('192.168.0.10 is a private address')
    expect(refusedAddress('192.168.0.10', true)).toBeUndefined()
    expect(refusedAddress('8.8.8.8', false)).toBeUndefined()
  })
})

describe('endpoint URLs', () => {
  test('http and https URLs are taken, normalised; an IP host is told apart from a name', () => {
    expect(parseTarget('https://hooks.example.com/in?x=1')).toMatchObject({ ok: true, href: 'https://hooks.example.com/in?x=1', ipLiteral: undefined })
    expect(parseTarget('HTTP://Example.COM')).toMatchObject({ ok: true, href: 'http://example.com/' })
    expect(parseTarget('http://[::1]:8080/x')).toMatchObject({ ok: true, ipLiteral: '::1' })
    // Other spellings of an IPv4 address are read as the address.
    expect(parseTarget('http://2130706433/')).toMatchObject({ ok: true, ipLiteral: '127.0.0.1' })
    expect(parseTarget('http://0x7f.1/')).toMatchObject({ ok: true, ipLiteral: '127.0.0.1' })
  })

  test.each([
    ['ftp://example.com/', 'must be an http:// or https:// URL'],
    ['file:///etc/passwd', 'must be an http:// or https:// URL'],
    ['javascript:alert(1)', 'must be an http:// or https:// URL'],
    ['example.com/hook', 'must be an absolute http:// or https:// URL'],
    ['https://user:secret@example.com/', 'must not carry credentials (user:password@)'],
    ['https://token@example.com/', 'must not carry credentials (user:password@)'],
  ])('%s is refused: %s', (url, reason) => {
    expect(parseTarget(url)).toEqual({ ok: false, reason })
  })
})
