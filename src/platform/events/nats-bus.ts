import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream'
import { connect, headers, type NatsConnection, type Subscription as NatsSubscription } from '@nats-io/transport-node'
import type { Logger } from '../log.js'
import { ownsAll, type Ownership } from '../ownership/ownership.js'
import type { Broadcast } from './broadcast.js'
import { failuresOf, partitionOf, partitionsOf, subjectOf, type ConsumerBacklog, type EventBus, type PublishFailure, type Subscription } from './bus.js'
import type { DomainEvent } from './outbox.js'
import { PARTITIONS } from '../ownership/partitions.js'
import { DurableReader } from './nats-reader.js'
import { COPY_HEADER, durableOn, streamSettings } from './nats-settings.js'
import { PullTrouble } from './pull-trouble.js'
import type { MetricsSource } from '../http/metrics.js'
import { Slots } from '../slots.js'

interface NatsBusOptions {
  url: string
  /** Stream name and subject prefix; CI gives each run its own. */
  stream: string
  prefix: string
  /** How long an event delivered to a consumer waits for its ack before it is delivered again. */
  ackWaitSeconds: number
  /**
   * How long the stream keeps an event (RETENTION_DAYS): its storage stays bounded, and a consumer
   * made again from the start never replays an event older than the inboxes remember.
   */
  maxAgeSeconds: number
}

/** The platform's own broadcast topic: a process back on NATS after an interruption. */
const LOSS_TOPIC = '_reconnected'
/** How long a process keeps trying to set up its stream and consumers before it gives up. */
const SETUP_DEADLINE_MS = 60_000
/**
 * JetStream API requests one process has in flight while setting up consumers: a replica takes
 * over hundreds of durables at start, and a burst of them all at once queues at the server
 * until requests time out (seen with several clusters starting together on one NATS server).
 */
const SETUP_REQUESTS_AT_ONCE = 8
/** The pause before a process tries again to read partitions it came to own and failed to start reading. */
const TAKEOVER_RETRY_MS = 1_000

/** A broadcast subscriber, and its NATS subscription once the bus has started. */
interface Listener {
  topic: string
  handler: (data: unknown) => void
  sub?: NatsSubscription
}

/**
 * Events over NATS JetStream: one stream for all subjects `<prefix>.<context>.<EventType>.<partition>`,
 * published with the event id as message id (the server drops duplicates within its window); an
 * event naming several avatars goes as one marked copy to each of their partitions (`partitionsOf`).
 * Each consuming context has one durable consumer per producing context and partition (this
 * server version filters a consumer on one subject only), read by the replica that owns the
 * partition (ownership/): it starts reading a partition it comes to own and stops one it loses.
 */
export class NatsBus implements EventBus {
  private nc: NatsConnection | undefined
  private js: JetStreamClient | undefined
  private readonly subscriptions: Subscription[] = []
  /** By durable name. */
  private readonly consuming = new Map<string, DurableReader>()
  /** Ownership changes applied one after another, per process. */
  private rebalancing: Promise<void> = Promise.resolve()
  private closing = false
  private jsm: JetStreamManager | undefined
  private readonly setupSlots = new Slots(SETUP_REQUESTS_AT_ONCE)
  private readonly listeners = new Set<Listener>()
  private readonly lossListeners: (() => void)[] = []
  private readonly trouble: PullTrouble
  /** `event_pull_trouble_total`: what went wrong pulling this process's durables, by kind. */
  readonly metrics: MetricsSource

  /**
   * Core NATS, outside the stream's subjects (`<prefix>_broadcast.<topic>`, so JetStream stores
   * none of it): one plain subscription per subscriber, made when the bus starts or at once after.
   */
  readonly broadcast: Broadcast = {
    onPossibleLoss: (listener) => void this.lossListeners.push(listener),
    publish: (topic, data) => {
      if (!this.nc || this.nc.isClosed()) return
      this.nc.publish(this.broadcastSubject(topic), JSON.stringify(data))
    },
    subscribe: (topic, handler) => {
      const listener: Listener = { topic, handler }
      this.listeners.add(listener)
      if (this.nc) this.listen(listener)
      return () => {
        this.listeners.delete(listener)
        listener.sub?.unsubscribe()
      }
    },
  }

  private listen(listener: Listener): void {
    const { topic, handler } = listener
    if (listener.sub) return
    listener.sub = this.nc!.subscribe(this.broadcastSubject(topic), {
      callback: (err, m) => {
        if (err) return void this.log?.warn({ err, topic }, 'broadcast subscription failed')
        try {
          handler(m.json())
        } catch (e) {
          this.log?.warn({ err: e, topic }, 'broadcast handler failed')
        }
      },
    })
  }

  private broadcastSubject(topic: string): string {
    return `${this.options.prefix}_broadcast.${topic}`
  }

  constructor(
    private readonly options: NatsBusOptions,
    private readonly log: Logger | undefined,
  ) {
    this.trouble = new PullTrouble(log)
    this.metrics = this.trouble.metrics
  }

  subscribe(subscription: Subscription): void {
    this.subscriptions.push(subscription)
  }

  async start(): Promise<void> {
    const { stream, prefix } = this.options
    // No async traces: with them every publish and every ack makes an Error up front (for its
    // stack, should it fail), which took ~5% of a busy publisher's CPU; our logs name what failed.
    this.nc = await connect({ servers: this.options.url, maxReconnectAttempts: -1, name: `questline-${process.pid}`, noAsyncTraces: true })
    void this.watchForLoss(this.nc)
    const jsm = await jetstreamManager(this.nc)
    this.jsm = jsm
    const config = streamSettings(stream, prefix, this.options.maxAgeSeconds)
    // A server just started may not serve JetStream yet, and replicas starting together race to
    // make the stream: tried again until it is there.
    await this.untilDone('the stream', async () => {
      const exists = await jsm.streams.info(stream).then(() => true, () => false)
      await (exists ? jsm.streams.update(stream, config) : jsm.streams.add(config))
    })
    this.js = jetstream(this.nc)
    for (const listener of this.listeners) this.listen(listener)

    for (const sub of this.subscriptions) {
      const ownership = sub.ownership ?? ownsAll
      ownership.onChange(() => void this.rebalanceUntilDone(sub, ownership))
      await this.rebalance(sub, ownership)
    }
  }

  /**
   * After an ownership change: a partition this process now owns and failed to start reading
   * (JetStream busy past the setup deadline) is tried again after a pause, not left unread
   * until the next change, which may never come.
   */
  private async rebalanceUntilDone(sub: Subscription, ownership: Ownership): Promise<void> {
    for (;;) {
      try {
        return await this.rebalance(sub, ownership)
      } catch (e) {
        if (this.closing) return
        this.log?.warn({ err: e, consumer: sub.consumer }, 'taking over partitions failed; trying again')
        await new Promise((r) => setTimeout(r, TAKEOVER_RETRY_MS))
      }
    }
  }

  /** Consumes what the process owns at that moment, after any change still being applied. */
  private rebalance(sub: Subscription, ownership: Ownership): Promise<void> {
    const done = this.rebalancing.then(() => this.consume(sub, ownership.owned()))
    this.rebalancing = done.catch(() => undefined)
    return done
  }

  /** Reads exactly the `owned` partitions of the subscription's producers: starts the new ones (together), stops the lost ones. */
  private async consume(sub: Subscription, owned: ReadonlySet<number>): Promise<void> {
    if (this.closing) return
    const starting: Promise<void>[] = []
    for (const [producer, handlers] of Object.entries(sub.handlers)) {
      const pair = `${sub.consumer}--${producer}`
      for (let p = 0; p < PARTITIONS; p++) {
        const durable = `${pair}--${p}`
        const reading = this.consuming.get(durable)
        if (owned.has(p) && !reading) starting.push(this.startReading(pair, durable, producer, p, handlers))
        if (!owned.has(p) && reading) {
          this.consuming.delete(durable)
          // Deliveries already pulled are still handled; the rest go to the new owner.
          reading.stop()
        }
      }
    }
    await Promise.all(starting)
  }

  private async startReading(pair: string, durable: string, producer: string, p: number, handlers: Subscription['handlers'][string]): Promise<void> {
    const { stream, prefix, ackWaitSeconds } = this.options
    // The info the durable is added with makes the consumer without asking for it again.
    const info = await this.setupSlots.run(() => this.untilDone(`consumer ${durable}`,
      () => durableOn(this.jsm!, stream, durable, `${prefix}.${producer}.*.${p}`, ackWaitSeconds)))
    const consumer = this.js!.consumers.getConsumerFromInfo(info)
    this.consuming.set(durable, await DurableReader.start(consumer, { pair, durable }, handlers, { prefix, ackWaitSeconds }, this.trouble, this.log))
  }

  /** Setting up JetStream: failures retried with a growing pause, for `SETUP_DEADLINE_MS` in all. */
  private async untilDone<T>(what: string, work: () => Promise<T>): Promise<T> {
    const deadline = Date.now() + SETUP_DEADLINE_MS
    for (let pause = 100; ; pause = Math.min(pause * 2, 2_000)) {
      try {
        return await work()
      } catch (e) {
        if (Date.now() + pause > deadline) throw e
        this.log?.warn({ err: e, what }, 'JetStream setup failed; trying again')
        await new Promise((r) => setTimeout(r, pause))
      }
    }
  }

  async publish(context: string, events: DomainEvent[]): Promise<PublishFailure[]> {
    const js = this.js
    if (!js) throw new Error('The NATS bus is not started.')
    const publishOne = async (e: DomainEvent) => {
      const home = partitionOf(e)
      const partitions = partitionsOf(e)
      const body = JSON.stringify(e)
      if (partitions.length === 1) return void (await js.publish(subjectOf(this.options.prefix, context, e.type, home), body, { msgID: e.id }))
      // One copy per partition, each marked as a copy (a message without the mark is the whole
      // event, as every message a version without copies published), each with an id of its
      // own, so the server's duplicate check drops a republished copy, never another partition's.
      await Promise.all(partitions.map((p) => {
        const marked = headers()
        marked.set(COPY_HEADER, String(p))
        return js.publish(subjectOf(this.options.prefix, context, e.type, p), body, { msgID: p === home ? e.id : `${e.id}.${p}`, headers: marked })
      }))
    }
    return failuresOf(events, await Promise.allSettled(events.map(publishOne)))
  }

  async ping(): Promise<void> {
    if (!this.nc || this.nc.isClosed()) throw new Error('not connected to NATS')
    await this.nc.rtt()
  }

  async pending(): Promise<number> {
    return (await this.backlog()).reduce((n, b) => n + b.undelivered + b.unacknowledged, 0)
  }

  /**
   * Per consuming and producing context, summed over the partitions this process reads, and per
   * durable (asked all at once). Each durable's reading is also its reader's look for a stall.
   */
  async backlog(): Promise<ConsumerBacklog[]> {
    const reading = [...this.consuming.values()]
    const askedAt = Date.now()
    const infos = await Promise.all(reading.map((c) => this.jsm!.consumers.info(this.options.stream, c.durable)))
    const byPair = new Map<string, ConsumerBacklog>()
    const now = Date.now()
    reading.forEach((c, i) => {
      const info = infos[i]!
      c.observe(info, askedAt)
      const d = { durable: c.durable, undelivered: info.num_pending, unacknowledged: info.num_ack_pending, inHand: c.inHand.size, waitingPulls: info.num_waiting }
      const b = byPair.get(c.pair) ?? { consumer: c.pair, undelivered: 0, unacknowledged: 0, inHand: 0, longestInHandSeconds: 0, waitingPulls: 0, durables: [] }
      b.undelivered += d.undelivered
      b.unacknowledged += d.unacknowledged
      b.inHand += d.inHand
      b.waitingPulls += d.waitingPulls
      b.durables.push(d)
      for (const { since } of c.inHand) b.longestInHandSeconds = Math.max(b.longestInHandSeconds, Math.round((now - since) / 1000))
      byPair.set(c.pair, b)
    })
    return [...byPair.values()]
  }

  /**
   * Broadcasts are at most once: a connection interrupted (here, or at a process that published
   * meanwhile) or a subscriber that fell behind may have lost some. Each process says so to the
   * others when it is back, and its listeners hear of both.
   */
  private async watchForLoss(nc: NatsConnection): Promise<void> {
    const lost = () => {
      for (const listener of this.lossListeners) listener()
    }
    const lossSubject = this.broadcastSubject(LOSS_TOPIC)
    nc.subscribe(lossSubject, { callback: () => lost() })
    for await (const s of nc.status()) {
      if (s.type === 'slowConsumer') lost()
      if (s.type !== 'reconnect') continue
      lost()
      nc.publish(lossSubject)
    }
  }

  async close(): Promise<void> {
    this.closing = true
    await this.rebalancing
    const reading = [...this.consuming.values()]
    this.consuming.clear()
    for (const c of reading) c.stop()
    await Promise.all(reading.map((c) => c.done()))
    await this.nc?.drain()
  }
}
