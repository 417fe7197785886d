/**
 * Which Chromium the browser tests drive, and whether the web project runs without one. Plain
 * Node (no vitest, no playwright), so vitest.config.ts can ask it when it lists the projects.
 */
import { existsSync } from 'node:fs'

/** Debian's package, or TEST_CHROMIUM: another Chromium or Chrome binary (or a missing path, to try the skip). */
export const CHROMIUM = process.env.TEST_CHROMIUM || '/usr/bin/chromium'

/** Under CI (`.ci/run` exports CI=true) the browser tests are required: a missing Chromium fails the run. */
export const browserTestsRequired = !!process.env.CI && process.env.CI !== 'false'

/**
 * Why the web project is left out of this run, or undefined when it runs: only off CI, and only
 * because Chromium is missing. Under CI the project stays and its global setup fails loudly.
 */
export function webProjectSkipReason(): string | undefined {
  if (browserTestsRequired || existsSync(CHROMIUM)) return undefined
  return `web project skipped: no Chromium at ${CHROMIUM} (apt-get install -y chromium, or set TEST_CHROMIUM to a Chromium or Chrome binary); CI requires it`
}
