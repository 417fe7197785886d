import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { Registry } from 'prom-client'
import { afterEach, beforeEach, expect, test } from 'vitest'
import { ManualClock } from '../platform/clock.js'
import type { BackgroundReads } from '../platform/http/metrics-sampler.js'
import type { Logger } from '../platform/log.js'
import { ScheduledBackups } from './scheduled-backups.js'

let root: string
beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'ql-scheduled-backups-'))
})
afterEach(() => rm(root, { recursive: true, force: true }))

/** A logger that keeps what was logged at error and info. */
function recordingLog() {
  const lines: { level: string; message: string }[] = []
  const at = (level: string) => (_fields: unknown, message: string) => lines.push({ level, message })
  return { lines, log: { info: at('info'), error: at('error'), warn: at('warn') } as unknown as Logger }
}

async function metricsText(backups: ScheduledBackups): Promise<string> {
  const registry = new Registry()
  backups.metrics(registry, {} as BackgroundReads)
  return registry.metrics()
}

test('each backup is written whole under its UTC name, owner-only; past KEEP the oldest go, other files and partials left by a crash are handled', async () => {
  const dir = path.join(root, 'backups')
  const clock = new ManualClock(new Date('2026-12-07T03:00:00.250Z'))
  let n = 0
  const { log } = recordingLog()
  const backups = new ScheduledBackups({ schedule: '0 3 * * *', dir, keep: 2, clock, log, take: async () => Buffer.from(`backup ${++n}`) })
  const first = await backups.runOnce()
  expect(first).toBe(path.join(dir, 'questline-20261207T030000Z.qlbackup'))
  expect(await readFile(first!, 'utf8')).toBe('backup 1')
  expect((await stat(first!)).mode & 0o777).toBe(0o600)
  expect((await stat(dir)).mode & 0o777).toBe(0o700)

  await writeFile(path.join(dir, 'before-upgrade.qlbackup'), 'mine')
  await writeFile(path.join(dir, '.questline-20261206T030000Z.qlbackup.partial'), 'half')
  for (const day of ['08', '09']) {
    clock.set(new Date(`2026-12-${day}T03:00:00Z`))
    await backups.runOnce()
  }
  expect((await readdir(dir)).sort()).toEqual(['before-upgrade.qlbackup', 'questline-20261208T030000Z.qlbackup', 'questline-20261209T030000Z.qlbackup'])
  expect(await readFile(path.join(dir, 'questline-20261209T030000Z.qlbackup'), 'utf8')).toBe('backup 3')
  const text = await metricsText(backups)
  expect(text).toContain('backups_total{result="ok"} 3')
  expect(text).toContain('backups_total{result="failed"} 0')
  expect(text).toContain(`backup_last_success_timestamp_seconds ${Date.parse('2026-12-09T03:00:00Z') / 1000}`)

  // A process started later on the same directory knows when the last one was made.
  const later = new ScheduledBackups({ schedule: '0 3 * * *', dir, keep: 2, clock, log, take: async () => Buffer.from('') })
  await later.start()
  await later.stop()
  expect(await metricsText(later)).toContain(`backup_last_success_timestamp_seconds ${Date.parse('2026-12-09T03:00:00Z') / 1000}`)
})

test('a backup that fails is logged at error and counted; no file or partial is left, nothing is rotated away, the next one succeeds', async () => {
  const dir = path.join(root, 'backups')
  const clock = new ManualClock(new Date('2026-12-07T03:00:00Z'))
  const { lines, log } = recordingLog()
  let failing = true
  const backups = new ScheduledBackups({
    schedule: '0 3 * * *', dir, keep: 1, clock, log,
    take: async () => {
      if (failing) throw new Error('the database is closing')
      return Buffer.from('whole')
    },
  })
  await writeFile(path.join(root, 'placeholder'), '')
  const older = ['questline-20261205T030000Z.qlbackup', 'questline-20261206T030000Z.qlbackup']
  await mkdir(dir)
  for (const name of older) await writeFile(path.join(dir, name), 'old')
  expect(await backups.runOnce()).toBeUndefined()
  expect((await readdir(dir)).sort()).toEqual(older)
  expect(lines.filter((l) => l.level === 'error').map((l) => l.message)).toEqual([expect.stringContaining('scheduled backup failed')])
  failing = false
  clock.advance(86_400_000)
  expect(await backups.runOnce()).toBe(path.join(dir, 'questline-20261208T030000Z.qlbackup'))
  expect(await readdir(dir)).toEqual(['questline-20261208T030000Z.qlbackup'])
  const text = await metricsText(backups)
  expect(text).toContain('backups_total{result="failed"} 1')
  expect(text).toContain('backups_total{result="ok"} 1')

  // A BACKUP_DIR that cannot be made (a file stands there) fails the same way.
  const blocked = new ScheduledBackups({ schedule: '0 3 * * *', dir: path.join(root, 'placeholder'), keep: 1, clock, log, take: async () => Buffer.from('x') })
  expect(await blocked.runOnce()).toBeUndefined()
  expect(await metricsText(blocked)).toContain('backups_total{result="failed"} 1')
  expect(await metricsText(blocked)).toContain('backup_last_success_timestamp_seconds 0')
})

test('a backup directory that cannot be made or written is refused before the start, naming it and the reason', async () => {
  const blocker = path.join(root, 'a-file')
  await writeFile(blocker, 'not a directory')
  const dir = path.join(blocker, 'backups')
  const backups = new ScheduledBackups({ schedule: '0 3 * * *', dir, keep: 2, log: undefined, take: async () => Buffer.from('x') })
  await expect(backups.checkWritable()).rejects.toThrow(`BACKUP_DIR ${dir} cannot be written (ENOTDIR)`)
  const fine = new ScheduledBackups({ schedule: '0 3 * * *', dir: path.join(root, 'fine'), keep: 2, log: undefined, take: async () => Buffer.from('x') })
  await fine.checkWritable()
  expect((await stat(path.join(root, 'fine'))).isDirectory()).toBe(true)
})
