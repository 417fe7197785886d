import { AckPolicy, DeliverPolicy, JetStreamApiError, type ConsumerInfo, type JetStreamManager } from '@nats-io/jetstream'

const DUPLICATE_WINDOW_NS = 2 * 60 * 1_000_000_000
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
