/** The only place that reads the wall clock; tests pass a settable clock instead. */
export interface Clock {
  now(): Date
}

export const systemClock: Clock = { now: () => new Date() }

export class ManualClock implements Clock {
  constructor(private current: Date) {}
  now(): Date {
    return new Date(this.current)
  }
  set(to: Date): void {
    this.current = new Date(to)
  }
  advance(ms: number): void {
    this.set(new Date(this.current.getTime() + ms))
  }
}

/**
 * The system clock until a test control sets it (`serve --test-controls`, for black-box tests of separate
 * processes); from then on it stands where it was set.
 */
export class SettableClock implements Clock {
  private frozen: Date | undefined
  now(): Date {
    return this.frozen ? new Date(this.frozen) : new Date()
  }
  set(to: Date | undefined): void {
    this.frozen = to && new Date(to)
  }
}
