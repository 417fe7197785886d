import { mkdir, open, readFile, rm } from 'node:fs/promises'
import path from 'node:path'

export class DataDirInUse extends Error {}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/**
 * PGlite has a single connection and no guard against a second process opening the same
 * files, which would corrupt them. One lock file per data dir, holding the owner's pid.
 */
export class DataDirLock {
  private constructor(private readonly file: string) {}

  static async acquire(dataDir: string): Promise<DataDirLock> {
    await mkdir(dataDir, { recursive: true })
    const file = path.join(dataDir, 'questline.lock')
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        const handle = await open(file, 'wx')
        await handle.writeFile(String(process.pid))
        await handle.close()
        return new DataDirLock(file)
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e
        const owner = Number((await readFile(file, 'utf8').catch(() => '')).trim())
        if (Number.isInteger(owner) && owner > 0 && isAlive(owner)) {
          throw new DataDirInUse(
            `The data directory ${dataDir} is in use by another Questline process (pid ${owner}). ` +
              `Stop it, or start this one with another DATA_DIR.`,
          )
        }
        // The owner is gone (crash): its lock is stale.
        await rm(file, { force: true })
      }
    }
    throw new DataDirInUse(`Could not lock the data directory ${dataDir}.`)
  }

  release(): Promise<void> {
    return rm(this.file, { force: true })
  }
}
