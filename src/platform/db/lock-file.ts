import { randomUUID } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { link, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises'
import path from 'node:path'

export class DataDirInUse extends Error {}

/**
 * Who holds a lock: a pid alone can be reused (a container restarted after a crash gets the same
 * pid 1; a busy machine hands a dead process's pid to another), so a lock also names the process's
 * start time and the machine's boot, which a reused pid does not share.
 */
interface Holder {
  pid: number
  /** The process's start time in clock ticks since boot (/proc/<pid>/stat); absent where unknown. */
  start?: string
  boot?: string
}

const readProc = (file: string): string | undefined => {
  try {
    return readFileSync(file, 'utf8')
  } catch {
    return undefined
  }
}

/** Field 22 of /proc/<pid>/stat; the fields are counted after the command name, which may hold spaces. */
function startTimeOf(pid: number): string | undefined {
  const stat = readProc(`/proc/${pid}/stat`)
  return stat?.slice(stat.lastIndexOf(')') + 2).split(' ')[19]
}

const bootId = (): string | undefined => readProc('/proc/sys/kernel/random/boot_id')?.trim()

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM'
  }
}

function thisProcess(): Holder {
  const start = startTimeOf(process.pid)
  const boot = bootId()
  return { pid: process.pid, ...(start ? { start } : {}), ...(boot ? { boot } : {}) }
}

/** An older lock holds only a pid; anything unreadable names nobody. */
function parseHolder(text: string): Holder | undefined {
  const trimmed = text.trim()
  if (/^\d+$/.test(trimmed)) return { pid: Number(trimmed) }
  try {
    const h = JSON.parse(trimmed) as Partial<Holder>
    return Number.isInteger(h.pid) && h.pid! > 0 ? (h as Holder) : undefined
  } catch {
    return undefined
  }
}

/** Lock files this process holds: its own pid in a lock it does not hold is a previous life's. */
const held = new Set<string>()

/** Is the process the lock names still running, and the same process that wrote it? */
function holds(h: Holder, file: string): boolean {
  if (h.pid === process.pid) return held.has(file)
  if (!isAlive(h.pid)) return false
  if (h.boot && h.boot !== bootId()) return false
  const start = h.start && startTimeOf(h.pid)
  return !start || start === h.start
}

/**
 * PGlite has a single connection and no guard against a second process opening the same
 * files, which would corrupt them. One lock file per data dir, naming its holder. It is created
 * whole (written aside, then linked into place), so nobody ever reads a half-written lock.
 */
export class DataDirLock {
  private constructor(private readonly file: string) {}

  static async acquire(dataDir: string): Promise<DataDirLock> {
    await mkdir(dataDir, { recursive: true })
    const file = path.resolve(dataDir, 'questline.lock')
    for (let attempt = 0; attempt < 3; attempt++) {
      if (await createWhole(file, JSON.stringify(thisProcess()))) {
        held.add(file)
        return new DataDirLock(file)
      }
      const text = await readFile(file, 'utf8').catch(() => '')
      const owner = parseHolder(text)
      if (owner && holds(owner, file)) {
        throw new DataDirInUse(
          `The data directory ${dataDir} is in use by another Questline process (pid ${owner.pid}). ` +
            `Stop it, or start this one with another DATA_DIR.`,
        )
      }
      await removeStale(file, text)
    }
    throw new DataDirInUse(`Could not lock the data directory ${dataDir}.`)
  }

  release(): Promise<void> {
    held.delete(this.file)
    return rm(this.file, { force: true })
  }
}

/** Creates `file` with `content` unless it exists: false when it does. */
async function createWhole(file: string, content: string): Promise<boolean> {
  const aside = `${file}.${randomUUID()}`
  await writeFile(aside, content, { mode: 0o600 })
  try {
    await link(aside, file)
    return true
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e
    return false
  } finally {
    await rm(aside, { force: true })
  }
}

/**
 * Removes the crashed holder's lock, unless another process replaced it meanwhile: the lock is
 * moved aside first and put back if it is not the one judged stale.
 */
async function removeStale(file: string, judged: string): Promise<void> {
  const aside = `${file}.stale-${randomUUID()}`
  try {
    await rename(file, aside)
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return
    throw e
  }
  if ((await readFile(aside, 'utf8').catch(() => judged)) !== judged) {
    await link(aside, file).catch(() => undefined)
  }
  await rm(aside, { force: true })
}
