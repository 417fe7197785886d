import path from 'node:path'
import { expect, test } from 'vitest'
import { ConfigError, loadConfig } from '../config.js'
import {
  backupFileName, backupsToRemove, backupTimeOf, defaultBackupDir, isLeftPartialName, isScheduledBackupName, isWithin, nextBackupAt, partialNameOf, scheduleProblem,
} from './backup-schedule.js'

test('a scheduled backup is named by its UTC second, so names sort as times do; its partial file is hidden and never counted', () => {
  const name = backupFileName(new Date('2026-12-07T03:00:09.870Z'))
  expect(name).toBe('questline-20261207T030009Z.qlbackup')
  expect(isScheduledBackupName(name)).toBe(true)
  expect(isScheduledBackupName(partialNameOf(name))).toBe(false)
  expect(isLeftPartialName(partialNameOf(name))).toBe(true)
  expect(isLeftPartialName('.notes.partial')).toBe(false)
  expect(backupTimeOf(name)?.toISOString()).toBe('2026-12-07T03:00:09.000Z')
  expect(backupTimeOf('questline-20261399T030009Z.qlbackup')).toBeUndefined()
  expect(backupTimeOf(partialNameOf(name))).toBeUndefined()
  const times = ['2027-01-01T00:00:00Z', '2026-12-31T23:59:59Z', '2026-02-03T04:05:06Z'].map((t) => new Date(t))
  expect(times.map(backupFileName).sort()).toEqual([...times].sort((a, b) => a.getTime() - b.getTime()).map(backupFileName))
})

test('rotation removes the scheduled backups past the newest KEEP and no other file', () => {
  const names = ['questline-20261203T030000Z.qlbackup', 'questline-20261205T030000Z.qlbackup', 'questline-20261201T030000Z.qlbackup',
    'questline-20261204T030000Z.qlbackup', 'questline-20261202T030000Z.qlbackup', 'before-upgrade.qlbackup', 'questline-20261201T030000Z.qlbackup.sha256',
    '.questline-20261206T030000Z.qlbackup.partial']
  expect(backupsToRemove(names, 3)).toEqual(['questline-20261202T030000Z.qlbackup', 'questline-20261201T030000Z.qlbackup'])
  expect(backupsToRemove(names, 5)).toEqual([])
  expect(backupsToRemove(names, 1)).toHaveLength(4)
  expect(backupsToRemove(names, 1)).not.toContain('questline-20261205T030000Z.qlbackup')
})

test.each([
  ['0 3 * * *', '2026-12-07T10:00:00Z', '2026-12-08T03:00:00.000Z'],
  ['*/2 * * * * *', '2026-12-07T10:00:00.500Z', '2026-12-07T10:00:02.000Z'],
  ['@daily', '2026-12-07T10:00:00Z', '2026-12-08T00:00:00.000Z'],
  ['30 1 * * sun', '2026-12-07T10:00:00Z', '2026-12-13T01:30:00.000Z'],
])('%s after %s fires at %s (UTC)', (pattern, from, next) => {
  expect(scheduleProblem(pattern)).toBeUndefined()
  expect(nextBackupAt(pattern, new Date(from))?.toISOString()).toBe(next)
})

test.each([
  ['0 3 * *', 'needs 5 fields'],
  ['0 0 3 * * * 2030', 'needs 5 fields'],
  ['2030-01-01T00:00:00', 'needs 5 fields'],
  ['61 * * * *', 'Invalid value for minute: 61'],
  ['0 3 * * * x', 'illegal characters'],
  ['0 0 30 2 *', 'no such date'],
])('%s is no backup schedule: %s', (pattern, why) => {
  expect(scheduleProblem(pattern)).toContain(why)
})

test('BACKUP_SCHEDULE, BACKUP_DIR and BACKUP_KEEP: read, defaulted beside the data directory, and refused with the reason', () => {
  const dataDir = path.resolve('/srv/questline/data')
  expect(loadConfig({ DATA_DIR: dataDir })).toMatchObject({ backupSchedule: undefined, backupDir: `${dataDir}-backups`, backupKeep: 7 })
  expect(loadConfig({ DATA_DIR: dataDir, BACKUP_SCHEDULE: ' 0 3 * * * ', BACKUP_DIR: '/mnt/backups', BACKUP_KEEP: '30' }))
    .toMatchObject({ backupSchedule: '0 3 * * *', backupDir: path.resolve('/mnt/backups'), backupKeep: 30 })
  expect(() => loadConfig({ BACKUP_SCHEDULE: 'daily' })).toThrow(ConfigError)
  expect(() => loadConfig({ BACKUP_SCHEDULE: '0 25 * * *' })).toThrow(`BACKUP_SCHEDULE must be a cron schedule such as "0 3 * * *" (03:00 UTC daily), got '0 25 * * *': Invalid value for hour: 25.`)
  expect(() => loadConfig({ BACKUP_KEEP: '0' })).toThrow("BACKUP_KEEP must be an integer from 1 to 10000, got '0'.")
  expect(() => loadConfig({ BACKUP_KEEP: 'seven' })).toThrow(ConfigError)
  expect(() => loadConfig({ DATA_DIR: dataDir, BACKUP_DIR: `${dataDir}/backups` })).toThrow('must lie outside DATA_DIR')
  expect(() => loadConfig({ DATA_DIR: dataDir, BACKUP_DIR: dataDir })).toThrow('must lie outside DATA_DIR')
  expect(loadConfig({ DATA_DIR: dataDir, BACKUP_DIR: `${dataDir}..old` }).backupDir).toBe(`${dataDir}..old`)
  expect(() => loadConfig({ BACKUP_SCHEDULE: '0 3 * * *', DATABASE_URL: 'postgres://db/questline' })).toThrow('schedule pg_dump instead')
})

test('isWithin: the directory itself and what lies under it, not a sibling whose name starts the same', () => {
  expect(isWithin('/data', '/data')).toBe(true)
  expect(isWithin('/data', '/data/pgdata/base')).toBe(true)
  expect(isWithin('/data', '/data-backups/x.qlbackup')).toBe(false)
  expect(isWithin('/data', '/data/../elsewhere')).toBe(false)
  expect(defaultBackupDir('/data/')).toBe('/data-backups')
})
