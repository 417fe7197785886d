import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { onInterrupt } from './processes.js'

/** A fresh temporary directory for `run`, removed afterwards — also when the bench is interrupted. */
export async function withTempDir<T>(prefix: string, run: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(path.join(tmpdir(), prefix))
  const remove = () => rm(dir, { recursive: true, force: true })
  const unregister = onInterrupt(remove)
  try {
    return await run(dir)
  } finally {
    await remove()
    unregister()
  }
}
