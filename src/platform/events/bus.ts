import type { MetricsSource } from '../http/metrics.js'
import type { Ownership } from '../ownership/ownership.js'
import { partition } from '../ownership/partitions.js'
import type { Broadcast } from './broadcast.js'
import type { DomainEvent } from './outbox.js'

/**
 * The subject an event travels on: `questline.<context>.<EventType>.<partition>` (the prefix is
 * configurable), so that each partition's events reach the replica that owns it.
 */
export const subjectOf = (prefix: string, context: string, type: string, p: number) => `${prefix}.${context}.${type}.${p}`

/**
 * The partition an event belongs to: the avatar it concerns (its payload's `avatarId`) when it
 * names one, else its aggregate's. The same partition as requests about that avatar (the
 * gateway's), so an avatar's commands and the effects of events on it meet in one writer.
 */
export function partitionOf(event: DomainEvent): number {
  const avatarId = (event.payload as { avatarId?: unknown } | null)?.avatarId
  return partition(typeof avatarId === 'string' ? avatarId : event.aggregateId)
}

/**
 * The partitions an event travels to: its own (`partitionOf`), and for an event naming several
 * avatars (its payload's `participants`, as a battle's end does) each of theirs, so that its
 * effect on each avatar is applied by the replica owning that avatar, never by another beside it.
 */
export function partitionsOf(event: DomainEvent): number[] {
  const home = partitionOf(event)
  const participants = (event.payload as { participants?: unknown } | null)?.participants
  if (!Array.isArray(participants)) return [home]
  return [...new Set([home, ...participants.filter((id): id is string => typeof id === 'string').map(partition)])]
}

/**
 * Which copy of an event a delivery is, when the event travelled to several partitions: the
 * partition this copy is for. Absent when the delivery is the whole event (a bus that does not
 * partition, or an event published once).
 */
export interface Delivery {
  partition: number
}

/** What a consumer does with one delivery of an event. */
export type DeliveryHandler = (event: DomainEvent, delivery?: Delivery) => Promise<void>

/** Events one consuming context wants, and what it does with each. */
export interface Subscription {
  /** The consuming context; one durable consumer per context, shared by its replicas. */
  consumer: string
  /** Producer context → event type → handler. */
  handlers: Record<string, Record<string, DeliveryHandler>>
  /** The partitions this process consumes (a bus shared by replicas); all when absent. */
  ownership?: Ownership
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
  /** The same, per consuming and producing context and per durable consumer this process reads from (for /metrics). */
  backlog(): Promise<ConsumerBacklog[]>
  /** The bus's own metrics, if it has any. */
  readonly metrics?: MetricsSource
  /** Messages to every process on the bus, not stored. */
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
  /** `<consuming context>--<producing context>` (over the partitions this process consumes). */
  consumer: string
  /** Stored events not yet delivered to the consumer. */
  undelivered: number
  /** Delivered but not yet acknowledged (being handled, or failing and due again). */
  unacknowledged: number
  /**
   * Of those, how many this process's handlers have now, and how long the oldest has been with
   * them: the rest are on the way, waiting in the client, or lost on the way (due again after
   * the ack wait).
   */
  inHand: number
  longestInHandSeconds: number
  /** Pulls of this process waiting at the server for deliveries (none while events wait is a stall). */
  waitingPulls: number
  /** The same per durable consumer (one per partition this process reads). */
  durables: DurableBacklog[]
}

/** One durable consumer's part of a `ConsumerBacklog`. */
export interface DurableBacklog {
  durable: string
  undelivered: number
  unacknowledged: number
  inHand: number
  waitingPulls: number
}
