import type { Logger } from '../log.js'

/**
 * Periodic work. With several replicas, each period's run is claimed by one of them (see
 * JobSlots); a job must still be safe to run twice at once (a run outlasting its period, a
 * manual run): it claims its rows (FOR UPDATE SKIP LOCKED) or relies on unique keys.
 */
export interface Job {
  name: string
  everyMs: number
  run(): Promise<void>
}

export class Scheduler {
  private readonly timers = new Map<string, NodeJS.Timeout>()
  private readonly running = new Map<string, Promise<void>>()
  private stopped = true

  constructor(
    private readonly jobs: Job[],
    private readonly log: Logger | undefined,
    /** Decides whether this replica runs a timed run; every run is this replica's by default. */
    private readonly claim: (job: Job) => Promise<boolean> = async () => true,
  ) {}

  start(): void {
    this.stopped = false
    for (const job of this.jobs) this.schedule(job)
  }

  has(name: string): boolean {
    return this.jobs.some((j) => j.name === name)
  }

  /** Runs one job now and waits for it (tests drive time with a manual clock and call this). */
  async runNow(name: string): Promise<void> {
    const job = this.jobs.find((j) => j.name === name)
    if (!job) throw new Error(`No job named ${name}; jobs: ${this.jobs.map((j) => j.name).join(', ')}`)
    await this.running.get(name)
    await this.runGuarded(job)
  }

  async close(): Promise<void> {
    this.stopped = true
    for (const t of this.timers.values()) clearTimeout(t)
    await Promise.all(this.running.values())
  }

  private schedule(job: Job): void {
    if (this.stopped) return
    const timer = setTimeout(async () => {
      try {
        if (await this.claim(job)) await this.runGuarded(job)
      } catch (e) {
        this.log?.error({ err: e, job: job.name }, 'job failed')
      }
      this.schedule(job)
    }, job.everyMs)
    timer.unref()
    this.timers.set(job.name, timer)
  }

  /** One run of a job at a time in this process. */
  private async runGuarded(job: Job): Promise<void> {
    const run = job.run()
    this.running.set(job.name, run.catch(() => {}))
    try {
      await run
    } finally {
      this.running.delete(job.name)
    }
  }
}
