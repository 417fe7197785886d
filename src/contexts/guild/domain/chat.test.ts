import { describe, expect, test } from 'vitest'
import { mentionsIn, messageText, requirePostAllowed } from './chat.js'
import { ChatRateLimited, InvalidMessageText } from './errors.js'

describe('message text', () => {
  test('is trimmed and 1–1000 characters (code points)', () => {
    expect(messageText('  hi  ')).toBe('hi')
    expect(() => messageText('   ')).toThrow(InvalidMessageText)
    expect(messageText('x'.repeat(1000))).toHaveLength(1000)
    expect(() => messageText('x'.repeat(1001))).toThrow(InvalidMessageText)
    // 1000 emoji are 2000 UTF-16 units but 1000 characters.
    expect(() => messageText('🐉'.repeat(1000))).not.toThrow()
  })
})

describe('mentions', () => {
  const members = [
    { avatarId: 'reg', name: 'Reg' }, { avatarId: 'sir', name: 'Sir Reg' }, { avatarId: 'regsmith', name: 'Reg Smith' }, { avatarId: 'ada', name: 'Ada' },
  ]
  test('a quoted name, or the longest member name after @, ignoring case', () => {
    expect(mentionsIn('@"Sir Reg" look', members, 'ada')).toEqual(['sir'])
    expect(mentionsIn('@reg smith, hello', members, 'ada')).toEqual(['regsmith'])
    expect(mentionsIn('@Reg hello', members, 'ada')).toEqual(['reg'])
    expect(mentionsIn('@Sir Reg!', members, 'ada')).toEqual(['sir'])
  })
  test('a name must end where the mention ends', () => {
    expect(mentionsIn('@Regina and @Ada_x', members, 'reg')).toEqual([])
    expect(mentionsIn('mail ada@Adaland', members, 'reg')).toEqual([])
  })
  test('each member once, in order, never the author, never a non-member', () => {
    expect(mentionsIn('@Ada @Reg @ada @Bob @"Nobody" @"unclosed', members, 'x')).toEqual(['ada', 'reg'])
    expect(mentionsIn('@Ada hi', members, 'ada')).toEqual([])
  })
})

describe('the burst limit', () => {
  const at = (ms: number) => new Date(Date.UTC(2026, 2, 2) + ms)
  test('10 in 10 s pass; the 11th waits until the oldest of the window leaves it', () => {
    const ten = Array.from({ length: 10 }, (_, i) => at(i * 500))
    expect(() => requirePostAllowed(ten.slice(0, 9), at(4_600))).not.toThrow()
    let refused: unknown
    try { requirePostAllowed(ten, at(5_000)) } catch (e) { refused = e }
    expect(refused).toBeInstanceOf(ChatRateLimited)
    expect((refused as ChatRateLimited).retryAfterSeconds).toBe(5)
    // The first leaves the window at exactly 10 s.
    expect(() => requirePostAllowed(ten, at(10_000))).not.toThrow()
    expect((() => { try { requirePostAllowed(ten, at(9_999)) } catch (e) { return (e as ChatRateLimited).retryAfterSeconds } })()).toBe(1)
  })
})
