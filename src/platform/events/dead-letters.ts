import { Counter } from 'prom-client'
import type { Clock } from '../clock.js'
import type { Database } from '../db/database.js'
import type { MetricsSource } from '../http/metrics.js'
import type { Logger } from '../log.js'
import type { DomainEvent } from './outbox.js'
import { deadLetters } from './tables.js'

/**
 * Where a consumer parks an event it must not apply: a row with the reason in
 * `platform.dead_letters`, a count in `events_parked_total`, a warning in the log. Parked is
 * handled: the bus does not deliver it again.
 */
export class DeadLetters {
  private readonly parked = new Counter({
    name: 'events_parked_total',
    help: 'Events parked by a consumer because their payload does not fit the contract, by consumer and event',
    labelNames: ['consumer', 'event'],
    registers: [],
  })

  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
    private readonly log?: Logger,
  ) {}

  async park(consumer: string, producer: string, event: DomainEvent, reason: string): Promise<void> {
    await this.database.db.insert(deadLetters).values({
      consumer, eventId: event.id, producer, type: event.type, payload: event.payload ?? null, reason, parkedAt: this.clock.now(),
    }).onConflictDoNothing()
    this.parked.inc({ consumer, event: `${producer}.${event.type}` })
    this.log?.warn({ consumer, event: event.id, type: `${producer}.${event.type}`, reason }, 'event parked: its payload does not fit its contract')
  }

  readonly metrics: MetricsSource = (registry) => registry.registerMetric(this.parked)
}
