/**
 * Failed logins per key (an email, a client address) in a sliding window. Pure: the caller
 * passes the failure times it keeps (shared by every edge process) and the time now.
 */
export interface FailureLimit {
  /** This many failures within the window block the key. */
  maxFailures: number
  windowMs: number
}

/** Milliseconds until a key with failures at these times (ms) may try again, or 0 when it may try now. */
export function retryAfterMs(failureTimes: readonly number[], limit: FailureLimit, nowMs: number): number {
  const recent = failureTimes.filter((t) => t > nowMs - limit.windowMs).sort((a, b) => a - b)
  if (recent.length < limit.maxFailures) return 0
  // Below the limit again once all but maxFailures - 1 of them have left the window.
  const mustLeave = recent[recent.length - limit.maxFailures]!
  return mustLeave + limit.windowMs - nowMs
}
