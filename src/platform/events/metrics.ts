import { isNull, sql } from 'drizzle-orm'
import { Gauge } from 'prom-client'
import type { Database } from '../db/database.js'
import type { MetricsSource } from '../http/metrics.js'
import type { Sampled } from '../http/metrics-sampler.js'
import type { ConsumerBacklog, EventBus } from './bus.js'
import type { Outbox } from './outbox.js'

/**
 * How far event delivery is behind, as last sampled: per outbox of this process, the events
 * committed but not yet published and the age of the oldest; per durable consumer it reads
 * from, the events not yet delivered and those delivered but not yet acknowledged; and the bus's
 * own (NATS: trouble pulling deliveries).
 */
export function eventMetrics(outboxes: Outbox[], bus: EventBus, database: Database): MetricsSource {
  return (registry, reads) => {
    const outboxBacklogs = reads.sampled('outbox_backlog',
      () => Promise.all(outboxes.map(async (o) => ({ context: o.context, ...(await outboxBacklog(database, o)) }))))
    const consumerBacklogs: Sampled<ConsumerBacklog[]> = reads.sampled('consumer_backlog', () => bus.backlog())
    gauge(registry, 'outbox_unpublished_events', 'Events committed to the outbox and not yet published, by context', 'context',
      () => outboxBacklogs()?.map((b) => [b.context, b.count]))
    gauge(registry, 'outbox_lag_seconds', 'Age of the oldest unpublished outbox event, by context (0 when none)', 'context',
      () => outboxBacklogs()?.map((b) => [b.context, b.age]))
    gauge(registry, 'event_consumer_pending', 'Events stored for a durable consumer and not yet delivered to it', 'consumer',
      () => consumerBacklogs()?.map((b) => [b.consumer, b.undelivered]))
    gauge(registry, 'event_consumer_unacknowledged', 'Events delivered to a durable consumer and not yet acknowledged', 'consumer',
      () => consumerBacklogs()?.map((b) => [b.consumer, b.unacknowledged]))
    bus.metrics?.(registry, reads)
  }
}

/** A gauge by one label, from the last reading (none before the first). */
function gauge(registry: Parameters<MetricsSource>[0], name: string, help: string, label: string, last: () => [string, number][] | undefined) {
  new Gauge({
    name, help, labelNames: [label], registers: [registry],
    collect() {
      this.reset()
      for (const [value, n] of last() ?? []) this.set({ [label]: value }, n)
    },
  })
}

async function outboxBacklog(database: Database, o: Outbox): Promise<{ count: number; age: number }> {
  const t = o.table
  const [row] = await database.db.select({
    count: sql<number>`count(*)::int`,
    age: sql<number>`coalesce(extract(epoch from now() - min(${t.occurredAt})), 0)::float8`,
  }).from(t).where(isNull(t.publishedAt))
  // The game clock may run ahead of the database's in tests; a lag is never negative.
  return { count: Number(row?.count ?? 0), age: Math.max(0, Number(row?.age ?? 0)) }
}
