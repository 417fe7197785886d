/** Before the browser tests: the app built (when stale) and Debian's Chromium present. */
import { existsSync } from 'node:fs'
import { buildWebApp } from '../../../scripts/build-web.js'
import { CHROMIUM } from './browser.js'

export default async function setup() {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`The browser tests drive ${CHROMIUM} (Debian's chromium package): apt-get install -y chromium`)
  }
  await buildWebApp({ ifStale: true, quiet: true })
}
