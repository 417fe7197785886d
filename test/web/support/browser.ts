/**
 * The platform on a real port (a fresh embedded database, events flowing as in production) and
 * Debian's Chromium (or TEST_CHROMIUM, see chromium.ts) driven by playwright-core. One per test
 * file; `close()` ends both; `restart()` stops the platform and starts another on the same
 * database and port, as a deployment or a crash would.
 */
import { mkdir } from 'node:fs/promises'
import type { AddressInfo } from 'node:net'
import path from 'node:path'
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core'
import { expect } from 'vitest'
import { loadConfig } from '../../../src/config.js'
import type { ManualClock } from '../../../src/platform/clock.js'
import { buildPlatform } from '../../../src/server.js'
import { buildTestApp, type TestApp } from '../../support/app.js'
import { CHROMIUM } from './chromium.js'
const SCREENS_DIR = path.resolve('test-results/screens')

export const PHONE = { width: 390, height: 844 }
export const DESKTOP = { width: 1280, height: 800 }

export interface WebWorld {
  app: TestApp
  baseUrl: string
  browser: Browser
  /** A fresh browser profile (its own storage: one player) with a page at `size`. */
  player(size?: { width: number; height: number }): Promise<Page>
  /**
   * Stops the platform (its open streams end) and, after `downMs`, starts a new one on the same
   * database and port. The signing key is new, so access tokens issued before are refused and the
   * pages refresh theirs. Afterwards `app` still names the first platform's database; its `settle`
   * and `runJob` no longer apply.
   */
  restart(downMs?: number): Promise<void>
  close(): Promise<void>
}

export async function startWorld(env: Record<string, string> = {}, opts: { clock?: ManualClock } = {}): Promise<WebWorld> {
  const app = await buildTestApp({ env, ...(opts.clock ? { clock: opts.clock } : {}) })
  /** The platform started by `restart`, which serves instead of `app`'s. */
  let replacement: Awaited<ReturnType<typeof buildPlatform>> | undefined
  const contexts: BrowserContext[] = []
  let browser: Browser | undefined
  try {
    await app.http.listen({ port: 0, host: '127.0.0.1' })
    const { port } = app.http.server.address() as AddressInfo
    const baseUrl = `http://127.0.0.1:${port}`
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'],
      timeout: 60_000,
    })
    const b = browser
    return {
      app, baseUrl, browser: b,
      async player(size = PHONE) {
        const context = await b.newContext({ baseURL: baseUrl, viewport: size, deviceScaleFactor: 1 })
        context.setDefaultTimeout(20_000)
        contexts.push(context)
        const page = await context.newPage()
        page.on('pageerror', (e) => console.error(`[browser] ${e.message}`))
        return page
      },
      async restart(downMs = 0) {
        await (replacement?.http ?? app.http).close()
        await new Promise((r) => setTimeout(r, downMs))
        const config = loadConfig({ LOG_LEVEL: 'silent', JOBS_ENABLED: 'false', ...env })
        replacement = await buildPlatform({ config, logger: false, database: app.database, clock: app.clock })
        await replacement.http.listen({ port, host: '127.0.0.1' })
      },
      async close() {
        for (const c of contexts) await c.close().catch(() => undefined)
        await b.close().catch(() => undefined)
        await replacement?.http.close()
        await app.close()
      },
    }
  } catch (e) {
    await browser?.close().catch(() => undefined)
    await app.close()
    throw e
  }
}

/** Full-page screenshot at the page's current size: test-results/screens/<name>-<w>x<h>.png. */
export async function screenshot(page: Page, name: string): Promise<void> {
  await mkdir(SCREENS_DIR, { recursive: true })
  const { width, height } = page.viewportSize() ?? PHONE
  await page.screenshot({ path: path.join(SCREENS_DIR, `${name}-${width}x${height}.png`), fullPage: true, animations: 'disabled' })
}

/**
 * Screenshots at both sizes, then back to the page's own size. Announcements float over the
 * content, so they are hidden unless they are what the picture is about.
 */
export async function screenshots(page: Page, name: string, opts: { toasts?: boolean } = {}): Promise<void> {
  const own = page.viewportSize() ?? PHONE
  const toasts = (shown: boolean) => page.evaluate(`document.querySelector('.toasts')?.style.setProperty('visibility', '${shown ? 'visible' : 'hidden'}')`)
  if (!opts.toasts) await toasts(false)
  for (const size of [PHONE, DESKTOP]) {
    await page.setViewportSize(size)
    await page.waitForTimeout(150)
    await screenshot(page, name)
    // Nothing (a long name, a wide table) may push the page sideways.
    const width = await page.evaluate<number>('document.documentElement.scrollWidth')
    expect(width, `${name} at ${size.width}px is ${width}px wide`).toBeLessThanOrEqual(size.width)
  }
  await toasts(true)
  await page.setViewportSize(own)
}

export interface Signed {
  userId: string
  token: string
  name: string
  email: string
}

/** Registers through the sign-up form and waits for the Today screen. */
export async function registerInUi(page: Page, name: string): Promise<Signed> {
  const email = `web-${Math.random().toString(36).slice(2)}@example.com`
  await page.goto('/register')
  await page.getByLabel('Hero name').fill(name)
  await page.getByLabel('Email').fill(email)
  await page.getByLabel('Password').fill('correct horse battery')
  await page.getByRole('button', { name: 'Create account' }).click()
  await expect.poll(() => page.url()).toMatch(/\/$/)
  await page.getByRole('region', { name: 'Your hero' }).waitFor()
  const s = await session(page)
  return { userId: s.userId, token: s.token, name, email }
}

/** The session the app keeps in localStorage. */
export async function session(page: Page): Promise<{ userId: string; token: string; refreshToken: string; expiresAt: number }> {
  const raw = await page.evaluate<string | null>("localStorage.getItem('questline.session')")
  if (!raw) throw new Error('The page holds no session.')
  return JSON.parse(raw)
}

/** A call to the API from the test, with the player's token (arranging what the UI does not). */
export async function api(world: WebWorld, token: string, method: string, url: string, body?: unknown): Promise<Response> {
  const res = await fetch(`${world.baseUrl}${url}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  })
  if (res.status >= 400) throw new Error(`${method} ${url}: ${res.status} ${await res.text()}`)
  return res
}

/** Goes to a screen through the navigation, as a player would. */
export async function open(page: Page, screen: 'Today' | 'Habits' | 'Hero' | 'Market' | 'Guild' | 'Battle' | 'League' | 'Quests' | 'Settings'): Promise<void> {
  await page.getByRole('navigation', { name: 'Screens' }).getByRole('link', { name: screen }).click()
  await page.getByRole('link', { name: screen, exact: true }).and(page.locator('[aria-current="page"]')).waitFor()
}

/** Until the page's stream is open: from then on, what a test changes reaches the page by it. */
export const streaming = (page: Page) => page.locator('[data-live="live"]').waitFor({ state: 'attached' })

/**
 * Replaces the page's Notification API (from its next load on) with a recorder of what it showed
 * and how often permission was asked; the browser answers `answer`.
 */
export async function recordNotifications(page: Page, answer: 'granted' | 'denied' | 'default'): Promise<void> {
  await page.addInitScript(`(() => {
    window.__shown = []
    window.__asked = 0
    class Recorded {
      static permission = 'default'
      static async requestPermission() { window.__asked++; Recorded.permission = ${JSON.stringify(answer)}; return Recorded.permission }
      constructor(title, options) { window.__shown.push({ title, body: options?.body, tag: options?.tag }) }
      close() {}
    }
    window.Notification = Recorded
  })()`)
}

/** The browser notifications the page showed (see recordNotifications). */
export const shown = (page: Page) => page.evaluate<{ title: string; body: string; tag: string }[]>('window.__shown')
/** How often the page asked for permission to show them. */
export const asked = (page: Page) => page.evaluate<number>('window.__asked')
