/**
 * The two builds and their sources, and whether one is stale: its output missing or older than
 * a source. Plain JavaScript, so `bin/questline.js` asks it on every start without compiling
 * anything; modification times only, a few milliseconds.
 */
import { readdirSync, statSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

export const ROOT = fileURLToPath(new URL('..', import.meta.url))
const at = (...parts) => path.join(ROOT, ...parts)

/** The platform bundled (scripts/build.ts): dist/questline.js and its chunks. */
export const SERVER = {
  dir: at('dist'),
  entry: at('dist', 'questline.js'),
  sources: [at('src'), at('package.json'), at('package-lock.json'), at('tsconfig.json'), at('scripts', 'build.ts'), at('scripts', 'outputs.js')],
}

/** The player web app (scripts/build-web.ts): web/dist. It bundles the platform's time module and the client package too. */
export const WEB = {
  dir: at('web', 'dist'),
  entry: at('web', 'dist', 'index.html'),
  sources: [at('web'), at('src', 'platform', 'time'), at('packages', 'client')],
}

const SKIPPED = new Set(['dist', 'node_modules'])

/**
 * The newest modification time (ms) of these files and directories and of everything under the
 * directories (but `dist` and `node_modules`); 0 when none exists. Directories count: adding,
 * removing or renaming a file changes its directory's time.
 */
export function newestModification(paths) {
  let newest = 0
  for (const p of paths) {
    let stat
    try {
      stat = statSync(p)
    } catch {
      continue
    }
    newest = Math.max(newest, stat.mtimeMs)
    if (!stat.isDirectory()) continue
    const entries = readdirSync(p).filter((name) => !SKIPPED.has(name))
    newest = Math.max(newest, newestModification(entries.map((name) => path.join(p, name))))
  }
  return newest
}

/** Whether the build's output is missing or older than one of its sources. */
export function isStale(output) {
  let built
  try {
    built = statSync(output.entry).mtimeMs
  } catch {
    return true
  }
  return built < newestModification(output.sources)
}
