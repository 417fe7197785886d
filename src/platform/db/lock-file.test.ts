import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, expect, test } from 'vitest'
import { DataDirInUse, DataDirLock } from './lock-file.js'

let dir: string
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'questline-lock-'))
})
afterEach(() => rm(dir, { recursive: true, force: true }))

const lockFile = () => path.join(dir, 'questline.lock')
const startTimeOf = async (pid: number) => {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8')
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]
}
const bootId = async () => (await readFile('/proc/sys/kernel/random/boot_id', 'utf8')).trim()

test('a data directory is held once: a second lock, even from the same process, is refused until released', async () => {
  const lock = await DataDirLock.acquire(dir)
  await expect(DataDirLock.acquire(dir)).rejects.toThrow(DataDirInUse)
  await lock.release()
  await (await DataDirLock.acquire(dir)).release()
})

test('a lock naming this very process, which does not hold it, is a previous life of the same pid: taken over', async () => {
  await writeFile(lockFile(), JSON.stringify({ pid: process.pid, start: await startTimeOf(process.pid), boot: await bootId() }))
  const lock = await DataDirLock.acquire(dir)
  expect(JSON.parse(await readFile(lockFile(), 'utf8')).pid).toBe(process.pid)
  await lock.release()
})

test('a live pid that started after the lock was written (pid reuse) does not hold it; the process that wrote it does', async () => {
  const other = process.ppid
  await writeFile(lockFile(), JSON.stringify({ pid: other, start: '1', boot: await bootId() }))
  await (await DataDirLock.acquire(dir)).release()

  await writeFile(lockFile(), JSON.stringify({ pid: other, start: await startTimeOf(other), boot: 'a boot before the last restart' }))
  await (await DataDirLock.acquire(dir)).release()

  await writeFile(lockFile(), JSON.stringify({ pid: other, start: await startTimeOf(other), boot: await bootId() }))
  await expect(DataDirLock.acquire(dir)).rejects.toThrow(/in use by another Questline process \(pid \d+\)/)
})

test('an older lock holding only a pid: a dead pid is stale, a live one still holds it, and an empty file names nobody', async () => {
  await writeFile(lockFile(), '2147483646')
  await (await DataDirLock.acquire(dir)).release()
  await writeFile(lockFile(), String(process.ppid))
  await expect(DataDirLock.acquire(dir)).rejects.toThrow(DataDirInUse)
  await writeFile(lockFile(), '')
  await (await DataDirLock.acquire(dir)).release()
})

test('a start while the holder is stopping waits for it, says so once, and takes the lock when it lets go', async () => {
  const previous = await DataDirLock.acquire(dir)
  await previous.markStopping()
  expect(JSON.parse(await readFile(lockFile(), 'utf8'))).toMatchObject({ pid: process.pid, stopping: true })
  const waitedFor: number[] = []
  const next = await DataDirLock.acquire(dir, {
    waitForStoppingMs: 30_000,
    onWaiting: (pid) => {
      waitedFor.push(pid)
      void previous.release()
    },
  })
  expect(waitedFor).toEqual([process.pid])
  expect(JSON.parse(await readFile(lockFile(), 'utf8')).stopping).toBeUndefined()
  await next.release()
})

test('a stopping holder that does not let go in time is refused, saying it is stopping', async () => {
  const other = process.ppid
  await writeFile(lockFile(), JSON.stringify({ pid: other, start: await startTimeOf(other), boot: await bootId(), stopping: true }))
  await expect(DataDirLock.acquire(dir, { waitForStoppingMs: 200 })).rejects.toThrow(/still held by a Questline process that is stopping \(pid \d+\), after waiting 200 ms/)
  await expect(DataDirLock.acquire(dir)).rejects.toThrow(DataDirInUse)
})

test('a live holder that is not stopping is refused at once, however long a start would wait for a stopping one', async () => {
  const other = process.ppid
  await writeFile(lockFile(), JSON.stringify({ pid: other, start: await startTimeOf(other), boot: await bootId() }))
  const began = performance.now()
  let waited = false
  await expect(DataDirLock.acquire(dir, { waitForStoppingMs: 60_000, onWaiting: () => (waited = true) })).rejects.toThrow(/in use by another Questline process/)
  expect(waited).toBe(false)
  expect(performance.now() - began).toBeLessThan(1_000)
})

test('a stopping lock whose holder died meanwhile is stale: taken over at once', async () => {
  await writeFile(lockFile(), JSON.stringify({ pid: 2147483646, stopping: true }))
  let waited = false
  await (await DataDirLock.acquire(dir, { waitForStoppingMs: 60_000, onWaiting: () => (waited = true) })).release()
  expect(waited).toBe(false)
})

test('a lock released while being marked stopping stays released', async () => {
  const lock = await DataDirLock.acquire(dir)
  const marked = lock.markStopping()
  await lock.release()
  await marked
  await (await DataDirLock.acquire(dir)).release()
})
