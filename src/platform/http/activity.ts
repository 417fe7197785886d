import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { StreamingConfig } from './streaming.js'

/** A stream stays open for as long as its client watches: it is no work under way. */
const isStream = (req: FastifyRequest) => (req.routeOptions.config as StreamingConfig | undefined)?.streaming === true

/**
 * How long the server has had no request under way: the embedded engine's maintenance waits for
 * such a moment, since every statement waits while it runs.
 */
export class RequestActivity {
  private inFlight = 0
  private lastEndAt = Date.now()

  track(app: FastifyInstance): void {
    app.addHook('onRequest', async (req) => {
      if (!isStream(req)) this.inFlight++
    })
    // onResponse also runs for a request whose client went away (fastify ends it).
    app.addHook('onResponse', async (req) => {
      if (isStream(req)) return
      this.inFlight--
      this.lastEndAt = Date.now()
    })
  }

  /** Milliseconds since the last request ended with none under way; 0 while one is. */
  quietMs(now = Date.now()): number {
    return this.inFlight > 0 ? 0 : now - this.lastEndAt
  }
}
