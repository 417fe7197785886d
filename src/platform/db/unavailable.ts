/**
 * Whether an error means the database could not be reached or would take no more work for now
 * (refused or dropped connections, too many clients, a server shutting down or starting), as
 * opposed to a statement that failed. Such a request is answered 503, to be retried, not 500: the
 * client sent nothing wrong, and nothing of it was applied. Drizzle wraps the driver's error, so
 * the whole `cause` chain is read.
 */

/** SQLSTATE classes and codes of an unavailable server (PostgreSQL appendix A). */
const UNAVAILABLE_SQLSTATE = /^(08...|53300|57P01|57P02|57P03)$/
/** Socket errors under the driver. */
const UNAVAILABLE_SOCKET = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND'])
/** What node-postgres says when a connection ends or never comes (it sets no code). */
const UNAVAILABLE_MESSAGE = /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error)/

const MAX_DEPTH = 5

export function isDatabaseUnavailable(error: unknown): boolean {
  let e = error
  for (let depth = 0; depth < MAX_DEPTH && e instanceof Error; depth++) {
    const code = (e as { code?: unknown }).code
    if (typeof code === 'string' && (UNAVAILABLE_SQLSTATE.test(code) || UNAVAILABLE_SOCKET.has(code))) return true
    if (UNAVAILABLE_MESSAGE.test(e.message)) return true
    e = e.cause
  }
  return false
}
