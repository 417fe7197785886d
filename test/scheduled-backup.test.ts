/**
 * Backups without a person, and the restore drill: the embedded server backs itself up on
 * BACKUP_SCHEDULE while it serves, keeps BACKUP_KEEP of them in BACKUP_DIR, and the newest,
 * restored with `questline restore` into a fresh data directory, serves every player's data to a
 * new process. Also: `restore --force` leaves a backup kept in the data directory where it is.
 * Whole processes, as an operator runs them.
 */
import { randomUUID } from 'node:crypto'
import { copyFile, mkdtemp, readdir, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { expect, test } from 'vitest'
import { readBackup } from '../src/operator/backup-file.js'
import { backupFileName, isScheduledBackupName } from '../src/operator/backup-schedule.js'
import { backend } from './support/backends.js'
import { dataPlace, json, runCommand, startServer, stopServer } from './support/serve-process.js'

const onEmbedded = test.runIf(backend() === 'embedded')
const TIMEOUT_MS = 90_000
const KEEP = 2

interface Player { userId: string; token: string; habitId: string }

async function playerWithCheckIn(base: string, n: number): Promise<Player> {
  const registered = await json(`${base}/auth/register`, { method: 'POST', body: JSON.stringify({ name: `Drill ${n}`, email: `drill-${randomUUID()}@example.com`, password: 'restore drill password' }) })
  expect(registered.status).toBe(200)
  const { userId, token } = registered.body as { userId: string; token: string }
  const habit = await json(`${base}/api/v1/habits`, { method: 'POST', token, body: JSON.stringify({ avatarId: userId, title: `Habit ${n}`, recurrenceType: 'DAILY' }) })
  expect(habit.status, JSON.stringify(habit.body)).toBe(200)
  const { id: habitId, timeZone } = habit.body as { id: string; timeZone: string }
  const localNow = new Date().toLocaleString('sv-SE', { timeZone }).replace(' ', 'T')
  expect((await json(`${base}/api/v1/habits/${habitId}/attend`, { method: 'POST', token, body: JSON.stringify({ date: localNow }) })).status).toBe(204)
  // The reward is paid by event after the check-in answered: the backup must hold it too.
  await expect.poll(async () => ((await json(`${base}/api/v1/avatars/${userId}`, { token })).body.money as { amount: number }).amount, { timeout: 15_000 }).toBeGreaterThan(100)
  return { userId, token, habitId }
}

/** What a player sees: their avatar (money, experience), their habits and the check-ins of theirs. */
async function seenBy(base: string, p: Player) {
  const get = async (route: string) => {
    const r = await json(`${base}${route}`, { token: p.token })
    expect(r.status, route).toBe(200)
    return r.body
  }
  return {
    avatar: await get(`/api/v1/avatars/${p.userId}`),
    habits: await get(`/api/v1/habits?avatarId=${p.userId}`),
    history: await get(`/api/v1/habits/${p.habitId}/history`),
  }
}

const backupsIn = async (dir: string) => (await readdir(dir).catch(() => [] as string[])).filter(isScheduledBackupName).sort()

/** A sample of /metrics, by series (`name{labels}` → value). */
async function metricsOf(base: string): Promise<Record<string, number>> {
  const text = await (await fetch(`${base}/metrics`)).text()
  return Object.fromEntries(text.split('\n').filter((l) => /^backup/.test(l)).map((l) => {
    const at = l.lastIndexOf(' ')
    return [l.slice(0, at), Number(l.slice(at + 1))]
  }))
}

onEmbedded('restore drill: scheduled backups while serving, rotated to BACKUP_KEEP; the newest restored into a fresh directory serves every player', async ({ onTestFinished }) => {
  const started = Date.now()
  const [source, fresh] = [await dataPlace('drill'), await dataPlace('drill-restored')]
  const backupDir = await mkdtemp(path.join(tmpdir(), 'questline-drill-backups-'))
  onTestFinished(async () => {
    await Promise.all([source.cleanup(), fresh.cleanup(), rm(backupDir, { recursive: true, force: true })])
  })
  const server = await startServer({ ...source.env, BACKUP_SCHEDULE: '*/2 * * * * *', BACKUP_DIR: backupDir, BACKUP_KEEP: String(KEEP), LOG_LEVEL: 'info' })
  onTestFinished(() => stopServer(server))
  const players: Player[] = []
  for (let n = 0; n < 3; n++) players.push(await playerWithCheckIn(server.url, n))
  const before = await Promise.all(players.map((p) => seenBy(server.url, p)))
  const written = new Date()

  // Requests go on while backups are taken: every one is answered.
  const answers: { status: number; ms: number }[] = []
  let reading = true
  const reader = (async () => {
    while (reading) {
      const at = performance.now()
      const r = await json(`${server.url}/api/v1/avatars/${players[0]!.userId}`, { token: players[0]!.token }).catch(() => ({ status: 0 }))
      answers.push({ status: r.status, ms: performance.now() - at })
    }
  })()
  // Taken after the last write (names are the UTC second a backup began), and more than KEEP made.
  const after = backupFileName(new Date(written.getTime() + 1_000))
  await expect.poll(async () => (await backupsIn(backupDir)).filter((name) => name >= after).length, { timeout: 30_000, interval: 200 }).toBeGreaterThanOrEqual(1)
  await expect.poll(async () => (await metricsOf(server.url))['backups_total{result="ok"}'], { timeout: 30_000, interval: 200 }).toBeGreaterThan(KEEP)
  reading = false
  await reader
  expect(answers.filter((a) => a.status !== 200)).toEqual([])
  expect(answers.length).toBeGreaterThan(10)

  const metrics = await metricsOf(server.url)
  expect(metrics['backups_total{result="failed"}']).toBe(0)
  expect(metrics.backup_last_success_timestamp_seconds).toBeGreaterThan(written.getTime() / 1000)
  const taken = server.output().split('\n').filter((l) => l.includes('scheduled backup written')).map((l) => JSON.parse(l) as { bytes: number; durationMs: number })
  expect(taken.length).toBeGreaterThan(KEEP)
  await stopServer(server)
  const kept = await backupsIn(backupDir)
  expect(kept).toHaveLength(KEEP)
  expect((await readdir(backupDir)).filter((name) => !isScheduledBackupName(name))).toEqual([])
  const newest = path.join(backupDir, kept.at(-1)!)
  expect(newest >= path.join(backupDir, after)).toBe(true)
  expect((await stat(newest)).mode & 0o777).toBe(0o600)

  const restored = await runCommand(fresh.env, ['restore', newest])
  expect(restored, restored.stderr).toMatchObject({ code: 0 })
  const second = await startServer(fresh.env)
  onTestFinished(() => stopServer(second))
  expect(await Promise.all(players.map((p) => seenBy(second.url, p)))).toEqual(before)
  const slowest = Math.max(...answers.map((a) => a.ms))
  console.log(`restore drill: ${answers.length} reads during ${taken.length} backups (${taken.map((b) => `${(b.bytes / 1e6).toFixed(1)} MB in ${b.durationMs} ms`).join(', ')}), slowest read ${slowest.toFixed(0)} ms; ${((Date.now() - started) / 1000).toFixed(1)} s in all`)
}, TIMEOUT_MS)

onEmbedded('restore --force replaces the data but leaves a backup kept in the data directory; one inside what it replaces is refused, nothing changed', async ({ onTestFinished }) => {
  const place = await dataPlace('restore-keeps')
  onTestFinished(() => place.cleanup())
  const server = await startServer(place.env)
  const player = await playerWithCheckIn(server.url, 0)
  const seen = await seenBy(server.url, player)
  const inside = path.join(place.dataDir, 'before-upgrade.qlbackup')
  const made = await runCommand(place.env, ['backup', inside])
  expect(made, made.stderr).toMatchObject({ code: 0 })
  expect(made.stdout).toContain('it lies inside the data directory: keep a copy elsewhere too')
  // A change after the backup, which the restore undoes.
  expect((await json(`${server.url}/api/v1/avatars/${player.userId}/money/earn`, { method: 'POST', token: player.token, body: JSON.stringify({ amount: 5 }) })).status).toBe(204)
  await stopServer(server)

  const bytes = (await stat(inside)).size
  const forced = await runCommand(place.env, ['restore', inside, '--force'])
  expect(forced, forced.stderr).toMatchObject({ code: 0 })
  expect(forced.stdout).toContain('left there as they were: before-upgrade.qlbackup')
  // Still the whole backup: a restore that went wrong could be tried again from it.
  expect((await stat(inside)).size).toBe(bytes)
  expect((await readBackup(inside)).database.length).toBeGreaterThan(0)

  const inPgdata = path.join(place.dataDir, 'pgdata', 'stray.qlbackup')
  await copyFile(inside, inPgdata)
  const insideReplaced = await runCommand(place.env, ['restore', inPgdata, '--force'])
  expect(insideReplaced.code).toBe(1)
  expect(insideReplaced.stderr).toContain('which the restore replaces: move it out first')
  expect((await stat(inPgdata)).size).toBe((await stat(inside)).size)

  const again = await startServer(place.env)
  onTestFinished(() => stopServer(again))
  expect(await seenBy(again.url, player)).toEqual(seen)
}, TIMEOUT_MS)
