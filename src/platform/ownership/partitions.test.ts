import { expect, test } from 'vitest'
import { ownedBy, ownerOf, partition, PARTITIONS, rankFor } from './partitions.js'

const replicas = (n: number) => Array.from({ length: n }, (_, i) => `http://127.0.0.1:${4001 + i}`)
const owners = (members: string[]) => Array.from({ length: PARTITIONS }, (_, p) => ownerOf(p, members))

test('an id always falls in the same partition, in range, whichever process asks', () => {
  // Worked out once and written down: a change of the hash would move every aggregate at an upgrade.
  expect([partition('a'), partition('b'), partition('0b3f6e2c-1d4a-4f7e-9c1b-2a3b4c5d6e7f')]).toEqual([3, 2, 10])
  const ids = Array.from({ length: 2000 }, (_, i) => `avatar-${i}`)
  const counts = new Array<number>(PARTITIONS).fill(0)
  for (const id of ids) counts[partition(id)]!++
  // Spread over every partition: none holds more than twice its share, none is empty.
  expect(Math.min(...counts)).toBeGreaterThan(0)
  expect(Math.max(...counts)).toBeLessThan((2 * ids.length) / PARTITIONS)
})

test('the owner does not depend on the order the replicas are listed in', () => {
  const members = replicas(3)
  expect(owners([...members].reverse())).toEqual(owners(members))
  for (let p = 0; p < PARTITIONS; p++) expect(rankFor(p, [...members].reverse())).toEqual(rankFor(p, members))
})

test('every replica owns some partitions, and together they own each exactly once', () => {
  const members = replicas(3)
  const shares = members.map((m) => ownedBy(m, members))
  for (const share of shares) expect(share.size).toBeGreaterThan(0)
  expect(shares.reduce((n, s) => n + s.size, 0)).toBe(PARTITIONS)
  expect(new Set(shares.flatMap((s) => [...s])).size).toBe(PARTITIONS)
})

test('a replica going away moves only the partitions it owned, each to the next in its rank', () => {
  const members = replicas(4)
  const before = owners(members)
  const gone = members[1]!
  const after = owners(members.filter((m) => m !== gone))
  for (let p = 0; p < PARTITIONS; p++) {
    if (before[p] === gone) expect(after[p]).toBe(rankFor(p, members)[1])
    else expect(after[p]).toBe(before[p])
  }
})

test('a replica coming moves only the partitions it wins: about one in N, taken from the others', () => {
  const members = replicas(3)
  const before = owners(members)
  const newcomer = 'http://127.0.0.1:4999'
  const after = owners([...members, newcomer])
  const moved = after.filter((o, p) => o !== before[p])
  expect(moved.every((o) => o === newcomer)).toBe(true)
  // A quarter of 16 is 4; rendezvous hashing gives about that, never most of them.
  expect(moved.length).toBeGreaterThan(0)
  expect(moved.length).toBeLessThanOrEqual(PARTITIONS / 2)
})

test('a replica counts itself among the live ones even when its peers have not seen it up', () => {
  const members = replicas(2)
  expect(ownedBy(members[0]!, [members[1]!])).toEqual(ownedBy(members[0]!, members))
  expect(ownedBy(members[0]!, [])).toEqual(new Set(Array.from({ length: PARTITIONS }, (_, p) => p)))
})
