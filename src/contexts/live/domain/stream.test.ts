import { describe, expect, test } from 'vitest'
import { parseLastEventId, recipients, sseControl, sseEvent, startOf } from './stream.js'

describe('where a stream starts', () => {
  test('without a Last-Event-ID: from now, nothing replayed', () => {
    expect(startOf('none', 7, undefined)).toEqual({ from: 7 })
  })
  test('after a kept event: from there', () => {
    expect(startOf(3, 7, 1)).toEqual({ from: 3 })
    expect(startOf(3, 7, 4)).toEqual({ from: 3 })
    expect(startOf(7, 7, undefined)).toEqual({ from: 7 })
    expect(startOf(0, 2, 1)).toEqual({ from: 0 })
  })
  test('the next event no longer kept, an id from the future or no id: from now, with resync', () => {
    expect(startOf(3, 7, 5)).toMatchObject({ from: 7, resync: expect.stringContaining('no longer kept') })
    expect(startOf(3, 7, undefined)).toMatchObject({ from: 7, resync: expect.any(String) })
    expect(startOf(8, 7, 1)).toMatchObject({ from: 7, resync: expect.stringContaining('not one this stream gave') })
    expect(startOf('invalid', 7, 1)).toMatchObject({ from: 7, resync: expect.any(String) })
  })
  test('a Last-Event-ID is a whole number of at most 15 digits', () => {
    expect(parseLastEventId(undefined)).toBe('none')
    expect(parseLastEventId('')).toBe('none')
    expect(parseLastEventId('42')).toBe(42)
    for (const bad of ['-1', '1.5', '1e3', ' 4', 'abc', '9'.repeat(16), '0x10']) expect(parseLastEventId(bad)).toBe('invalid')
  })
})

describe('who an event reaches', () => {
  const members = (g: string) => (g === 'g1' ? ['a', 'b'] : [])
  test('a guild means its members; named avatars are added once', () => {
    expect(recipients({ guild: 'g1' }, members)).toEqual(['a', 'b'])
    expect(recipients({ guild: 'g1', avatars: ['b', 'c'] }, members)).toEqual(['a', 'b', 'c'])
    expect(recipients({ avatars: ['x'] }, members)).toEqual(['x'])
    expect(recipients({ guild: 'gone' }, members)).toEqual([])
  })
})

describe('the wire format', () => {
  test('an event: id, type, then its envelope as one data line', () => {
    expect(sseEvent({ seq: 3, type: 'AvatarChanged', occurredAt: '2026-01-01T00:00:00.000Z', payload: { money: 5, note: 'a\nb' } }))
      .toBe('id: 3\nevent: AvatarChanged\ndata: {"type":"AvatarChanged","occurredAt":"2026-01-01T00:00:00.000Z","payload":{"money":5,"note":"a\\nb"}}\n\n')
  })
  test('a control event carries an id only when it names a position', () => {
    expect(sseControl('expired', { detail: 'x' })).toBe('event: expired\ndata: {"detail":"x"}\n\n')
    expect(sseControl('resync', {}, 9)).toBe('id: 9\nevent: resync\ndata: {}\n\n')
  })
})
