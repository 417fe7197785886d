import { AckPolicy, DeliverPolicy, JetStreamApiError, type Consumer, type ConsumerInfo, type ConsumerMessages, type JetStreamManager } from '@nats-io/jetstream'

const DUPLICATE_WINDOW_NS = 2 * 60 * 1_000_000_000
/** Deliveries of one durable consumer handled at once by this process. */
export const MAX_IN_FLIGHT = 64
/**
 * How long one pull for deliveries waits at the server before it is answered 408 and made again.
 * Short, because nats-server before 2.9.16 drops a pull that expires just as a message is handed
 * to it, unanswered (docs/operations.md, "Supported versions"), and the client library waits out a
 * failed look at the consumer's state for 0.5–1.5 × this long before it pulls again.
 */
export const PULL_EXPIRES_MS = 5_000
/**
 * While a pull waits, the server sends a heartbeat this often; after two missed, the client
 * library asks the consumer's state and pulls again, so a pull dropped or lost is replaced within
 * about 3 × this long. At most half the expiry, or the server refuses the pull (400).
 */
export const PULL_HEARTBEAT_MS = 1_000
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

/** Pulls a durable's deliveries, `MAX_IN_FLIGHT` at a time, with the expiry and heartbeat above. */
export function pullDeliveries(consumer: Consumer): Promise<ConsumerMessages> {
  return consumer.consume({ max_messages: MAX_IN_FLIGHT, expires: PULL_EXPIRES_MS, idle_heartbeat: PULL_HEARTBEAT_MS })
}
