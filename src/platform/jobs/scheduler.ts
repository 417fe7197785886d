import type { Logger } from '../log.js'

/**
 * Periodic work. Each process times each job itself: its timer fires `everyMs` after the previous
 * firing's claim and run are over, so one process never has two timed runs of a job going. A
 * firing first claims the job's current period (JobSlots: `everyMs` slices of the database's
 * clock, shared by replicas) and runs only if it got it: at most one replica runs a period, and a
 * period in which no replica's timer fires gets no run. Nothing more is excluded: a run that
 * outlasts its period on one replica may overlap the next period's run on another, and a manual
 * run (`runNow`) claims no period and may overlap a timed one. So a job must be safe to run twice
 * at once: it claims its rows (FOR UPDATE SKIP LOCKED) or relies on unique keys.
 */
export interface Job {
  name: string
  everyMs: number
  /**
   * Which processes share its periods, when not all that have it: a platform job works on the
   * tables of the contexts a process serves, so only replicas serving the same ones stand in for
   * each other (JobSlots claims `name@scope`).
   */
  scope?: string
  /**
   * Runs on every replica at each firing, claiming no period: for work that replicas share out by
   * leasing rows (the webhook sender), where one replica per period would be a bottleneck.
   */
  everyReplica?: boolean
  /** Whether a timed run should happen now (a manual run always does); due every time when absent. */
  due?(): boolean
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

  /**
   * Runs one job now, once the run of it this process has going (if any) has ended, and waits for
   * it; no period is claimed (tests drive time with a manual clock and call this).
   */
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
        if (job.due?.() !== false && (job.everyReplica || (await this.claim(job)))) await this.runGuarded(job)
      } catch (e) {
        this.log?.error({ err: e, job: job.name }, 'job failed')
      }
      this.schedule(job)
    }, job.everyMs)
    timer.unref()
    this.timers.set(job.name, timer)
  }

  /**
   * Runs the job and keeps its run while it goes, for `runNow` and `close` to wait on. It starts
   * the run whatever else is going: a timed run does not wait for a manual one.
   */
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
