/**
 * Builds the player web app (web/ → web/dist) with Vite. `npm run build:web` always builds;
 * `--if-stale` builds only when web/dist is missing or older than a source file. `npm install`
 * builds it (scripts/build.ts), and `npm start` again when web/ changed since.
 */
import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { isStale, WEB } from './outputs.js'

export const WEB_ROOT = fileURLToPath(new URL('../web', import.meta.url))

/** Builds (into web/dist, or `outDir`) when asked to, or when stale; answers whether it built. */
export async function buildWebApp(opts: { ifStale?: boolean; quiet?: boolean; outDir?: string } = {}): Promise<boolean> {
  if (opts.ifStale && !isStale(WEB)) return false
  const { build } = await import('vite')
  // Vite and the React plugin choose production output by NODE_ENV; vitest sets it to 'test'.
  const nodeEnv = process.env.NODE_ENV
  process.env.NODE_ENV = 'production'
  try {
    await build({
      configFile: path.join(WEB_ROOT, 'vite.config.ts'), mode: 'production', logLevel: opts.quiet ? 'warn' : 'info',
      ...(opts.outDir ? { build: { outDir: opts.outDir } } : {}),
    })
  } finally {
    if (nodeEnv === undefined) delete process.env.NODE_ENV
    else process.env.NODE_ENV = nodeEnv
  }
  return true
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const ifStale = process.argv.includes('--if-stale')
  buildWebApp({ ifStale }).then((built) => {
    if (!built) console.log('web app is up to date (web/dist)')
  }, (e: unknown) => {
    console.error(e)
    process.exit(1)
  })
}
