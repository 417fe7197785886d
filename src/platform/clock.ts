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
    this.current = new Date(this.current.getTime() + ms)
  }
}
