/**
 * Pulls for deliveries against a nats-server of the test's own (the machine's, /usr/sbin/nats-server):
 * the server drops a pull that expires as a message is handed to it (nats-server before 2.9.16
 * sends no 408 then), and a durable reader notices and pulls again within 5 s.
 */
import { execFileSync } from 'node:child_process'
import { connect, type NatsConnection } from '@nats-io/transport-node'
import { AckPolicy, jetstream, jetstreamManager, ReplayPolicy, type ConsumerInfo, type JetStreamManager } from '@nats-io/jetstream'
import { Registry } from 'prom-client'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { PrivateNats } from '../../../test/support/private-nats.js'
import { newId } from '../ids.js'
import { DurableReader } from './nats-reader.js'
import { PULL_EXPIRES_MS, streamSettings } from './nats-settings.js'
import { PullTrouble } from './pull-trouble.js'
import type { DomainEvent } from './outbox.js'

const NATS_SERVER = '/usr/sbin/nats-server'
/** `v2.9.10`, say: from the binary the private server runs. */
const version = /v\d+\.\d+\.\d+/.exec(execFileSync(NATS_SERVER, ['--version'], { encoding: 'utf8' }))?.[0] ?? 'v?'
/** The fix (a 408 for a pull that expired as a message was handed to it) is in 2.9.16 and later. */
const answersExpiredPulls = (([major, minor, patch]) => major! > 2 || (major === 2 && (minor! > 9 || patch! >= 16)))(version.slice(1).split('.').map(Number))

let nats: PrivateNats
let nc: NatsConnection
let jsm: JetStreamManager
const readers: DurableReader[] = []

beforeAll(async () => {
  nats = await PrivateNats.launch()
  nc = await connect({ servers: nats.url })
  jsm = await jetstreamManager(nc)
})
afterAll(async () => {
  for (const r of readers) r.stop()
  await Promise.all(readers.map((r) => r.done()))
  await nc?.close()
  await nats?.close()
})

/** A stream of the test's own with one explicitly acknowledged durable on `<id>.guild.BattleLost.0`. */
async function streamWithDurable(id: string, more: { replay_policy?: ReplayPolicy } = {}) {
  await jsm.streams.add(streamSettings(id, id, 3600))
  const subject = `${id}.guild.BattleLost.0`
  const publish = (event: DomainEvent) => jetstream(nc).publish(subject, JSON.stringify(event), { msgID: event.id })
  const add = () => jsm.consumers.add(id, { durable_name: 'reader', ack_policy: AckPolicy.Explicit, filter_subject: subject, ack_wait: 5_000_000_000, ...more })
  return { publish, add }
}

const battleLost = (n: number): DomainEvent => ({
  id: newId(), type: 'BattleLost', occurredAt: '2026-12-07T12:00:00.000Z', aggregateId: newId(), version: n,
  payload: { battleId: newId(), participants: [], penalty: n },
})

test(`a pull expiring as a message is handed to it: nats-server ${version} ${answersExpiredPulls ? 'answers 408' : 'drops it unanswered (fixed in 2.9.16)'}, and the message stays stored`, async () => {
  const id = `qldrop_${process.pid}`
  const { publish, add } = await streamWithDurable(id)
  await add()
  await publish(battleLost(1))
  const inbox = `_INBOX.drop.${id}`
  const answers: string[] = []
  const sub = nc.subscribe(inbox, { callback: (_e, m) => void answers.push(m.headers ? `${m.headers.code} ${m.headers.description}` : 'a message') })
  // One pull of 64 expiring 1 µs after it was made: expired by the time the server hands it the message.
  nc.publish(`$JS.API.CONSUMER.MSG.NEXT.${id}.reader`, JSON.stringify({ batch: 64, expires: 1_000 }), { reply: inbox })
  // The server answers an expired pull at once (a fixed server's 408) or never: no later event tells the
  // two apart, so the test gives it a million times the pull's life, then asks the consumer.
  await new Promise((r) => setTimeout(r, 1_000))
  sub.unsubscribe()
  const info = await jsm.consumers.info(id, 'reader')
  console.info(`nats-server ${version}: a pull expiring as its message was handed over got ${answers.length ? answers.join(', ') : 'no answer'}`)
  if (answersExpiredPulls) expect(answers).toEqual([expect.stringMatching(/^408 /)])
  else expect(answers).toEqual([])
  // No pull waits, and the message was not delivered: a reader that waits for an answer waits for ever.
  expect({ pending: info.num_pending, waiting: info.num_waiting, unacknowledged: info.num_ack_pending }).toEqual({ pending: 1, waiting: 0, unacknowledged: 0 })
})

/** Events this far apart keep the server's loop busy (replaying them as stored) across a pull's expiry, with a heartbeat-monitored pull never quiet for two heartbeats. */
const SPACING_MS = 1_200
/** What a reader may take, past an event's replay time, to hand it over. */
const WITHIN_MS = 5_000

test('a durable whose pull the server drops is read again: each event is handled within 5 s of its time', async () => {
  const id = `qlstall_${process.pid}`
  // Replayed at the pace they were stored: the server waits between deliveries, and the reader's
  // first pull expires while it waits for one past the expiry.
  const { publish, add } = await streamWithDurable(id, { replay_policy: ReplayPolicy.Original })
  const count = Math.ceil(PULL_EXPIRES_MS / SPACING_MS) + 2
  for (let n = 1; n <= count; n++) {
    await publish(battleLost(n))
    if (n < count) await new Promise((r) => setTimeout(r, SPACING_MS))
  }
  const consumer = await jetstream(nc).consumers.getConsumerFromInfo(await add())
  const handled: number[] = []
  const handlers = { BattleLost: async () => void handled.push(Date.now()) }
  const registry = new Registry()
  const trouble = new PullTrouble(undefined)
  trouble.metrics(registry, undefined as never)
  readers.push(await DurableReader.start(consumer, { pair: 'guild--guild', durable: 'reader' }, handlers, { prefix: id, ackWaitSeconds: 5 }, trouble, undefined))

  // Each event's time is the one before's handling plus the spacing: none comes later than 5 s past it.
  const late = () => handled.slice(1).map((t, i) => t - handled[i]! - SPACING_MS)
  const waited = () => (handled.length ? Date.now() - handled.at(-1)! - SPACING_MS : 0)
  await expect.poll(() => {
    if (Math.max(0, waited(), ...late()) > WITHIN_MS) throw new Error(`an event came more than ${WITHIN_MS / 1000} s late (${late().join(', ')} ms; waiting ${waited()} ms)`)
    return handled.length
  }, { timeout: count * SPACING_MS + 2 * WITHIN_MS, interval: 100 }).toBe(count)
  const troubles = Object.fromEntries((await registry.getSingleMetric('event_pull_trouble_total')!.get()).values.map((v) => [v.labels.kind, v.value]))
  console.info(`nats-server ${version}: ${count} events ${SPACING_MS} ms apart, each handled this late: ${late().join(', ')} ms; pull trouble ${JSON.stringify(troubles)}`)
  expect(Math.max(...late())).toBeLessThan(WITHIN_MS)
  // The pull was dropped, noticed and replaced (a fixed server answers 408 instead, and the library pulls again at once).
  if (!answersExpiredPulls) expect(troubles['heartbeats_missed']! + troubles['stalled']!).toBeGreaterThan(0)
  expect(troubles).toMatchObject({ refused: 0, ended: 0, unreadable: 0 })
}, 40_000)

/** A reader of the durable `reader` on a stream of its own, with the pull trouble it counts. */
async function readerOn(id: string, handled: DomainEvent[]) {
  const { publish, add } = await streamWithDurable(id)
  const consumer = await jetstream(nc).consumers.getConsumerFromInfo(await add())
  const registry = new Registry()
  const trouble = new PullTrouble(undefined)
  trouble.metrics(registry, undefined as never)
  const handlers = { BattleLost: async (e: DomainEvent) => void handled.push(e) }
  const reader = await DurableReader.start(consumer, { pair: 'guild--guild', durable: 'reader' }, handlers, { prefix: id, ackWaitSeconds: 5 }, trouble, undefined)
  readers.push(reader)
  const troubles = async () => Object.fromEntries((await registry.getSingleMetric('event_pull_trouble_total')!.get()).values.map((v) => [v.labels.kind, v.value]))
  return { reader, publish, troubles, subject: `${id}.guild.BattleLost.0` }
}

test('two readings in a row that find events waiting and no pull read the durable anew; one alone, or a sign of a pull between them, does not', async () => {
  const handled: DomainEvent[] = []
  const { reader, publish, troubles } = await readerOn(`qlwatch_${process.pid}`, handled)
  const stalled = { num_pending: 2, num_waiting: 0 } as ConsumerInfo
  // Readings asked later than any sign of the pull so far (a delivery, a heartbeat).
  const later = Date.now() + 60_000
  reader.observe(stalled, later)
  reader.observe(stalled, later + 100)
  reader.observe({ ...stalled, num_waiting: 1 }, later + 600)
  reader.observe(stalled, later + 700)
  expect((await troubles()).stalled).toBe(0)
  reader.observe(stalled, later + 1_200)
  expect((await troubles()).stalled).toBe(1)
  // Read anew: the pull made again delivers.
  const event = battleLost(1)
  await publish(event)
  await expect.poll(() => handled.map((e) => e.id), { timeout: 5_000 }).toEqual([event.id])
  await expect.poll(async () => (await jsm.consumers.info(`qlwatch_${process.pid}`, 'reader')).num_waiting, { timeout: 5_000 }).toBe(1)
  expect(await troubles()).toMatchObject({ stalled: 1, ended: 0 })
})

test('a delivery that is not JSON is acknowledged and counted, and the next is handled; a loop that ends while reading is started again', async () => {
  const handled: DomainEvent[] = []
  const id = `qlguard_${process.pid}`
  const { reader, publish, troubles, subject } = await readerOn(id, handled)
  await jetstream(nc).publish(subject, 'not json {')
  const event = battleLost(1)
  await publish(event)
  await expect.poll(() => handled.map((e) => e.id), { timeout: 5_000 }).toEqual([event.id])
  expect(await troubles()).toMatchObject({ unreadable: 1 })
  await expect.poll(async () => (await jsm.consumers.info(id, 'reader')).num_ack_pending, { timeout: 5_000 }).toBe(0)

  // The client library ends the loop itself (as after a refusal it takes for final): the reader starts it again.
  ;(reader as unknown as { messages: { stop(): void } }).messages.stop()
  await expect.poll(async () => (await troubles()).ended, { timeout: 5_000 }).toBe(1)
  const next = battleLost(2)
  await publish(next)
  await expect.poll(() => handled.map((e) => e.id), { timeout: 5_000 }).toEqual([event.id, next.id])
})
