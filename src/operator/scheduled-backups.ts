/**
 * The embedded server backing itself up on a schedule (`BACKUP_SCHEDULE`): the same file
 * `questline backup` writes, taken while it serves, written under a temporary name and renamed
 * once whole, then the oldest removed past `BACKUP_KEEP`. A failure is logged and counted in
 * /metrics; the server goes on serving and the next firing tries again.
 */
import { constants } from 'node:fs'
import { access, mkdir, open, readdir, rename, rm } from 'node:fs/promises'
import path from 'node:path'
import { Cron } from 'croner'
import { Counter, Gauge } from 'prom-client'
import { type Clock, systemClock } from '../platform/clock.js'
import type { MetricsSource } from '../platform/http/metrics.js'
import type { Logger } from '../platform/log.js'
import { backupFileName, backupsToRemove, backupTimeOf, CRON_OPTIONS, isLeftPartialName, partialNameOf } from './backup-schedule.js'

interface ScheduledBackupsOptions {
  /** A cron pattern, read in UTC (checked by the config). */
  schedule: string
  dir: string
  keep: number
  /** The whole backup's bytes, taken while the server serves. */
  take(): Promise<Buffer>
  log: Logger | undefined
  /** The wall clock, as the schedule's (a test control's clock moves the game's time, not backups'). */
  clock?: Clock
}

export class ScheduledBackups {
  private readonly made = new Counter({
    name: 'backups_total', help: 'Scheduled backups of the embedded database since the process started, by result (ok, failed)',
    labelNames: ['result'], registers: [],
  })

  private readonly lastSuccess = new Gauge({
    name: 'backup_last_success_timestamp_seconds', help: 'When the last scheduled backup that succeeded was taken (Unix time; 0 before the first)', registers: [],
  })

  readonly metrics: MetricsSource = (registry) => {
    registry.registerMetric(this.made)
    registry.registerMetric(this.lastSuccess)
  }

  private job: Cron | undefined
  private running: Promise<string | undefined> | undefined

  constructor(private readonly o: ScheduledBackupsOptions) {
    for (const result of ['ok', 'failed']) this.made.inc({ result }, 0)
  }

  /**
   * Fires at each time of the schedule; a firing while a backup is still being made is skipped.
   * The last success is read from the newest backup's name in the directory, so a restart does not
   * look like a backup missed.
   */
  async start(): Promise<void> {
    const newest = (await readdir(this.o.dir).catch(() => [] as string[])).map(backupTimeOf).filter((at) => at !== undefined)
      .reduce<Date | undefined>((a, b) => (a && a > b ? a : b), undefined)
    if (newest) this.lastSuccess.set(newest.getTime() / 1000)
    this.job = new Cron(this.o.schedule, { ...CRON_OPTIONS, protect: true }, async () => {
      await this.runOnce()
    })
    this.o.log?.info({ schedule: this.o.schedule, dir: this.o.dir, keep: this.o.keep, next: this.job.nextRun()?.toISOString() }, 'scheduled backups on (times in UTC)')
  }

  /**
   * A backup directory that cannot be written (a read-only root filesystem with nothing mounted
   * there, another owner) stops the start with the reason, rather than failing every firing later.
   */
  async checkWritable(): Promise<void> {
    try {
      await mkdir(this.o.dir, { recursive: true, mode: 0o700 })
      await access(this.o.dir, constants.W_OK)
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code ?? String(e)
      throw new Error(`BACKUP_SCHEDULE is set, but BACKUP_DIR ${this.o.dir} cannot be written (${code}): mount a writable volume there or set BACKUP_DIR (docs/operations.md#scheduled-backups)`)
    }
  }

  /** No further firing; waits for a backup under way to be written. */
  async stop(): Promise<void> {
    this.job?.stop()
    await this.running
  }

  /** Makes one backup now and rotates; answers its path, or undefined when it failed (logged and counted, never thrown). */
  runOnce(): Promise<string | undefined> {
    const run = this.make().finally(() => {
      if (this.running === run) this.running = undefined
    })
    this.running = run
    return run
  }

  private async make(): Promise<string | undefined> {
    const started = (this.o.clock ?? systemClock).now()
    const timer = performance.now()
    const file = path.join(this.o.dir, backupFileName(started))
    const partial = path.join(this.o.dir, partialNameOf(backupFileName(started)))
    try {
      await mkdir(this.o.dir, { recursive: true, mode: 0o700 })
      const bytes = await this.o.take()
      // Whole and on disk before it gets its name: a crash leaves a partial file, never a half backup.
      const handle = await open(partial, 'w', 0o600)
      try {
        await handle.writeFile(bytes)
        await handle.sync()
      } finally {
        await handle.close()
      }
      await rename(partial, file)
      this.made.inc({ result: 'ok' })
      this.lastSuccess.set(started.getTime() / 1000)
      this.o.log?.info({ file, bytes: bytes.length, durationMs: Math.round(performance.now() - timer) }, 'scheduled backup written')
    } catch (e) {
      this.made.inc({ result: 'failed' })
      this.o.log?.error({ err: e, dir: this.o.dir }, 'scheduled backup failed: the next firing tries again (backups_total{result="failed"})')
      await rm(partial, { force: true }).catch(() => {})
      return undefined
    }
    await this.rotate()
    return file
  }

  /** Removes scheduled backups past the newest `keep`, and partial files a crashed process left. */
  private async rotate(): Promise<void> {
    try {
      const names = await readdir(this.o.dir)
      const gone = [...backupsToRemove(names, this.o.keep), ...names.filter(isLeftPartialName)]
      for (const name of gone) await rm(path.join(this.o.dir, name), { force: true })
    } catch (e) {
      this.o.log?.error({ err: e, dir: this.o.dir }, 'old scheduled backups could not be removed')
    }
  }
}
