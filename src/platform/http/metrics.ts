import type { FastifyInstance } from 'fastify'
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client'
import type { BatchStats } from '../writer/batcher.js'
import { attemptsMadeAgain } from '../writer/retry.js'
import type { BackgroundReads } from './metrics-sampler.js'

/**
 * Adds a context's own metrics (saga states, …) to the process's registry. A value that takes a
 * query (the database, the bus) is read in the background through `reads`; its gauge's `collect`
 * answers the last reading, so a scrape does no I/O.
 */
export type MetricsSource = (registry: Registry, reads: BackgroundReads) => void

/** Prometheus metrics of one process: per-route request counts and latency histograms. */
export class Metrics {
  readonly registry = new Registry()
  private readonly requests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests by route, method and status',
    labelNames: ['method', 'route', 'status'],
    registers: [this.registry],
  })
  private readonly latency = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request latency by route and method',
    labelNames: ['method', 'route'],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [this.registry],
  })

  constructor(withProcessMetrics: boolean, sources: MetricsSource[], reads: BackgroundReads) {
    if (withProcessMetrics) collectDefaultMetrics({ register: this.registry })
    new Gauge({
      name: 'write_attempts_made_again', registers: [this.registry],
      help: 'Write attempts made again on fresh state (another process changed the aggregate first, or remembered state was stale)',
      collect() { this.set(attemptsMadeAgain()) },
    })
    for (const add of sources) add(this.registry, reads)
  }

  /** Counts and times the requests `app` answers. */
  countRequests(app: FastifyInstance): void {
    app.addHook('onResponse', async (req, reply) => {
      // The route pattern, not the raw URL, keeps label cardinality bounded.
      const route = req.routeOptions.url ?? 'unmatched'
      this.requests.inc({ method: req.method, route, status: String(reply.statusCode) })
      this.latency.observe({ method: req.method, route }, reply.elapsedTime / 1000)
    })
  }

  /** Serves the registry at `/metrics` of `app`. */
  serve(app: FastifyInstance): void {
    app.get('/metrics', { schema: { hide: true } }, async (_req, reply) => {
      reply.type(this.registry.contentType)
      return this.registry.metrics()
    })
  }
}

/** How a batcher has coalesced its commands: batches applied and commands in them, since start. */
export function batchMetrics(prefix: string, what: string, stats: () => BatchStats): MetricsSource {
  return (registry) => {
    new Gauge({
      name: `${prefix}_batches`, help: `Batches of ${what} applied by this process`, registers: [registry],
      collect() { this.set(stats().batches) },
    })
    new Gauge({
      name: `${prefix}_batched`, help: `${what} applied in those batches`, registers: [registry],
      collect() { this.set(stats().commands) },
    })
  }
}
