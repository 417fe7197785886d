/**
 * Before the browser tests: the app built (when stale) and Chromium present. Off CI, a missing
 * Chromium leaves the project out of the run (vitest.config.ts); under CI it fails here.
 */
import { existsSync } from 'node:fs'
import { buildWebApp } from '../../../scripts/build-web.js'
import { CHROMIUM } from './chromium.js'

export default async function setup() {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`The browser tests drive ${CHROMIUM} (Debian's chromium package): apt-get install -y chromium, or set TEST_CHROMIUM to a Chromium or Chrome binary`)
  }
  await buildWebApp({ ifStale: true, quiet: true })
}
