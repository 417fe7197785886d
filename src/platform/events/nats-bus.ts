import {
  AckPolicy, DeliverPolicy, jetstream, jetstreamManager, type ConsumerMessages, type JetStreamClient, type JetStreamManager,
} from '@nats-io/jetstream'
import { connect, type NatsConnection } from '@nats-io/transport-node'
import type { Logger } from '../log.js'
import type { Broadcast } from './broadcast.js'
import { failuresOf, subjectOf, type ConsumerBacklog, type EventBus, type PublishFailure, type Subscription } from './bus.js'
import type { DomainEvent } from './outbox.js'

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

const DUPLICATE_WINDOW_NS = 2 * 60 * 1_000_000_000
const REDELIVERY_DELAY_MS = 500
/** Deliveries of one durable consumer handled at once by this process. */
const MAX_IN_FLIGHT = 64
/** How long a process keeps trying to set up its stream and consumers before it gives up. */
const SETUP_DEADLINE_MS = 30_000

/**
 * Events over NATS JetStream: one stream for all subjects `<prefix>.<context>.<EventType>`,
 * published with the event id as message id (the server drops duplicates within its window).
 * Each consuming context has one durable consumer per producing context (this server version
 * filters a consumer on one subject only), shared by all replicas of the consuming context.
 */
export class NatsBus implements EventBus {
  private nc: NatsConnection | undefined
  private js: JetStreamClient | undefined
  private readonly subscriptions: Subscription[] = []
  private readonly consuming: { durable: string; messages: ConsumerMessages; loop: Promise<void> }[] = []
  private jsm: JetStreamManager | undefined
  private readonly listeners: { topic: string; handler: (data: unknown) => void }[] = []

  /**
   * Core NATS, outside the stream's subjects (`<prefix>_broadcast.<topic>`, so JetStream stores
   * none of it): one plain subscription per topic and process.
   */
  readonly broadcast: Broadcast = {
    publish: (topic, data) => {
      if (!this.nc || this.nc.isClosed()) return
      this.nc.publish(this.broadcastSubject(topic), JSON.stringify(data))
    },
    subscribe: (topic, handler) => {
      if (this.nc) throw new Error('Subscribe to a broadcast topic before the bus starts.')
      this.listeners.push({ topic, handler })
    },
  }

  private broadcastSubject(topic: string): string {
    return `${this.options.prefix}_broadcast.${topic}`
  }

  constructor(
    private readonly options: NatsBusOptions,
    private readonly log: Logger | undefined,
  ) {}

  subscribe(subscription: Subscription): void {
    this.subscriptions.push(subscription)
  }

  async start(): Promise<void> {
    const { stream, prefix } = this.options
    // No async traces: with them every publish and every ack makes an Error up front (for its
    // stack, should it fail), which took ~5% of a busy publisher's CPU; our logs name what failed.
    this.nc = await connect({ servers: this.options.url, maxReconnectAttempts: -1, name: `questline-${process.pid}`, noAsyncTraces: true })
    const jsm = await jetstreamManager(this.nc)
    this.jsm = jsm
    const config = { name: stream, subjects: [`${prefix}.>`], duplicate_window: DUPLICATE_WINDOW_NS, max_age: this.options.maxAgeSeconds * 1_000_000_000 }
    // A server just started may not serve JetStream yet, and replicas starting together race to
    // make the stream: tried again until it is there.
    await this.untilDone('the stream', async () => {
      const exists = await jsm.streams.info(stream).then(() => true, () => false)
      await (exists ? jsm.streams.update(stream, config) : jsm.streams.add(config))
    })
    this.js = jetstream(this.nc)
    for (const { topic, handler } of this.listeners) {
      this.nc.subscribe(this.broadcastSubject(topic), {
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

    for (const s of this.subscriptions) {
      for (const [producer, handlers] of Object.entries(s.handlers)) {
        const durable = `${s.consumer}--${producer}`
        await this.untilDone(`consumer ${durable}`, () => jsm.consumers.add(stream, {
          durable_name: durable,
          ack_policy: AckPolicy.Explicit,
          deliver_policy: DeliverPolicy.All,
          filter_subject: `${prefix}.${producer}.>`,
          ack_wait: this.options.ackWaitSeconds * 1_000_000_000,
          max_deliver: -1,
        }))
        const consumer = await this.js.consumers.get(stream, durable)
        const messages = await consumer.consume({ max_messages: 64 })
        this.consuming.push({ durable, messages, loop: this.handle(messages, producer, handlers) })
      }
    }
  }

  /** Setting up JetStream: failures retried with a growing pause, for `SETUP_DEADLINE_MS` in all. */
  private async untilDone(what: string, work: () => Promise<unknown>): Promise<void> {
    const deadline = Date.now() + SETUP_DEADLINE_MS
    for (let pause = 100; ; pause = Math.min(pause * 2, 2_000)) {
      try {
        await work()
        return
      } catch (e) {
        if (Date.now() + pause > deadline) throw e
        this.log?.warn({ err: e, what }, 'JetStream setup failed; trying again')
        await new Promise((r) => setTimeout(r, pause))
      }
    }
  }

  /**
   * Handles up to `MAX_IN_FLIGHT` deliveries at once (each acknowledged on its own), so that a
   * consumer can apply concurrent deliveries together.
   */
  private async handle(messages: ConsumerMessages, producer: string, handlers: Subscription['handlers'][string]): Promise<void> {
    const inFlight = new Set<Promise<void>>()
    for await (const m of messages) {
      const type = m.subject.slice(`${this.options.prefix}.${producer}.`.length)
      const handler = handlers[type]
      if (!handler) {
        m.ack()
        continue
      }
      const work = handler(m.json<DomainEvent>()).then(() => m.ack(), (e: unknown) => {
        this.log?.warn({ err: e, subject: m.subject }, 'event handler failed; redelivering')
        m.nak(REDELIVERY_DELAY_MS)
      }).finally(() => inFlight.delete(work))
      inFlight.add(work)
      if (inFlight.size >= MAX_IN_FLIGHT) await Promise.race(inFlight)
    }
    await Promise.all(inFlight)
  }

  async publish(context: string, events: DomainEvent[]): Promise<PublishFailure[]> {
    const js = this.js
    if (!js) throw new Error('The NATS bus is not started.')
    const subject = (e: DomainEvent) => subjectOf(this.options.prefix, context, e.type)
    return failuresOf(events, await Promise.allSettled(events.map((e) => js.publish(subject(e), JSON.stringify(e), { msgID: e.id }))))
  }

  async ping(): Promise<void> {
    if (!this.nc || this.nc.isClosed()) throw new Error('not connected to NATS')
    await this.nc.rtt()
  }

  async pending(): Promise<number> {
    return (await this.backlog()).reduce((n, b) => n + b.undelivered + b.unacknowledged, 0)
  }

  async backlog(): Promise<ConsumerBacklog[]> {
    const answers: ConsumerBacklog[] = []
    for (const c of this.consuming) {
      const info = await this.jsm!.consumers.info(this.options.stream, c.durable)
      answers.push({ consumer: c.durable, undelivered: info.num_pending, unacknowledged: info.num_ack_pending })
    }
    return answers
  }

  async close(): Promise<void> {
    for (const c of this.consuming) c.messages.stop()
    await Promise.all(this.consuming.map((c) => c.loop))
    this.consuming.length = 0
    await this.nc?.drain()
  }
}
