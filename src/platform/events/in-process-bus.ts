import type { ConsumerBacklog, EventBus, Subscription } from './bus.js'
import type { DomainEvent } from './outbox.js'

/**
 * The all-in-one bus: publishing runs the subscribed handlers directly. A handler that throws
 * fails the publish, so the relay keeps the event and delivers it again later; handlers that
 * already succeeded skip it then, through their inbox.
 */
export class InProcessBus implements EventBus {
  private readonly subscriptions: Subscription[] = []

  subscribe(subscription: Subscription): void {
    this.subscriptions.push(subscription)
  }

  async publish(context: string, events: DomainEvent[]): Promise<void> {
    for (const event of events) {
      for (const s of this.subscriptions) {
        const handle = s.handlers[context]?.[event.type]
        if (handle) await handle(event)
      }
    }
  }

  async start(): Promise<void> {}
  async close(): Promise<void> {}
  async ping(): Promise<void> {}
  /** Publishing runs the handlers, so nothing is ever left pending. */
  async pending(): Promise<number> {
    return 0
  }

  async backlog(): Promise<ConsumerBacklog[]> {
    return []
  }
}
