/**
 * A new version of the app (DESIGN §9.6): when a new service worker has installed and waits, a
 * banner says so, and its button (reached by keyboard) lets the new version take over and reloads.
 * The platform serves a copy of the build, whose sw.js the test changes as a deployment would.
 */
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { gzipSync } from 'node:zlib'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { registerInUi, screenshots, startWorld, type WebWorld } from './support/browser.js'

let world: WebWorld
let webDir: string
beforeAll(async () => {
  webDir = await mkdtemp(path.join(tmpdir(), 'questline-web-'))
  await cp(path.resolve('web/dist'), webDir, { recursive: true })
  world = await startWorld({ WEB_DIR: webDir })
})
afterAll(async () => {
  await world?.close()
  await rm(webDir, { recursive: true, force: true })
})

/** A deployment: the worker's script differs (as any change to the build makes it). */
async function deployNewVersion(): Promise<void> {
  const sw = `${await readFile(path.join(webDir, 'sw.js'), 'utf8')}\n// another build\n`
  await writeFile(path.join(webDir, 'sw.js'), sw)
  await writeFile(path.join(webDir, 'sw.js.gz'), gzipSync(sw))
}

test('a waiting new version shows a banner whose Reload button activates it', async () => {
  const page = await world.player()
  await registerInUi(page, 'Updater')
  await page.evaluate('navigator.serviceWorker.ready.then(() => true)')
  await page.reload()
  await expect.poll(() => page.evaluate('navigator.serviceWorker.controller !== null')).toBe(true)
  const banner = page.getByRole('status').filter({ hasText: 'A new version is ready' })
  expect(await banner.count()).toBe(0) // the first worker is no update

  await deployNewVersion()
  await page.evaluate('navigator.serviceWorker.getRegistration().then((r) => r.update())')
  await banner.waitFor()
  await screenshots(page, 'update-banner')

  const reload = banner.getByRole('button', { name: 'Reload' })
  await reload.focus()
  expect(await reload.evaluate((b) => b.matches(":focus"))).toBe(true)
  await Promise.all([page.waitForEvent('load'), page.keyboard.press('Enter')])
  await page.getByRole('region', { name: 'Your hero' }).waitFor()
  expect(await banner.count()).toBe(0)
  await expect.poll(() => page.evaluate('navigator.serviceWorker.getRegistration().then((r) => r.waiting === null && r.active !== null)')).toBe(true)
  await page.context().close()
})
