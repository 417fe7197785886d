/**
 * npm run bench:web — what the player's browser downloads and how soon Today is usable.
 *
 * Builds the web app when stale, prints the size of its JavaScript and CSS (raw and gzip, as
 * served), starts the platform as a child process on a fresh embedded database, registers a
 * player with a few habits, then loads `/` in Debian's Chromium BENCH_RUNS times (default 9),
 * each in a fresh profile (cold cache) signed in as that player, and prints the median of:
 * DOMContentLoaded, load, and the time until the first habit's complete button is clickable (the
 * app has fetched the session's avatar and habits and rendered them). Chromium is throttled
 * neither in CPU nor network: these are figures for a fast machine on localhost, to compare
 * builds, not a user's phone.
 */
import { readdir, readFile, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { gzipSync } from 'node:zlib'
import { chromium } from 'playwright-core'
import { buildWebApp, WEB_ROOT } from '../scripts/build-web.js'
import { call } from './lib/http.js'
import { onInterrupt, startServer } from './lib/processes.js'

const RUNS = Number(process.env.BENCH_RUNS ?? 9)
const CHROMIUM = process.env.BENCH_CHROMIUM ?? '/usr/bin/chromium'
const HABITS = 5

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2
}
const kb = (n: number) => `${(n / 1024).toFixed(1)} KiB`

async function bundleSizes(): Promise<void> {
  const dir = path.join(WEB_ROOT, 'dist', 'assets')
  const files = (await readdir(dir)).filter((f) => /\.(js|css)$/.test(f))
  let js = 0, jsGzip = 0
  for (const f of files) {
    const raw = await readFile(path.join(dir, f))
    const gz = gzipSync(raw, { level: 9 }).length
    console.log(`  ${f.padEnd(28)} ${kb(raw.length).padStart(10)}  gzip ${kb(gz).padStart(9)}`)
    if (f.endsWith('.js')) {
      js += raw.length
      jsGzip += gz
    }
  }
  console.log(`  JavaScript in all: ${kb(js)}, gzip ${kb(jsGzip)}`)
}

async function main(): Promise<void> {
  await buildWebApp({ ifStale: true, quiet: true })
  console.log('web/dist/assets:')
  await bundleSizes()

  const dataDir = await mkdtemp(path.join(tmpdir(), 'questline-bench-web-'))
  const unregister = onInterrupt(() => rm(dataDir, { recursive: true, force: true }))
  const server = await startServer('platform', 'src/main.ts', ['serve'], { LOG_LEVEL: 'warn', DATA_DIR: dataDir }, '/readyz')
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'],
  })
  try {
    const email = `bench-${Date.now()}@example.com`
    const s = await call(server.url, undefined, 'POST', '/auth/register', { name: 'Bench', email, password: 'correct horse battery' }) as { token: string; userId: string; refreshToken: string; expiresIn: number }
    for (let i = 0; i < HABITS; i++) {
      await call(server.url, s.token, 'POST', '/api/v1/habits', { avatarId: s.userId, title: `Habit ${i + 1}`, recurrenceType: 'DAILY' })
    }
    const stored = JSON.stringify({ token: s.token, refreshToken: s.refreshToken, userId: s.userId, expiresAt: Date.now() + s.expiresIn * 1000 })

    const runs: { dcl: number; load: number; interactive: number }[] = []
    for (let i = 0; i < RUNS; i++) {
      const context = await browser.newContext({ viewport: { width: 390, height: 844 } })
      await context.addInitScript(`localStorage.setItem('questline.session', ${JSON.stringify(stored)})`)
      const page = await context.newPage()
      await page.goto(server.url + '/', { waitUntil: 'commit' })
      // The first habit's button present and enabled: performance.now() is ms since navigation start.
      const interactive = await page.waitForFunction(`(() => {
        const b = document.querySelector('button[aria-label^="Complete "]')
        return b && !b.disabled ? performance.now() : 0
      })()`, undefined, { polling: 'raf', timeout: 30_000 }).then((h) => h.jsonValue() as Promise<number>)
      await page.waitForLoadState('load')
      const nav = await page.evaluate(`(() => { const n = performance.getEntriesByType('navigation')[0]; return { dcl: n.domContentLoadedEventEnd, load: n.loadEventEnd } })()`) as { dcl: number; load: number }
      runs.push({ dcl: nav.dcl, load: nav.load, interactive })
      await context.close()
    }
    const first = runs[0]!
    console.log(`\nToday at 390×844, ${RUNS} cold loads (ms since navigation start; the first run ${first.interactive.toFixed(0)} ms to interactive):`)
    console.log(`  DOMContentLoaded  median ${median(runs.map((r) => r.dcl)).toFixed(0)}`)
    console.log(`  load              median ${median(runs.map((r) => r.load)).toFixed(0)}`)
    console.log(`  habits clickable  median ${median(runs.map((r) => r.interactive)).toFixed(0)}`)
  } finally {
    await browser.close()
    await server.stop()
    await rm(dataDir, { recursive: true, force: true })
    unregister()
  }
}

main().catch((e: unknown) => {
  console.error(e)
  process.exit(1)
})
