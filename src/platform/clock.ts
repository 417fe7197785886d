/** The only place that reads the wall clock; tests pass a settable clock instead. */
export interface Clock {
  now(): Date
}

export const systemClock: Clock = { now: () => new Date() }

export class ManualClock implements Clock {
  private readonly listeners: ((now: Date) => void)[] = []

  constructor(private current: Date) {}
  now(): Date {
    return new Date(this.current)
  }
  set(to: Date): void {
    this.current = new Date(to)
    for (const l of this.listeners) l(this.now())
  }
  advance(ms: number): void {
    this.set(new Date(this.current.getTime() + ms))
  }
  /** Tells `listener` of every change (a test harness passes it on to other processes). */
  onChange(listener: (now: Date) => void): void {
    this.listeners.push(listener)
  }
}

/**
 * The system clock until a test control sets it (TEST_CONTROL, for black-box tests of separate
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
