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

test('another than the one that failed: a healthy other, else any other, else the only one there is', () => {
  const pool = new UpstreamPool('avatar', ['http://a', 'http://b', 'http://c'])
  pool.markDown('http://c')
  expect([pool.another('http://a'), pool.another('http://a')]).toEqual(['http://b', 'http://b'])
  pool.markDown('http://b')
  expect(new Set([pool.another('http://a'), pool.another('http://a')])).toEqual(new Set(['http://b', 'http://c']))
  expect(new UpstreamPool('avatar', ['http://a']).another('http://a')).toBe('http://a')
})
