/**
 * Counts failed logins per key (an email, a client address) in a sliding window. Pure
 * bookkeeping: the caller passes the time, so tests drive it without waiting.
 */
export class FailureWindow {
  private readonly failures = new Map<string, number[]>()

  constructor(
    private readonly maxFailures: number,
    private readonly windowMs: number,
  ) {}

  /** Milliseconds until the key may try again, or 0 when it may try now. */
  blockedFor(key: string, nowMs: number): number {
    const recent = this.recent(key, nowMs)
    if (recent.length < this.maxFailures) return 0
    const oldest = recent[recent.length - this.maxFailures] ?? nowMs
    return oldest + this.windowMs - nowMs
  }

  record(key: string, nowMs: number): void {
    const recent = this.recent(key, nowMs)
    recent.push(nowMs)
    this.failures.set(key, recent)
    if (this.failures.size > 100_000) this.sweep(nowMs)
  }

  reset(key: string): void {
    this.failures.delete(key)
  }

  private recent(key: string, nowMs: number): number[] {
    return (this.failures.get(key) ?? []).filter((t) => t > nowMs - this.windowMs)
  }

  /** Keeps memory bounded under a flood of distinct keys. */
  private sweep(nowMs: number): void {
    for (const [key, times] of this.failures) {
      if (times.every((t) => t <= nowMs - this.windowMs)) this.failures.delete(key)
    }
  }
}
