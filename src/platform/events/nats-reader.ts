import type { Consumer, ConsumerInfo, ConsumerMessages, ConsumerNotification } from '@nats-io/jetstream'
import type { Logger } from '../log.js'
import type { Subscription } from './bus.js'
import type { DomainEvent } from './outbox.js'
import { COPY_HEADER, MAX_IN_FLIGHT, pullDeliveries } from './nats-settings.js'
import type { PullTrouble } from './pull-trouble.js'

const REDELIVERY_DELAY_MS = 500
/** How long a handler's delivery is kept from redelivery while the handler is still at it. */
const WORKING_AT_MOST_MS = 120_000
/**
 * A durable is read anew when a reading of its state finds it stalled at least this long after
 * one that did, with no sign of a pull (a delivery, a heartbeat, a pull made) between them.
 */
const STALLED_FOR_MS = 500
/** The pause before reading a durable anew after its loop ended, or after pulling failed to start. */
const READ_AGAIN_AFTER_MS = 1_000

/** What the server answers a pull that is no refusal: the pull's expiry (408). */
const EXPIRED = 408
const REFUSALS: ReadonlySet<ConsumerNotification['type']> = new Set(['exceeded_limits', 'consumer_deleted', 'consumer_not_found', 'stream_not_found', 'no_responders'])
const isRefusal = (s: ConsumerNotification) => REFUSALS.has(s.type) || (s.type === 'debug' && s.code !== EXPIRED)

export interface ReaderOptions {
  /** The stream's subject prefix: a delivery's event type is the subject's token after it and the producer. */
  prefix: string
  ackWaitSeconds: number
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/**
 * One durable consumer this process reads from: a consuming context's, of one producer's events
 * in one partition. A pull that goes quiet is made again by the client library after two missed
 * heartbeats; a reader whose durable still shows events waiting, no pull waiting and fewer than
 * a batch in hand on two readings in a row (`observe`: each look at the backlog, and one per
 * missed heartbeat) stops pulling and reads the durable anew, as it does when its loop ends.
 */
export class DurableReader {
  /** When each delivery now with a handler of this process was handed to it. */
  readonly inHand = new Set<{ since: number }>()
  private messages: ConsumerMessages | undefined
  /** The handling loop, and the one before a re-read while it hands over what it had pulled. */
  private readonly loops = new Set<Promise<void>>()
  private stopped = false
  /** A re-read under way. */
  private reading: Promise<void> | undefined
  /** When a pull last showed life: a delivery, a heartbeat, a pull made or answered. */
  private lastSign = Date.now()
  /** When the first of the readings in a row that found the durable stalled was asked. */
  private stalledSince: number | undefined
  private checking = false

  private constructor(
    private readonly consumer: Consumer,
    readonly pair: string,
    readonly durable: string,
    private readonly handlers: Subscription['handlers'][string],
    private readonly options: ReaderOptions,
    private readonly trouble: PullTrouble,
    private readonly log: Logger | undefined,
  ) {}

  /** Starts pulling the durable's deliveries and handing them to `handlers`. */
  static async start(consumer: Consumer, names: { pair: string; durable: string }, handlers: Subscription['handlers'][string],
    options: ReaderOptions, trouble: PullTrouble, log: Logger | undefined): Promise<DurableReader> {
    const reader = new DurableReader(consumer, names.pair, names.durable, handlers, options, trouble, log)
    await reader.read()
    return reader
  }

  /** Stops pulling; deliveries already pulled are still handled (`done` resolves once they are). */
  stop(): void {
    this.stopped = true
    this.messages?.stop()
  }

  async done(): Promise<void> {
    await this.reading
    while (this.loops.size > 0) await Promise.all([...this.loops])
  }

  /**
   * A reading of the durable's state, asked at `askedAt`: two in a row that find events waiting,
   * no pull waiting and fewer than a batch in hand, `STALLED_FOR_MS` apart with no sign of a
   * pull between them, make the reader read the durable anew.
   */
  observe(info: ConsumerInfo, askedAt: number): void {
    if (this.stopped || this.reading || this.lastSign > askedAt) return
    const stalled = info.num_pending > 0 && info.num_waiting === 0 && this.inHand.size < MAX_IN_FLIGHT
    if (!stalled) return void (this.stalledSince = undefined)
    if (this.stalledSince === undefined || this.lastSign > this.stalledSince) return void (this.stalledSince = askedAt)
    if (askedAt - this.stalledSince < STALLED_FOR_MS) return
    this.stalledSince = undefined
    this.trouble.note('stalled', this.durable, { undelivered: info.num_pending, inHand: this.inHand.size })
    this.reading = this.readAgain().finally(() => (this.reading = undefined))
  }

  /** Pulls the durable's deliveries anew, its status watched and a loop handling them. */
  private async read(): Promise<void> {
    const messages = await pullDeliveries(this.consumer)
    if (this.stopped) return void messages.stop()
    this.messages = messages
    this.lastSign = Date.now()
    this.stalledSince = undefined
    void this.watch(messages)
    const loop = this.handle(messages).then(() => this.ended(messages), (e: unknown) => this.ended(messages, e))
    this.loops.add(loop)
    void loop.finally(() => this.loops.delete(loop))
  }

  /** Stops the pulls and reads again; the old loop hands over what it had pulled, then ends. */
  private async readAgain(): Promise<void> {
    const old = this.messages
    this.messages = undefined
    old?.stop()
    while (!this.stopped) {
      try {
        return await this.read()
      } catch (e) {
        this.log?.warn({ err: e, durable: this.durable }, 'pulling deliveries failed to start; trying again')
        await sleep(READ_AGAIN_AFTER_MS)
      }
    }
  }

  /** A loop that ends while its pulls are still the reader's (not stopped, not read anew) is read again. */
  private async ended(messages: ConsumerMessages, err?: unknown): Promise<void> {
    if (this.stopped || this.messages !== messages) return
    this.trouble.note('ended', this.durable, err === undefined ? {} : { err })
    await sleep(READ_AGAIN_AFTER_MS)
    if (this.stopped || this.messages !== messages || this.reading) return
    this.reading = this.readAgain().finally(() => (this.reading = undefined))
  }

  /** What the client library says of the pulls: signs of life, missed heartbeats, refusals. */
  private async watch(messages: ConsumerMessages): Promise<void> {
    for await (const s of messages.status()) {
      if (s.type !== 'heartbeats_missed') {
        this.lastSign = Date.now()
        if (isRefusal(s)) this.trouble.note('refused', this.durable, { status: s })
        continue
      }
      // Told once per quiet spell (the library says so at each heartbeat missed after the first two).
      if (s.count === 2) this.trouble.note('heartbeats_missed', this.durable)
      void this.check()
    }
  }

  /** One reading of the durable's state for `observe`, while its pull is quiet. */
  private async check(): Promise<void> {
    if (this.checking || this.stopped) return
    this.checking = true
    const askedAt = Date.now()
    try {
      this.observe(await this.consumer.info(), askedAt)
    } catch {
      // Unanswered (the server busy, the connection down): the next missed heartbeat asks again.
    } finally {
      this.checking = false
    }
  }

  /**
   * Handles up to `MAX_IN_FLIGHT` deliveries at once (each acknowledged on its own), so that a
   * consumer can apply concurrent deliveries together.
   */
  private async handle(messages: ConsumerMessages): Promise<void> {
    const inFlight = new Set<Promise<void>>()
    const typeAt = this.options.prefix.split('.').length + 1
    for await (const m of messages) {
      this.lastSign = Date.now()
      const handler = this.handlers[m.subject.split('.')[typeAt]!]
      if (!handler) {
        m.ack()
        continue
      }
      let event: DomainEvent
      try {
        event = m.json<DomainEvent>()
      } catch (e) {
        this.trouble.note('unreadable', this.durable, { err: e, subject: m.subject, streamSequence: m.seq })
        m.ack()
        continue
      }
      const copyFor = m.headers?.get(COPY_HEADER)
      // A handler still at work says so every half ack wait: the ack wait can stay short (what
      // a delivery lost on the way, at a hand-over or a reconnect, waits), and a slow handler
      // is not given its event a second time meanwhile; one at it past `WORKING_AT_MOST_MS`
      // is taken for stuck, and the event is delivered again.
      const handed = { since: Date.now() }
      this.inHand.add(handed)
      const working = setInterval(() => {
        if (Date.now() - handed.since < WORKING_AT_MOST_MS) m.working()
        else clearInterval(working)
      }, this.options.ackWaitSeconds * 500)
      const work = (async () => handler(event, copyFor ? { partition: Number(copyFor) } : undefined))().then(() => m.ack(), (e: unknown) => {
        this.log?.warn({ err: e, subject: m.subject }, 'event handler failed; redelivering')
        m.nak(REDELIVERY_DELAY_MS)
      }).finally(() => {
        clearInterval(working)
        this.inHand.delete(handed)
        inFlight.delete(work)
      })
      inFlight.add(work)
      if (inFlight.size >= MAX_IN_FLIGHT) await Promise.race(inFlight)
    }
    await Promise.all(inFlight)
  }
}
