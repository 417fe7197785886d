/**
 * The README's screenshot (`npm run docs:screenshot`): starts the platform as `npm start` does, on
 * a temporary embedded data directory and a free port, registers a player in Debian's Chromium
 * (`/usr/bin/chromium`, or TEST_CHROMIUM; no browser is downloaded), adds three habits, completes
 * one, and saves the Today screen to docs/images/today.png. The data directory is removed after.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdir, mkdtemp, rm } from 'node:fs/promises'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { chromium, type Page } from 'playwright-core'
import { CHROMIUM } from '../test/web/support/chromium.js'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const OUT = path.join(ROOT, 'docs/images/today.png')
const VIEWPORT = { width: 1280, height: 800 }

/** A port nobody listens on now. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer()
    probe.once('error', reject)
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address()
      probe.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))))
    })
  })
}

async function waitUntilReady(baseUrl: string, server: ChildProcess): Promise<void> {
  const deadline = Date.now() + 120_000
  while (Date.now() < deadline) {
    if (server.exitCode !== null) throw new Error(`the platform exited with code ${server.exitCode}`)
    const ready = await fetch(`${baseUrl}/readyz`).then((r) => r.ok, () => false)
    if (ready) return
    await new Promise((r) => setTimeout(r, 250))
  }
  throw new Error(`the platform at ${baseUrl} was not ready within 2 minutes`)
}

async function addHabit(page: Page, title: string, tags: string): Promise<void> {
  await page.getByRole('navigation', { name: 'Screens' }).getByRole('link', { name: 'Habits' }).click()
  // The form is open while there is no habit; after that, behind "New habit".
  const newHabit = page.getByRole('button', { name: 'New habit' })
  await newHabit.or(page.getByLabel('Title')).first().waitFor()
  if (await newHabit.isVisible()) await newHabit.click()
  await page.getByLabel('Title').fill(title)
  await page.getByLabel('Tags (comma-separated)').fill(tags)
  await page.getByRole('button', { name: 'Create habit' }).click()
  await page.getByRole('list', { name: 'Your habits' }).locator('.habit-title', { hasText: title }).waitFor()
}

async function main(): Promise<void> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'questline-screenshot-'))
  const port = await freePort()
  const baseUrl = `http://127.0.0.1:${port}`
  const server = spawn(process.execPath, [path.join(ROOT, 'bin/questline.js'), 'serve'], {
    cwd: ROOT,
    env: { ...process.env, DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'inherit', 'inherit'],
  })
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu', '--no-first-run'], timeout: 60_000 })
  try {
    await waitUntilReady(baseUrl, server)
    const context = await browser.newContext({ baseURL: baseUrl, viewport: VIEWPORT, deviceScaleFactor: 1 })
    context.setDefaultTimeout(30_000)
    const page = await context.newPage()

    await page.goto('/register')
    await page.getByLabel('Hero name').fill('Ada')
    await page.getByLabel('Email').fill('ada@example.com')
    await page.getByLabel('Password').fill('correct horse battery')
    await page.getByRole('button', { name: 'Create account' }).click()
    await page.getByRole('region', { name: 'Your hero' }).waitFor()

    await addHabit(page, 'Read 20 pages', 'mind, evening')
    await addHabit(page, 'Run 5 km', 'body')
    await addHabit(page, 'Drink a glass of water', 'body, morning')

    await page.getByRole('navigation', { name: 'Screens' }).getByRole('link', { name: 'Today' }).click()
    await page.getByRole('button', { name: /^Complete Read 20 pages/ }).click()
    await page.getByRole('list', { name: 'Done habits' }).locator('.habit-title', { hasText: 'Read 20 pages' }).waitFor()
    await page.getByRole('status').filter({ hasText: '+10 XP' }).waitFor()
    // The picture shows the reward's announcement, not the three "Habit created" before it, and no hover.
    await page.evaluate(`document.querySelectorAll('.toasts > *').forEach((t) => { if (!t.textContent.includes('XP')) t.remove() })`)
    await page.mouse.move(VIEWPORT.width - 1, VIEWPORT.height - 1)
    await page.waitForTimeout(300)

    await mkdir(path.dirname(OUT), { recursive: true })
    await page.screenshot({ path: OUT, animations: 'disabled' })
    console.log(`saved ${path.relative(ROOT, OUT)} (${VIEWPORT.width}×${VIEWPORT.height})`)
  } catch (e) {
    await browser.contexts()[0]?.pages()[0]?.screenshot({ path: path.join(tmpdir(), 'questline-screenshot-failed.png') }).catch(() => undefined)
    throw e
  } finally {
    await browser.close().catch(() => undefined)
    server.kill('SIGTERM')
    await new Promise((r) => (server.exitCode !== null ? r(undefined) : server.once('exit', r)))
    await rm(dataDir, { recursive: true, force: true })
  }
}

main().catch((e: unknown) => {
  console.error(e)
  process.exit(1)
})
