import { Counter } from 'prom-client'
import type { MetricsSource } from '../http/metrics.js'
import type { Logger } from '../log.js'

/**
 * What can go wrong pulling a durable's deliveries:
 * - `heartbeats_missed`: a pull went quiet (no delivery and no heartbeat for two heartbeats); the
 *   client library asks the consumer's state and pulls again. One per quiet spell.
 * - `refused`: the server answered a pull with a refusal (a limit exceeded, the durable or the
 *   stream gone, no responders, another status than a pull's expiry).
 * - `stalled`: two readings in a row found events waiting, no pull waiting and fewer than a batch
 *   in hand (a pull dropped unanswered, or lost): the reader stopped and read the durable anew.
 * - `ended`: the reader's loop ended while it was still meant to read (the library stopped after
 *   an error); it reads the durable anew.
 * - `unreadable`: a delivery whose payload is not JSON; acknowledged without handling.
 */
export const PULL_TROUBLE = ['heartbeats_missed', 'refused', 'stalled', 'ended', 'unreadable'] as const
export type PullTroubleKind = typeof PULL_TROUBLE[number]

const SAID: Record<PullTroubleKind, string> = {
  heartbeats_missed: 'a pull for deliveries went quiet (two heartbeats missed); pulling again',
  refused: 'the server refused a pull for deliveries',
  stalled: 'a durable had events waiting and no pull waiting; reading it anew',
  ended: 'pulling deliveries ended; reading the durable anew',
  unreadable: 'a delivery is not JSON; acknowledged without handling',
}

/** Re-reads and unreadable deliveries are warnings; the rest is how pulls recover, told at info. */
const WARNING: ReadonlySet<PullTroubleKind> = new Set(['stalled', 'ended', 'unreadable'])

/**
 * Pull trouble of one process: counted by kind in `event_pull_trouble_total`, logged the first
 * time for each durable and kind (afterwards at debug: the counter says how often), except an
 * unreadable delivery, logged each time.
 */
export class PullTrouble {
  private readonly counter = new Counter({
    name: 'event_pull_trouble_total',
    help: 'Trouble pulling durable consumers\' deliveries, by kind: heartbeats_missed, refused, stalled (read anew), ended (read anew), unreadable',
    labelNames: ['kind'],
    registers: [],
  })
  private readonly told = new Set<string>()

  constructor(private readonly log: Logger | undefined) {
    for (const kind of PULL_TROUBLE) this.counter.inc({ kind }, 0)
  }

  note(kind: PullTroubleKind, durable: string, detail: Record<string, unknown> = {}): void {
    this.counter.inc({ kind })
    const key = `${kind} ${durable}`
    const first = !this.told.has(key) || kind === 'unreadable'
    this.told.add(key)
    const level = !first ? 'debug' : WARNING.has(kind) ? 'warn' : 'info'
    this.log?.[level]({ durable, trouble: kind, ...detail }, SAID[kind])
  }

  readonly metrics: MetricsSource = (registry) => registry.registerMetric(this.counter)
}
