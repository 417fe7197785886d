/**
 * The builds `npm install` makes (the `prepare` script) so that `npm start` only runs them:
 * - dist/: the platform, src/main.ts bundled by esbuild with its packages (node loads one
 *   module graph of a few files instead of compiling TypeScript and resolving hundreds of files);
 * - web/dist: the player web app (scripts/build-web.ts).
 * `bin/questline.js` (what `npm start` runs) builds again, in its own process, whichever is older
 * than its sources. `npm run build` builds both now; `--if-stale` only what is stale.
 */
import { readFileSync } from 'node:fs'
import { readFile, rename, rm, utimes } from 'node:fs/promises'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { build, type Plugin } from 'esbuild'
import { buildWebApp } from './build-web.js'
import { isStale, ROOT, SERVER } from './outputs.js'

/**
 * Packages left outside the bundle, loaded from node_modules as usual: PGlite finds its
 * WebAssembly and data files from its module's URL, argon2 is a native addon, pg-native optional.
 */
const EXTERNAL = ['@electric-sql/pglite', '@node-rs/argon2', 'pg-native']

/**
 * Every output file starts so: the bundled CommonJS packages call `require`, which an ES module
 * has to make for itself; and `__questlineDir` is where the output file is (see `fileLocations`).
 */
const BANNER = [
  "import { createRequire as __questlineCreateRequire } from 'node:module';",
  "import { dirname as __questlineDirname, join as __questlineJoin } from 'node:path';",
  "import { fileURLToPath as __questlineFileURLToPath } from 'node:url';",
  'const require = __questlineCreateRequire(import.meta.url);',
  'const __questlineDir = __questlineDirname(__questlineFileURLToPath(import.meta.url));',
].join(' ')

/**
 * A bundled CommonJS module that reads files beside its code through `__dirname` (the Swagger
 * UI's page and assets) still finds them in node_modules: its `__dirname` and `__filename` are
 * the original file's, found relative to the output file, so a checkout moved elsewhere keeps working.
 * `treeRoot` is the directory whose node_modules holds them when the output runs (the checkout's
 * by default; a runtime tree's copy keeps the checkout's layout).
 */
function fileLocations(outDir: string, treeRoot: string): Plugin {
  return {
    name: 'questline-file-locations',
    setup(b) {
      b.onLoad({ filter: /[\\/]node_modules[\\/].*\.c?js$/ }, async (args) => {
        const contents = await readFile(args.path, 'utf8')
        if (!/\b__(dirname|filename)\b/.test(contents) || !isCommonJs(args.path)) return undefined
        const relative = JSON.stringify(path.relative(outDir, path.join(treeRoot, path.relative(ROOT, args.path))))
        return {
          contents: `var __filename = __questlineJoin(__questlineDir, ${relative}), __dirname = __questlineDirname(__filename);\n${contents}`,
          loader: 'js',
          resolveDir: path.dirname(args.path),
        }
      })
    },
  }
}

/** A .cjs file, or a .js file whose package is not `"type": "module"`. */
function isCommonJs(file: string): boolean {
  if (file.endsWith('.cjs')) return true
  for (let dir = path.dirname(file); path.basename(dir) !== 'node_modules' && dir !== path.dirname(dir); dir = path.dirname(dir)) {
    let manifest: { type?: string }
    try {
      manifest = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { type?: string }
    } catch {
      continue
    }
    return manifest.type !== 'module'
  }
  return true
}

/**
 * Bundles the platform into `outDir` (dist/ by default): `questline.js` and the chunks it loads
 * only when needed (the NATS client, the PostgreSQL driver, the HTTP proxy of split services).
 * Written beside and swapped in, so a process starting meanwhile never sees half a build.
 * `treeRoot`: where the node_modules it runs with is (see `fileLocations`). Answers the entry's path.
 */
export async function buildServer(outDir = SERVER.dir, { treeRoot = ROOT } = {}): Promise<string> {
  const started = Date.now()
  const temporary = `${outDir}.building-${process.pid}`
  const previous = `${outDir}.previous-${process.pid}`
  await rm(temporary, { recursive: true, force: true })
  await build({
    entryPoints: { questline: path.join(ROOT, 'src', 'main.ts') },
    outdir: temporary,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node22.12',
    external: EXTERNAL,
    banner: { js: BANNER },
    plugins: [fileLocations(outDir, treeRoot)],
    // Less text for node to parse at every start (a sixth less time loading it); names stay, so
    // stack traces still name their functions, and NODE_OPTIONS=--enable-source-maps maps them to src/.
    minifyWhitespace: true,
    minifySyntax: true,
    sourcemap: 'linked',
    sourcesContent: false,
    logLevel: 'warning',
  })
  await rename(outDir, previous).catch(ignoreMissing)
  try {
    await rename(temporary, outDir)
  } catch (e) {
    // Another process's build got there first: it is as new as this one.
    if ((e as NodeJS.ErrnoException).code !== 'ENOTEMPTY' && (e as NodeJS.ErrnoException).code !== 'EEXIST') throw e
    await rm(temporary, { recursive: true, force: true })
  }
  await rm(previous, { recursive: true, force: true })
  // The build's time is when it read its sources: a file saved during the build stays newer.
  const entry = path.join(outDir, 'questline.js')
  await utimes(entry, started / 1000, started / 1000)
  return entry
}

function ignoreMissing(e: NodeJS.ErrnoException): void {
  if (e.code !== 'ENOENT') throw e
}

/** Builds the platform and the web app, or with `ifStale` only those older than their sources. */
export async function buildAll(opts: { ifStale?: boolean } = {}): Promise<void> {
  if (!opts.ifStale || isStale(SERVER)) {
    const t0 = performance.now()
    await buildServer()
    console.log(`platform bundled into dist/ in ${Math.round(performance.now() - t0)} ms`)
  }
  await buildWebApp({ ifStale: opts.ifStale ?? false })
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  buildAll({ ifStale: process.argv.includes('--if-stale') }).catch((e: unknown) => {
    console.error(e)
    process.exit(1)
  })
}
