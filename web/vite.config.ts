import { readdir, readFile, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { gzipSync } from 'node:zlib'
import react from '@vitejs/plugin-react'
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
      await Promise.all(files.filter((f) => /\.(js|css|html|svg|json)$/.test(f)).map(async (f) => {
        const full = path.join(outDir, f)
        await writeFile(`${full}.gz`, gzipSync(await readFile(full), { level: 9 }))
      }))
    },
  }
}

export default defineConfig(({ command }) => ({
  root: import.meta.dirname,
  plugins: [react(), precompress()],
  // A build is for production whatever NODE_ENV the building process has (vitest sets 'test',
  // which would otherwise bundle React's development build).
  define: command === 'build' ? { 'process.env.NODE_ENV': JSON.stringify('production') } : {},
  build: { outDir: 'dist', emptyOutDir: true, target: 'es2022', reportCompressedSize: true },
  server: { proxy: { '/api': api, '/auth': api } },
}))
