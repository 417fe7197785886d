import { AckPolicy, DeliverPolicy, JetStreamApiError, type Consumer, type ConsumerInfo, type ConsumerMessages, type JetStreamManager } from '@nats-io/jetstream'
import type { Logger } from '../log.js'

const DUPLICATE_WINDOW_NS = 2 * 60 * 1_000_000_000
/** Deliveries of one durable consumer handled at once by this process. */
export const MAX_IN_FLIGHT = 64
/**
 * How long one pull for deliveries waits at the server. The server sends a heartbeat every half
 * of it while the pull waits, and the client library makes the pull again after two missed
 * heartbeats: a pull gone quiet (refused by the server, or lost with a connection) is noticed
 * within about this long. The library's default, 30 s, left such a partition unread for as long.
 */
export const PULL_EXPIRES_MS = 10_000
/** On each copy of an event published to several partitions (`partitionsOf`): the partition it is for. */
export const COPY_HEADER = 'Questline-Copy-For'
/** JetStream's answer to adding a durable that exists with other settings. */
const CONSUMER_EXISTS_OTHERWISE = 10148

/**
 * The stream's settings as a process makes or updates it. An update sends only these: the server
 * keeps the rest as they are (the client merges them into the stream's current settings), so a
 * replica count set by whoever provisioned the stream (deploy/helm's stream job) stays.
 */
export function streamSettings(stream: string, prefix: string, maxAgeSeconds: number) {
  return { name: stream, subjects: [`${prefix}.>`], duplicate_window: DUPLICATE_WINDOW_NS, max_age: maxAgeSeconds * 1_000_000_000 }
}

/**
 * Makes the durable consumer of one subject, or takes the one there. Adding a durable that exists
 * with these settings answers its info; one made with other settings (say an older ack wait) is
 * refused by newer servers, and updated then.
 */
export function durableOn(jsm: JetStreamManager, stream: string, durable: string, subject: string, ackWaitSeconds: number): Promise<ConsumerInfo> {
  const settings = {
    durable_name: durable,
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    filter_subject: subject,
    ack_wait: ackWaitSeconds * 1_000_000_000,
    max_deliver: -1,
  }
  return jsm.consumers.add(stream, settings).catch((e: unknown) => {
    if (!(e instanceof JetStreamApiError) || e.code !== CONSUMER_EXISTS_OTHERWISE) throw e
    return jsm.consumers.update(stream, durable, { ack_wait: settings.ack_wait, max_deliver: settings.max_deliver })
  })
}

/**
 * Pulls a durable's deliveries, `MAX_IN_FLIGHT` at a time; what the client library says of the
 * pulls that an operator should hear (missed heartbeats, refusals by the server) is logged.
 */
export async function pullDeliveries(consumer: Consumer, durable: string, log: Logger | undefined): Promise<ConsumerMessages> {
  const messages = await consumer.consume({ max_messages: MAX_IN_FLIGHT, expires: PULL_EXPIRES_MS })
  void (async () => {
    for await (const s of messages.status()) {
      if (s.type === 'heartbeats_missed' || s.type === 'exceeded_limits' || s.type === 'consumer_deleted') {
        // A quiet or refused pull is made again by the library; a deleted durable only when a
        // process starts reading its partition again (a restart, or the partition moving).
        log?.warn({ durable, status: s }, 'pulling deliveries went wrong')
      }
    }
  })()
  return messages
}
