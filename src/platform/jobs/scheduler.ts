import type { Logger } from '../log.js'

/**
 * Periodic work. A job must be safe to run in several replicas at once: it claims its rows
 * (FOR UPDATE SKIP LOCKED) or relies on unique keys, so each piece of work is done once.
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
  ) {}

  start(): void {
    this.stopped = false
    for (const job of this.jobs) this.schedule(job)
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
      await this.runGuarded(job).catch((e: unknown) => this.log?.error({ err: e, job: job.name }, 'job failed'))
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
