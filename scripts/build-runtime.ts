/**
 * `npm run build:runtime -- DIR`: the tree the image runs, made in DIR (missing or empty):
 *   dist/         the platform bundled (scripts/build.ts)
 *   web/dist/     the player web app (scripts/build-web.ts), where the bundle looks for it (../web/dist)
 *   drizzle/      the migrations, found upward from dist/
 *   package.json  the checkout's, its scripts only those that run the tree; package-lock.json as is
 *   node_modules/ the production dependencies, copied from the checkout's node_modules
 * `NODE_ENV=production node dist/questline.js serve` run in DIR serves it all and never builds:
 * nothing in the tree can (no vite, esbuild or tsx, no sources, no bin/questline.js).
 * Copying (not `npm ci --omit=dev`) works offline and takes seconds, and the packages are
 * those the checkout was tested with.
 */
import { execFile } from 'node:child_process'
import { cp, lstat, mkdir, readdir, readFile, realpath, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { promisify } from 'node:util'
import { buildWebApp } from './build-web.js'
import { buildServer } from './build.js'
import { ROOT } from './outputs.js'

/** Build tools and test tools: none of them may reach the runtime tree. */
export const BUILD_ONLY_PACKAGES = ['vite', 'esbuild', 'tsx', 'typescript', 'vitest', 'drizzle-kit', 'eslint'] as const

/** What the tree's package.json may run: the tree itself, nothing that builds. */
const TREE_SCRIPTS = { start: 'node dist/questline.js serve', migrate: 'node dist/questline.js migrate' }

/**
 * The production packages installed in the checkout, as directories relative to it
 * (`node_modules/a`, `node_modules/a/node_modules/b`), as npm resolves them: without development
 * dependencies, and without the workspace packages (the web app's build holds the client already).
 */
export async function productionPackages(): Promise<string[]> {
  const { stdout } = await promisify(execFile)('npm', ['ls', '--omit=dev', '--all', '--parseable', '--workspaces=false'], {
    cwd: ROOT, maxBuffer: 16 * 1024 * 1024,
  })
  const dirs = new Set(stdout.split('\n').map((line) => path.relative(ROOT, line.trim())).filter((rel) => rel.startsWith('node_modules')))
  return [...dirs].sort()
}

/** Copies each package's own files; its nested node_modules holds packages listed (or left out) on their own. */
async function copyPackages(packages: string[], dir: string): Promise<void> {
  for (const rel of packages) {
    const from = await realpath(path.join(ROOT, rel))
    const nested = path.join(from, 'node_modules')
    await cp(from, path.join(dir, rel), {
      recursive: true,
      verbatimSymlinks: true,
      filter: (source) => source !== nested && !source.startsWith(nested + path.sep),
    })
  }
}

async function writeTreeManifest(dir: string): Promise<void> {
  const manifest = JSON.parse(await readFile(path.join(ROOT, 'package.json'), 'utf8')) as Record<string, unknown>
  // The checkout's bin/ is not in the tree, and `prepare` would build; dependencies stay as the lock file has them.
  delete manifest.bin
  manifest.scripts = TREE_SCRIPTS
  await writeFile(path.join(dir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`)
  await cp(path.join(ROOT, 'package-lock.json'), path.join(dir, 'package-lock.json'))
}

/** Bytes and files under a directory (symbolic links count as themselves). */
export async function treeSize(dir: string): Promise<{ bytes: number; files: number }> {
  let bytes = 0
  let files = 0
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isDirectory()) continue
    bytes += (await lstat(path.join(entry.parentPath, entry.name))).size
    files++
  }
  return { bytes, files }
}

async function requireEmpty(dir: string): Promise<void> {
  const entries = await readdir(dir).catch((e: NodeJS.ErrnoException) => {
    if (e.code === 'ENOENT') return []
    throw e
  })
  if (entries.length > 0) throw new Error(`${dir} is not empty: the runtime tree is made in a new or empty directory`)
}

/** Makes the runtime tree in `dir`; answers what it holds. */
export async function buildRuntime(dir: string): Promise<{ packages: number; bytes: number; files: number }> {
  await requireEmpty(dir)
  await mkdir(dir, { recursive: true })
  await buildServer(path.join(dir, 'dist'), { treeRoot: dir })
  await buildWebApp({ outDir: path.join(dir, 'web', 'dist'), quiet: true })
  await cp(path.join(ROOT, 'drizzle'), path.join(dir, 'drizzle'), { recursive: true })
  await writeTreeManifest(dir)
  const packages = await productionPackages()
  const forbidden = packages.filter((p) => (BUILD_ONLY_PACKAGES as readonly string[]).includes(p.replace(/^.*node_modules\//, '')))
  if (forbidden.length > 0) throw new Error(`production dependencies include build tools: ${forbidden.join(', ')} (move them to devDependencies)`)
  await copyPackages(packages, dir)
  return { packages: packages.length, ...(await treeSize(dir)) }
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const target = process.argv[2]
  if (!target || process.argv.length > 3) {
    console.error('usage: npm run build:runtime -- DIR   (DIR missing or empty)')
    process.exit(2)
  }
  const dir = path.resolve(target)
  const t0 = performance.now()
  buildRuntime(dir).then(({ packages, bytes, files }) => {
    const megabytes = (bytes / 1024 / 1024).toFixed(1)
    console.log(`runtime tree in ${dir}: ${megabytes} MB in ${files} files, ${packages} production packages; ${Math.round(performance.now() - t0)} ms`)
    console.log(`run it: cd ${dir} && NODE_ENV=production node dist/questline.js serve`)
  }, (e: unknown) => {
    console.error(e instanceof Error ? e.message : e)
    process.exit(1)
  })
}
