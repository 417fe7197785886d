/**
 * When the gateway sends a request again to another replica after its first attempt failed. A
 * replica that refused the connection got nothing, so anything may go again. One that dropped the
 * connection before answering, or answered 503 (draining, not ready), may have begun the work: only
 * requests safe to repeat go again — reads, and writes with an Idempotency-Key (applied once).
 */

/** How a first attempt failed: `refused` (nothing sent), `reset` (dropped before an answer), `unavailable` (503), or otherwise. */
export type AttemptFailure = 'refused' | 'reset' | 'unavailable' | 'other'

export interface ForwardedRequest {
  method: string
  /** It carries an Idempotency-Key its route honours. */
  keyed: boolean
}

/** Whether a request safe to send twice: reads, and keyed writes. */
export const isRepeatable = (r: ForwardedRequest): boolean => r.method === 'GET' || r.method === 'HEAD' || r.keyed

export function maySendAgain(r: ForwardedRequest, failure: AttemptFailure): boolean {
  if (failure === 'refused') return true
  if (failure === 'other') return false
  return isRepeatable(r)
}

const REFUSED = new Set(['ECONNREFUSED'])
const RESET = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET'])

/** The failure an error (and the errors it was caused by) says. */
export function failureOf(error: unknown): AttemptFailure {
  for (let e = error, depth = 0; e !== null && typeof e === 'object' && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code
    if (typeof code !== 'string') continue
    if (REFUSED.has(code)) return 'refused'
    if (RESET.has(code)) return 'reset'
  }
  return 'other'
}
