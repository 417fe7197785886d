import type { Broadcast } from './broadcast.js'
import type { DomainEvent } from './outbox.js'

/** The subject an event travels on: `questline.<context>.<EventType>` (the prefix is configurable). */
export const subjectOf = (prefix: string, context: string, type: string) => `${prefix}.${context}.${type}`

/** Events one consuming context wants, and what it does with each. */
export interface Subscription {
  /** The consuming context; one durable consumer per context, shared by its replicas. */
  consumer: string
  /** Producer context → event type → handler. */
  handlers: Record<string, Record<string, (event: DomainEvent) => Promise<void>>>
}

/**
 * Carries committed events from the outbox relay to consumers: at least once. Effects are
 * applied exactly once by consumers that record handled ids (inbox.ts).
 */
export interface EventBus {
  /**
   * Hands the events to the bus all at once; resolves once the bus has taken them (in-process: once
   * every handler has run), answering those it could not take, each with its error.
   */
  publish(context: string, events: DomainEvent[]): Promise<PublishFailure[]>
  subscribe(subscription: Subscription): void
  start(): Promise<void>
  close(): Promise<void>
  /** For /readyz. */
  ping(): Promise<void>
  /** Events taken by the bus but not yet acknowledged by this process's consumers. */
  pending(): Promise<number>
  /** The same, per durable consumer this process reads from (for /metrics). */
  backlog(): Promise<ConsumerBacklog[]>
  /** Messages to every process on the bus, not stored (subscribe before `start`). */
  readonly broadcast: Broadcast
}

export interface PublishFailure {
  event: DomainEvent
  error: unknown
}

/** The failures among settled publishes, each with its event. */
export function failuresOf(events: DomainEvent[], settled: PromiseSettledResult<unknown>[]): PublishFailure[] {
  return settled.flatMap((s, i) => (s.status === 'rejected' ? [{ event: events[i]!, error: s.reason as unknown }] : []))
}

export interface ConsumerBacklog {
  /** `<consuming context>--<producing context>`. */
  consumer: string
  /** Stored events not yet delivered to the consumer. */
  undelivered: number
  /** Delivered but not yet acknowledged (being handled, or failing and due again). */
  unacknowledged: number
}
