import { LocalBroadcast } from './broadcast.js'
import { failuresOf, type ConsumerBacklog, type EventBus, type PublishFailure, type Subscription } from './bus.js'
import type { DomainEvent } from './outbox.js'

/**
 * The all-in-one bus: publishing runs the subscribed handlers directly, every event of the batch
 * at once, so consumers can apply concurrent deliveries together. A handler that throws fails that
 * event's publish, so the relay keeps it and delivers it again later; handlers that already
 * succeeded skip it then, through their inbox.
 */
export class InProcessBus implements EventBus {
  private readonly subscriptions: Subscription[] = []
  readonly broadcast = new LocalBroadcast()

  subscribe(subscription: Subscription): void {
    this.subscriptions.push(subscription)
  }

  async publish(context: string, events: DomainEvent[]): Promise<PublishFailure[]> {
    const deliver = async (event: DomainEvent) => {
      const handlers = this.subscriptions.flatMap((s) => s.handlers[context]?.[event.type] ?? [])
      const settled = await Promise.allSettled(handlers.map((handle) => handle(event)))
      const failure = settled.find((r) => r.status === 'rejected')
      if (failure) throw failure.reason
    }
    return failuresOf(events, await Promise.allSettled(events.map(deliver)))
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
