import Fastify, { type FastifyInstance } from 'fastify'
import type { Metrics } from './metrics.js'
import type { ProblemCatalog } from './problem-types.js'
import { clientErrorHandler, frameworkErrorHandler, registerProblemHandlers } from './problems.js'
import { RouteTable } from './route-table.js'

/** Where /metrics is served apart from the API (`METRICS_PORT`, `METRICS_HOST`). */
export interface MetricsListenerOptions {
  port: number
  host: string
}

/** The listener of /metrics alone, for each server that serves it apart. */
const listeners = new WeakMap<FastifyInstance, { server: FastifyInstance; at: MetricsListenerOptions }>()

/**
 * Serves `metrics` on a server of its own, listening once `listenForMetrics(app)` is called and
 * closed with `app`: the scrape port can stay inside the cluster while the API's is public.
 * Anything but `GET /metrics` there is answered with problem+json, as on the API's port.
 */
export function serveMetricsApart(app: FastifyInstance, metrics: Metrics, at: MetricsListenerOptions, problemTypes: ProblemCatalog): void {
  const server = Fastify({ logger: false, frameworkErrors: frameworkErrorHandler(problemTypes), clientErrorHandler })
  const routes = new RouteTable()
  routes.track(server)
  registerProblemHandlers(server, routes, problemTypes)
  metrics.serve(server)
  listeners.set(app, { server, at })
  app.addHook('onClose', () => server.close())
}

/** Starts the metrics listener of `app`, if it has one; answers where it listens. */
export async function listenForMetrics(app: FastifyInstance): Promise<string | undefined> {
  const apart = listeners.get(app)
  if (!apart) return undefined
  if (!apart.server.server.listening) await apart.server.listen({ port: apart.at.port, host: apart.at.host })
  return metricsUrl(app)
}

/** `http://host:port` of the metrics listener of `app`, once it listens. */
export function metricsUrl(app: FastifyInstance): string | undefined {
  const address = listeners.get(app)?.server.server.address()
  if (!address || typeof address === 'string') return undefined
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address
  return `http://${host}:${address.port}`
}
