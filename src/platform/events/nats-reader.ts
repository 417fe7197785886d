import type { Consumer, ConsumerMessages } from '@nats-io/jetstream'
import type { Logger } from '../log.js'
import type { Subscription } from './bus.js'
import type { DomainEvent } from './outbox.js'
import { COPY_HEADER, MAX_IN_FLIGHT, pullDeliveries } from './nats-settings.js'

const REDELIVERY_DELAY_MS = 500
/** How long a handler's delivery is kept from redelivery while the handler is still at it. */
const WORKING_AT_MOST_MS = 120_000

export interface ReaderOptions {
  /** The stream's subject prefix: a delivery's event type is the subject's token after it and the producer. */
  prefix: string
  ackWaitSeconds: number
}

/** One durable consumer this process reads from: a consuming context's, of one producer's events in one partition. */
export class DurableReader {
  /** When each delivery now with a handler of this process was handed to it. */
  readonly inHand = new Set<{ since: number }>()
  private messages: ConsumerMessages | undefined
  private loop: Promise<void> = Promise.resolve()

  private constructor(
    private readonly consumer: Consumer,
    readonly pair: string,
    readonly durable: string,
    private readonly handlers: Subscription['handlers'][string],
    private readonly options: ReaderOptions,
    private readonly log: Logger | undefined,
  ) {}

  /** Starts pulling the durable's deliveries and handing them to `handlers`. */
  static async start(consumer: Consumer, names: { pair: string; durable: string }, handlers: Subscription['handlers'][string],
    options: ReaderOptions, log: Logger | undefined): Promise<DurableReader> {
    const reader = new DurableReader(consumer, names.pair, names.durable, handlers, options, log)
    const messages = await pullDeliveries(consumer, names.durable, log)
    reader.messages = messages
    reader.loop = reader.handle(messages)
    return reader
  }

  /** Stops pulling; deliveries already pulled are still handled (`done` resolves once they are). */
  stop(): void {
    this.messages?.stop()
  }

  done(): Promise<void> {
    return this.loop
  }

  /**
   * Handles up to `MAX_IN_FLIGHT` deliveries at once (each acknowledged on its own), so that a
   * consumer can apply concurrent deliveries together.
   */
  private async handle(messages: ConsumerMessages): Promise<void> {
    const inFlight = new Set<Promise<void>>()
    const typeAt = this.options.prefix.split('.').length + 1
    for await (const m of messages) {
      const handler = this.handlers[m.subject.split('.')[typeAt]!]
      if (!handler) {
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
      const work = handler(m.json<DomainEvent>(), copyFor ? { partition: Number(copyFor) } : undefined).then(() => m.ack(), (e: unknown) => {
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
