/**
 * Draws the app's icons (web/public/icons) from the crossed swords of the brand (web/src/ui/icons.tsx)
 * with Chromium: `npx tsx scripts/make-icons.ts`. The PNGs are committed; run this only to redraw them.
 * A maskable icon keeps the swords inside the middle 60 % that every mask shape leaves visible.
 */
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { chromium } from 'playwright-core'
import { CHROMIUM } from '../test/web/support/chromium.js'

const OUT = fileURLToPath(new URL('../web/public/icons', import.meta.url))
const SWORDS = 'M4 4l9 9M4 4h4M4 4v4M20 4l-9 9M20 4h-4M20 4v4M8 16l-4 4M16 16l4 4M6 14l4 4M18 14l-4 4'
const BACKGROUND = '#1d1b2e'
const STROKE = '#b59cff'

/** The swords on the app's background: rounded for `any`, full bleed and smaller for `maskable`. */
function svg(size: number, maskable: boolean): string {
  const art = maskable ? size * 0.5 : size * 0.7
  const offset = (size - art) / 2
  const corner = maskable ? 0 : size * 0.18
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${size}" height="${size}" viewBox="0 0 ${size} ${size}">` +
    `<rect width="${size}" height="${size}" rx="${corner}" fill="${BACKGROUND}"/>` +
    `<g transform="translate(${offset} ${offset}) scale(${art / 24})" fill="none" stroke="${STROKE}" stroke-width="2" stroke-linecap="round" stroke-linejoin="round">` +
    `<path d="${SWORDS}"/></g></svg>`
}

const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu'] })
try {
  for (const [name, size, maskable] of [['icon-192.png', 192, false], ['icon-512.png', 512, false], ['maskable-512.png', 512, true]] as const) {
    const page = await browser.newPage({ viewport: { width: size, height: size } })
    await page.setContent(`<html><body style="margin:0;background:transparent">${svg(size, maskable)}</body></html>`)
    await page.screenshot({ path: path.join(OUT, name), omitBackground: true })
    await page.close()
  }
} finally {
  await browser.close()
}
