import { expect, test } from 'vitest'
import { coalescedReads, Coalescer } from './coalescer.js'

/** A statement runner whose statements answer when told (`k → k.toUpperCase()`), recording what each carried. */
function manualStatements() {
  const carried: string[][] = []
  const pending: ((fail?: Error) => void)[] = []
  const run = (items: string[]) => new Promise<string[]>((resolve, reject) => {
    carried.push(items)
    pending.push((fail) => (fail ? reject(fail) : resolve(items.map((k) => k.toUpperCase()))))
  })
  const answerNext = async (fail?: Error) => {
    pending.shift()!(fail)
    await new Promise((r) => setImmediate(r))
  }
  return { carried, run, answerNext }
}

const endOfTurn = () => new Promise((r) => setImmediate(r))

test('what is submitted in one turn goes together at its end; what comes while it is out goes in the next statement, in order', async () => {
  const db = manualStatements()
  const c = new Coalescer(db.run, 1, 'turn')
  const first = [c.submit('a'), c.submit('a2')]
  expect(db.carried).toEqual([])
  await endOfTurn()
  expect(db.carried).toEqual([['a', 'a2']])
  const later = [c.submit('b'), c.submit('c'), c.submit('d')]
  await endOfTurn()
  expect(db.carried).toHaveLength(1)
  await db.answerNext()
  expect(await Promise.all(first)).toEqual(['A', 'A2'])
  expect(db.carried).toEqual([['a', 'a2'], ['b', 'c', 'd']])
  await db.answerNext()
  expect(await Promise.all(later)).toEqual(['B', 'C', 'D'])
})

test('a failed statement is tried again item by item: only an item that fails alone gets the error', async () => {
  const carried: string[][] = []
  const c = new Coalescer(async (items: string[]) => {
    carried.push(items)
    if (items.includes('bad')) throw new Error('refused by a constraint')
    return items.map((k) => k.toUpperCase())
  }, 1, 'turn')
  const first = c.submit('a')
  await endOfTurn()
  const answers = ['b', 'bad', 'c'].map((k) => c.submit(k).then((v) => v, (e: Error) => e.message))
  expect(await first).toBe('A')
  expect(await Promise.all(answers)).toEqual(['B', 'refused by a constraint', 'C'])
  expect(carried).toEqual([['a'], ['b', 'bad', 'c'], ['b'], ['bad'], ['c']])
})

test('up to maxInFlight statements are out at once, each with at most maxBatch items', async () => {
  const db = manualStatements()
  const c = new Coalescer(db.run, 2, 'turn', 2)
  const all = ['a', 'b', 'c', 'd', 'e'].map((k) => c.submit(k))
  await endOfTurn()
  expect(db.carried).toEqual([['a', 'b'], ['c', 'd']])
  await db.answerNext()
  expect(db.carried).toEqual([['a', 'b'], ['c', 'd'], ['e']])
  for (let i = 0; i < 2; i++) await db.answerNext()
  expect(db.carried).toEqual([['a', 'b'], ['c', 'd'], ['e']])
  expect(await Promise.all(all)).toEqual(['A', 'B', 'C', 'D', 'E'])
})

test('coalesced reads ask each key once per statement and answer every caller; a missing key is undefined', async () => {
  const asked: string[][] = []
  let release!: () => void
  const gate = new Promise<void>((r) => (release = r))
  const read = coalescedReads(async (keys) => {
    asked.push(keys)
    await gate
    return new Map(keys.filter((k) => k !== 'gone').map((k) => [k, k.toUpperCase()]))
  }, 1)
  const first = read('a')
  await endOfTurn()
  const later = [read('b'), read('c'), read('b'), read('gone')]
  release()
  expect(await first).toBe('A')
  expect(await Promise.all(later)).toEqual(['B', 'C', 'B', undefined])
  expect(asked).toEqual([['a'], ['b', 'c', 'gone']])
})

test('gathered per tick: what promises settled together submit goes in one statement, without waiting for another turn', async () => {
  const db = manualStatements()
  const c = new Coalescer(db.run, 1, 'tick')
  // Three pieces of work that resume together (as batches do after one shared read) and submit after a few hops.
  let resume!: () => void
  const together = new Promise<void>((r) => (resume = r))
  const work = ['x', 'y', 'z'].map(async (k, i) => {
    await together
    for (let hop = 0; hop < i; hop++) await Promise.resolve()
    return c.submit(k)
  })
  let turnEnded = false
  setImmediate(() => (turnEnded = true))
  resume()
  await new Promise((r) => process.nextTick(r))
  await Promise.resolve()
  expect(db.carried).toEqual([['x', 'y', 'z']])
  expect(turnEnded).toBe(false)
  await db.answerNext()
  expect(await Promise.all(work)).toEqual(['X', 'Y', 'Z'])
})
