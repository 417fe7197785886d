import { expect, test } from 'vitest'
import { UpstreamPool } from './upstreams.js'

test('takes the healthy upstreams in turn, leaving out one marked down', () => {
  const pool = new UpstreamPool('avatar', ['http://a', 'http://b', 'http://c'])
  pool.markDown('http://b')
  expect([pool.pick(), pool.pick(), pool.pick(), pool.pick()]).toEqual(['http://a', 'http://c', 'http://a', 'http://c'])
})

test('with none known healthy (peers still starting), tries each in turn rather than refusing', () => {
  const pool = new UpstreamPool('avatar', ['http://a', 'http://b'])
  pool.markDown('http://a')
  pool.markDown('http://b')
  expect([pool.pick(), pool.pick(), pool.pick()]).toEqual(['http://a', 'http://b', 'http://a'])
})

test("a request about an aggregate goes to its partition's owner, and on to the next in rank once that one is down", () => {
  const pool = new UpstreamPool('avatar', ['http://a', 'http://b', 'http://c'])
  const ranked = pool.ranked('avatar-1')
  expect([...ranked].sort()).toEqual(['http://a', 'http://b', 'http://c'])
  expect([pool.pick('avatar-1'), pool.pick('avatar-1')]).toEqual([ranked[0], ranked[0]])
  const changes: string[][] = []
  pool.onChange(() => changes.push(pool.healthy()))
  pool.markDown(ranked[0]!)
  expect(pool.pick('avatar-1')).toBe(ranked[1])
  expect(pool.ranked('avatar-1')).toEqual(ranked.slice(1))
  expect(changes).toEqual([ranked.slice(1).sort()])
})

test('a retried call about an aggregate tries the next in rank, in case the owner is down and not yet known to be', () => {
  const pool = new UpstreamPool('avatar', ['http://a', 'http://b', 'http://c'])
  const ranked = pool.ranked('avatar-1')
  expect([0, 1, 2, 3].map((attempt) => pool.pickFor('avatar-1', attempt))).toEqual([...ranked, ranked[0]])
})
