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
  /** Set by the holder when told to stop: it is draining and lets go of the lock soon. */
  stopping?: boolean
}

/** How often a start waiting for a stopping holder looks at the lock again. */
const STOPPING_POLL_MS = 50

export interface AcquireOptions {
  /**
   * How long to wait for a holder that is stopping (draining after SIGTERM) to let go; 0 refuses
   * at once. A holder that is not stopping is always refused at once.
   */
  waitForStoppingMs?: number
  /** Told once, when the wait for a stopping holder begins. */
  onWaiting?: (pid: number, waitMs: number) => void
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
  private marking: Promise<void> | undefined

  private constructor(
    private readonly file: string,
    private readonly holder: Holder,
  ) {}

  /**
   * Locks `dataDir` for this process. A live holder is refused at once, unless it is stopping
   * (`markStopping`): a restart begun while the previous process drains waits for it to finish,
   * up to `waitForStoppingMs`, rather than failing.
   */
  static async acquire(dataDir: string, opts: AcquireOptions = {}): Promise<DataDirLock> {
    await mkdir(dataDir, { recursive: true })
    const file = path.resolve(dataDir, 'questline.lock')
    const holder = thisProcess()
    const waitUntil = performance.now() + (opts.waitForStoppingMs ?? 0)
    let waitingFor: number | undefined
    for (let staleRemoved = 0; staleRemoved < 3;) {
      if (await createWhole(file, JSON.stringify(holder))) {
        held.add(file)
        return new DataDirLock(file, holder)
      }
      const text = await readFile(file, 'utf8').catch(() => '')
      const owner = parseHolder(text)
      if (!owner || !holds(owner, file)) {
        await removeStale(file, text)
        staleRemoved++
        continue
      }
      if (!owner.stopping) {
        throw new DataDirInUse(
          `The data directory ${dataDir} is in use by another Questline process (pid ${owner.pid}). ` +
            `Stop it, or start this one with another DATA_DIR.`,
        )
      }
      if (performance.now() >= waitUntil) {
        throw new DataDirInUse(
          `The data directory ${dataDir} is still held by a Questline process that is stopping (pid ${owner.pid})` +
            `${waitingFor === undefined ? '' : `, after waiting ${opts.waitForStoppingMs} ms`}. Wait for it to exit, or stop it.`,
        )
      }
      if (waitingFor !== owner.pid) {
        waitingFor = owner.pid
        opts.onWaiting?.(owner.pid, Math.round(waitUntil - performance.now()))
      }
      await new Promise((resolve) => setTimeout(resolve, STOPPING_POLL_MS))
    }
    throw new DataDirInUse(`Could not lock the data directory ${dataDir}.`)
  }

  /**
   * Records in the lock that this process is stopping, so that a start meanwhile waits for it
   * rather than refusing the data directory. Rewritten whole (written aside, renamed over it).
   */
  markStopping(): Promise<void> {
    this.marking ??= (async () => {
      if (!held.has(this.file)) return
      const aside = `${this.file}.${randomUUID()}`
      await writeFile(aside, JSON.stringify({ ...this.holder, stopping: true }), { mode: 0o600 })
      await rename(aside, this.file)
    })()
    return this.marking
  }

  async release(): Promise<void> {
    // A mark still being written would put the lock back after it is removed.
    await this.marking?.catch(() => undefined)
    held.delete(this.file)
    await rm(this.file, { force: true })
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
