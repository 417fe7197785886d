/**
 * A process told to stop (SIGTERM) drains rather than drops: /readyz answers 503 at once, so a
 * balancer sends no more; the server stops accepting connections, and every answer from then on
 * says `connection: close`, so a client's kept-alive connection goes elsewhere for its next request
 * (fastify, once closing, keeps serving them: `return503OnClosing: false`); server-sent-event streams
 * end with a reconnect hint (their preClose hooks); the requests under way finish, then the
 * platform's parts close in turn (onClose: jobs, the outbox relay, the bus with its handlers under
 * way, the database). All of it within a deadline, after which the connections left are cut.
 */
import type { FastifyInstance } from 'fastify'

const draining = new WeakSet<FastifyInstance>()
/** How often connections gone idle meanwhile are closed. */
const IDLE_CLOSE_EVERY_MS = 100

/** The server is draining: not ready for new work. */
export const isDraining = (app: FastifyInstance): boolean => draining.has(app)

/** Drains the server and closes it; answers false when `timeoutMs` ran out first (the connections left are cut then). */
export async function drain(app: FastifyInstance, timeoutMs: number): Promise<boolean> {
  draining.add(app)
  let timer: NodeJS.Timeout | undefined
  const deadline = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs)
  })
  // The server closes the connections idle when it stops listening; one whose last answer went out
  // without `connection: close` (a stream begun before the drain) idles later, and would hold the
  // close until its keep-alive timeout.
  const idle = setInterval(() => app.server.closeIdleConnections(), IDLE_CLOSE_EVERY_MS)
  const drained = await Promise.race([app.close().then(() => true as const), deadline])
  clearTimeout(timer)
  clearInterval(idle)
  if (!drained) app.server.closeAllConnections()
  return drained
}
