/**
 * The NATS bus's broadcasts against a nats-server of the test's own (stopped and started again):
 * at most once, so a process hears when some may have been lost and reads what it missed.
 */
import { afterAll, beforeAll, expect, test } from 'vitest'
import { PrivateNats } from '../../../test/support/private-nats.js'
import { NatsBus } from './nats-bus.js'

let nats: PrivateNats
const buses: NatsBus[] = []

beforeAll(async () => {
  nats = await PrivateNats.launch()
})
afterAll(async () => {
  for (const bus of buses) await bus.close().catch(() => undefined)
  await nats?.close()
})

/** A process's bus: every one on the same stream and subjects, as a cluster's are. */
const busOn = (url: string) => {
  const id = `qlbcast_${process.pid}`
  const bus = new NatsBus({ url, stream: id, prefix: id, ackWaitSeconds: 5, maxAgeSeconds: 3600 }, undefined)
  buses.push(bus)
  return bus
}

test('each process hears of a possible loss when NATS comes back after an interruption, and broadcasts flow again', async () => {
  const [a, b] = [busOn(nats.url), busOn(nats.url)]
  const losses = [0, 0]
  a.broadcast.onPossibleLoss(() => losses[0]!++)
  b.broadcast.onPossibleLoss(() => losses[1]!++)
  const heard: unknown[] = []
  b.broadcast.subscribe('news', (data) => heard.push(data))
  await Promise.all([a.start(), b.start()])

  // Sent until heard: b's subscription reaches the server on a connection of its own.
  const heardOnceSent = async (n: number) => expect.poll(() => {
    a.broadcast.publish('news', n)
    return heard.includes(n)
  }, { timeout: 5_000, interval: 100 }).toBe(true)
  await heardOnceSent(1)
  expect(losses).toEqual([0, 0])

  await nats.stop()
  await nats.start()
  await expect.poll(() => losses.every((n) => n > 0), { timeout: 15_000, interval: 100 }).toBe(true)
  // b's own subscription is back too: the news goes through again.
  await heardOnceSent(2)
}, 30_000)
