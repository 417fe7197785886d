/**
 * The NATS bus against a nats-server of the test's own: broadcasts are at most once (stopped and
 * started again, a process hears when some may have been lost); an event naming avatars of
 * several partitions reaches each avatar's owner, and the rest of its consumers once; a handler
 * slower than the ack wait gets its event once.
 */
import { connect } from '@nats-io/transport-node'
import { AckPolicy, jetstream, jetstreamManager } from '@nats-io/jetstream'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { PrivateNats } from '../../../test/support/private-nats.js'
import { Type } from 'typebox'
import { newId } from '../ids.js'
import type { Ownership } from '../ownership/ownership.js'
import { partition, PARTITIONS } from '../ownership/partitions.js'
import { subjectOf } from './bus.js'
import { eventsOf, on, onParticipants } from './contract.js'
import { subscriptionOf } from './consumers.js'
import type { DeadLetters } from './dead-letters.js'
import { NatsBus } from './nats-bus.js'
import { streamSettings } from './nats-settings.js'
import type { DomainEvent } from './outbox.js'

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
const busOn = (url: string, id = `qlbcast_${process.pid}`, ackWaitSeconds = 5) => {
  const bus = new NatsBus({ url, stream: id, prefix: id, ackWaitSeconds, maxAgeSeconds: 3600 }, undefined)
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

/** An event naming several avatars, as a battle's end does. */
const BattleLost = eventsOf('guild')('BattleLost', Type.Object({ battleId: Type.String(), participants: Type.Array(Type.String()), penalty: Type.Integer() }))

/** Owns a fixed set of partitions. */
const owning = (partitions: number[]): Ownership => ({ owned: () => new Set(partitions), onChange: () => undefined })
const noDeadLetters = { park: () => Promise.reject(new Error('nothing should be parked')) } as unknown as DeadLetters

test('an event naming avatars of several partitions: each avatar changed once, by its partition\'s owner; a whole-event consumer runs once', async () => {
  const id = `qlcopies_${process.pid}`
  const halves = [Array.from({ length: PARTITIONS / 2 }, (_, p) => p), Array.from({ length: PARTITIONS / 2 }, (_, p) => p + PARTITIONS / 2)]
  const changed: [number, string][] = []
  const whole: number[] = []
  const buses = halves.map((owned, i) => {
    const bus = busOn(nats.url, id)
    const handlers = [
      onParticipants(BattleLost, async (_e, avatarIds) => void changed.push(...avatarIds.map((a): [number, string] => [i, a]))),
    ]
    bus.subscribe({ ...subscriptionOf('avatar', handlers, noDeadLetters), ownership: owning(owned) })
    bus.subscribe({ ...subscriptionOf('guild', [on(BattleLost, async () => void whole.push(i))], noDeadLetters), ownership: owning(owned) })
    return bus
  })
  await Promise.all(buses.map((b) => b.start()))

  // Avatars in many partitions, the battle's own among them or not.
  const participants = Array.from({ length: 24 }, () => newId())
  const battle = (avatars: string[]): DomainEvent => ({
    id: newId(), type: 'BattleLost', occurredAt: '2026-11-28T12:00:00.000Z', aggregateId: newId(), version: 2,
    payload: { battleId: newId(), participants: avatars, penalty: 5 },
  })
  const ownerOf = (avatarId: string) => halves.findIndex((h) => h.includes(partition(avatarId)))
  const event = battle(participants)
  expect(await buses[0]!.publish('guild', [event])).toEqual([])
  // Published again (a relay retrying): the server drops every copy as a duplicate.
  expect(await buses[1]!.publish('guild', [event])).toEqual([])
  await expect.poll(() => changed.length, { timeout: 10_000 }).toBe(participants.length)
  await expect.poll(() => whole.length, { timeout: 10_000 }).toBe(1)
  expect(whole).toEqual([ownerOf(event.aggregateId)])
  expect(changed.map(([, a]) => a).sort()).toEqual([...participants].sort())
  for (const [by, avatarId] of changed) expect(by).toBe(ownerOf(avatarId))

  // A message that is no copy (as published before copies, or by a version without them) is the
  // whole event: its one consumer changes every avatar it names.
  changed.length = 0
  const unmarked = battle(participants.slice(0, 6))
  const nc = await connect({ servers: nats.url })
  await jetstream(nc).publish(subjectOf(id, 'guild', 'BattleLost', partition(unmarked.aggregateId)), JSON.stringify(unmarked), { msgID: unmarked.id })
  await nc.close()
  await expect.poll(() => changed.length, { timeout: 10_000 }).toBe(6)
  expect(new Set(changed.map(([by]) => by))).toEqual(new Set([ownerOf(unmarked.aggregateId)]))
  await new Promise((r) => setTimeout(r, 200))
  expect(changed.length).toBe(6)
  expect(whole.length).toBe(2)
}, 30_000)

test('a stream provisioned beforehand keeps what its provisioner set (a replica count, here a description) when a process starts on it', async () => {
  const id = `qlprov_${process.pid}`
  const nc = await connect({ servers: nats.url })
  const jsm = await jetstreamManager(nc)
  await jsm.streams.add({ ...streamSettings(id, id, 600), description: 'provisioned by the deployment' })
  await busOn(nats.url, id).start()
  const { config } = await jsm.streams.info(id)
  expect(config).toMatchObject({ ...streamSettings(id, id, 3600), description: 'provisioned by the deployment', num_replicas: 1 })
  await nc.close()
})

test('a handler slower than the ack wait gets its event once; a durable an older version made with another ack wait takes this one\'s', async () => {
  const id = `qlslow_${process.pid}`
  const event: DomainEvent = {
    id: newId(), type: 'BattleLost', occurredAt: '2026-11-28T12:00:00.000Z', aggregateId: newId(), version: 2,
    payload: { battleId: newId(), participants: [], penalty: 5 },
  }
  const durable = `guild--guild--${partition(event.aggregateId)}`
  const nc = await connect({ servers: nats.url })
  const jsm = await jetstreamManager(nc)
  await jsm.streams.add(streamSettings(id, id, 3600))
  await jsm.consumers.add(id, { durable_name: durable, ack_policy: AckPolicy.Explicit, filter_subject: `${id}.guild.*.${partition(event.aggregateId)}`, ack_wait: 30_000_000_000 })

  const handled: number[] = []
  const bus = busOn(nats.url, id, 1)
  bus.subscribe(subscriptionOf('guild', [on(BattleLost, async () => {
    handled.push(Date.now())
    await new Promise((r) => setTimeout(r, 2_500))
  })], noDeadLetters))
  await bus.start()
  expect((await jsm.consumers.info(id, durable)).config.ack_wait).toBe(1_000_000_000)

  expect(await bus.publish('guild', [event])).toEqual([])
  // Past its ack wait, the backlog says the delivery is still with the handler, and for how long.
  await expect.poll(async () => (await bus.backlog())[0]?.longestInHandSeconds ?? 0, { timeout: 5_000, interval: 100 }).toBeGreaterThanOrEqual(1)
  // Per durable too: the process reads all 16 partitions, one durable each.
  const pulls = expect.any(Number)
  const [reading] = await bus.backlog()
  expect(reading).toEqual({ consumer: 'guild--guild', undelivered: 0, unacknowledged: 1, inHand: 1, longestInHandSeconds: expect.any(Number), waitingPulls: pulls, durables: expect.any(Array) })
  expect(reading!.durables).toHaveLength(PARTITIONS)
  expect(reading!.durables.find((d) => d.durable === durable)).toEqual({ durable, undelivered: 0, unacknowledged: 1, inHand: 1, waitingPulls: pulls })
  await expect.poll(async () => (await jsm.consumers.info(id, durable)).ack_floor.stream_seq, { timeout: 10_000, interval: 100 }).toBe(1)
  // Each durable's pull waits at the server for the next.
  await expect.poll(async () => (await bus.backlog())[0]?.waitingPulls, { timeout: 5_000, interval: 100 }).toBe(PARTITIONS)
  expect(await bus.backlog()).toEqual([{ consumer: 'guild--guild', undelivered: 0, unacknowledged: 0, inHand: 0, longestInHandSeconds: 0, waitingPulls: PARTITIONS,
    durables: expect.arrayContaining([{ durable, undelivered: 0, unacknowledged: 0, inHand: 0, waitingPulls: 1 }]) }])
  expect(handled.length).toBe(1)
  await nc.close()
}, 30_000)
