/**
 * The pure parts of scheduled backups (`BACKUP_SCHEDULE`, `BACKUP_DIR`, `BACKUP_KEEP`): what a
 * schedule means, what a scheduled backup is called, and which ones rotation removes.
 *
 * Schedules are read in UTC, whatever the host's time zone: `0 3 * * *` is 03:00 UTC on every
 * machine (a container usually has no zone of its own), and the file names say UTC too.
 */
import path from 'node:path'
import { Cron } from 'croner'
import { systemClock } from '../platform/clock.js'

/** Croner's options for a backup schedule: minutes (5 fields) or seconds (6 fields), UTC, no overlapping runs. */
export const CRON_OPTIONS = { mode: '5-or-6-parts', timezone: 'UTC' } as const

const NICKNAMES = ['@yearly', '@annually', '@monthly', '@weekly', '@daily', '@hourly']

/**
 * Why `pattern` is no backup schedule, or undefined when it is one: five fields (minute hour
 * day-of-month month day-of-week), six (a second first), or a nickname such as `@daily`.
 * `now` is when it is read: a schedule with no time after it (`0 0 30 2 *`) is refused.
 */
export function scheduleProblem(pattern: string, now: Date = systemClock.now()): string | undefined {
  const fields = pattern.trim().split(/\s+/)
  const nickname = fields.length === 1 && NICKNAMES.includes(fields[0]!.toLowerCase())
  if (!nickname && fields.length !== 5 && fields.length !== 6) {
    return 'it needs 5 fields (minute hour day-of-month month day-of-week, e.g. "0 3 * * *"), 6 with a second first, or @hourly, @daily, @weekly, @monthly, @yearly'
  }
  let next: Date | null
  try {
    next = new Cron(pattern.trim(), { ...CRON_OPTIONS, paused: true }).nextRun(now)
  } catch (e) {
    return (e as Error).message.replace(/^CronPattern: /, '')
  }
  return next ? undefined : 'it names no time that comes (no such date)'
}

/** When the schedule next fires after `from` (UTC); undefined when never. */
export function nextBackupAt(pattern: string, from: Date): Date | undefined {
  return new Cron(pattern, { ...CRON_OPTIONS, paused: true }).nextRun(from) ?? undefined
}

const PREFIX = 'questline-'
const SUFFIX = '.qlbackup'
const NAME = /^questline-\d{8}T\d{6}Z\.qlbackup$/

/** A scheduled backup's file name: its UTC time to the second, so names sort as times do (`questline-20261207T030000Z.qlbackup`). */
export function backupFileName(at: Date): string {
  const stamp = at.toISOString().replace(/\.\d{3}Z$/, 'Z').replace(/[-:]/g, '')
  return `${PREFIX}${stamp}${SUFFIX}`
}

/** The name a backup is written under until it is whole; a rename then gives it its name. Rotation never counts it. */
export const partialNameOf = (name: string): string => `.${name}.partial`

export const isScheduledBackupName = (name: string): boolean => NAME.test(name)

/** When a scheduled backup was begun, read from its name; undefined for any other name. */
export function backupTimeOf(name: string): Date | undefined {
  const m = /^questline-(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z\.qlbackup$/.exec(name)
  if (!m) return undefined
  const at = new Date(`${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}Z`)
  return Number.isNaN(at.getTime()) ? undefined : at
}

/** A partial file a backup left behind (the process died while writing it). */
export const isLeftPartialName = (name: string): boolean => name.startsWith('.') && name.endsWith('.partial') && NAME.test(name.slice(1, -'.partial'.length))

/**
 * Which files of the backup directory rotation removes: the scheduled backups (by their names;
 * every other file is left alone) past the newest `keep`.
 */
export function backupsToRemove(names: readonly string[], keep: number): string[] {
  return names.filter(isScheduledBackupName).sort().reverse().slice(keep)
}

/** Whether `inner` is `outer` or lies inside it (both absolute). */
export function isWithin(outer: string, inner: string): boolean {
  const relative = path.relative(outer, inner)
  return relative === '' || (relative !== '..' && !relative.startsWith(`..${path.sep}`) && !path.isAbsolute(relative))
}

/**
 * Where scheduled backups go when BACKUP_DIR is unset: a folder beside the data directory, named
 * after it (`./data` → `./data-backups`, `/data` → `/data-backups`). Never inside it: a restore
 * replaces the data directory's contents, and whatever removes the directory or its volume would
 * take the backups along.
 */
export const defaultBackupDir = (dataDir: string): string => `${path.resolve(dataDir)}-backups`
