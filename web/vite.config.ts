import { createHash } from 'node:crypto'
import { readdir, readFile, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { gzipSync } from 'node:zlib'
import react from '@vitejs/plugin-react'
import { build as esbuild } from 'esbuild'
import { defineConfig, type Plugin } from 'vite'

/**
 * The player web app. `npm run build:web` writes web/dist, which the edge serves at `/`.
 * `npm run dev:web` serves it with hot reload and forwards the API to a running platform
 * (QUESTLINE_API, default http://127.0.0.1:8080).
 */
const api = process.env.QUESTLINE_API ?? 'http://127.0.0.1:8080'

/** Writes `x.gz` beside every text file of the build, so the server sends it compressed without work per request. */
function precompress(): Plugin {
  let outDir = ''
  return {
    name: 'questline-precompress',
    apply: 'build',
    configResolved: (c) => {
      outDir = path.resolve(c.root, c.build.outDir)
    },
    async closeBundle() {
      const files = await readdir(outDir, { recursive: true })
      await Promise.all(files.filter((f) => /\.(js|css|html|svg|json|webmanifest)$/.test(f)).map(async (f) => {
        const full = path.join(outDir, f)
        await writeFile(`${full}.gz`, gzipSync(await readFile(full), { level: 9 }))
      }))
    },
  }
}

/**
 * Writes the service worker (web/src/offline/sw.ts) to `sw.js` at the root of the build, with the
 * list of files it keeps for offline use and a version drawn from their contents: a build that
 * changes any file changes sw.js, which is how the browser learns of a new version.
 */
function serviceWorker(): Plugin {
  let outDir = ''
  return {
    name: 'questline-service-worker',
    apply: 'build',
    configResolved: (c) => {
      outDir = path.resolve(c.root, c.build.outDir)
    },
    async writeBundle() {
      const entries = await readdir(outDir, { recursive: true, withFileTypes: true })
      const files = entries.filter((e) => e.isFile() && !e.name.endsWith('.gz') && e.name !== 'sw.js')
        .map((e) => path.relative(outDir, path.join(e.parentPath, e.name)).split(path.sep).join('/')).sort()
      const hash = createHash('sha256')
      for (const f of files) hash.update(f).update(await readFile(path.join(outDir, f)))
      await esbuild({
        entryPoints: [path.join(import.meta.dirname, 'src/offline/sw.ts')],
        outfile: path.join(outDir, 'sw.js'), bundle: true, minify: true, format: 'iife', target: 'es2022', logLevel: 'warning',
        define: { PRECACHE: JSON.stringify(files.map((f) => `/${f}`)), VERSION: JSON.stringify(hash.digest('hex').slice(0, 16)) },
      })
    },
  }
}

export default defineConfig(({ command }) => ({
  root: import.meta.dirname,
  plugins: [react(), serviceWorker(), precompress()],
  // A build is for production whatever NODE_ENV the building process has (vitest sets 'test',
  // which would otherwise bundle React's development build).
  define: command === 'build' ? { 'process.env.NODE_ENV': JSON.stringify('production') } : {},
  build: { outDir: 'dist', emptyOutDir: true, target: 'es2022', reportCompressedSize: true },
  server: { proxy: { '/api': api, '/auth': api } },
}))
