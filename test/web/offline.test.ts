/**
 * The installable app offline (DESIGN §9.6): the service worker opens the app without a network,
 * check-ins made offline are kept and shown as pending, and on reconnect go up in one bulk request;
 * a refused one is explained until dismissed; two tabs send a queue once.
 */
import type { BrowserContext, Page } from 'playwright-core'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { localDateTimeIn } from '../../src/platform/time/index.js'
import { api, registerInUi, screenshots, startWorld, type Signed, type WebWorld } from './support/browser.js'

let world: WebWorld
beforeAll(async () => {
  world = await startWorld()
})
afterAll(() => world?.close())

/** The keys each bulk check-in request answered for, from any tab (a request the network never carried is not one). */
function bulkRequests(context: BrowserContext): string[][] {
  const sent: string[][] = []
  context.on('requestfinished', (r) => {
    if (r.method() !== 'POST' || !/\/api\/v1\/avatars\/[^/]+\/attends$/.test(r.url())) return
    const i = sent.push([]) - 1
    void r.response().then((res) => res?.json()).then((body: { results: { key: string }[] }) => {
      sent[i] = body.results.map((x) => x.key)
    })
  })
  return sent
}

/** A player whose page is controlled by the service worker, with these habits on Today. */
async function playerWith(name: string, habits: { title: string; recurrenceType: string; timesPerWeek?: number }[]): Promise<{ page: Page; me: Signed }> {
  const page = await world.player()
  const me = await registerInUi(page, name)
  await page.evaluate('navigator.serviceWorker.ready.then(() => true)')
  for (const h of habits) await api(world, me.token, 'POST', '/api/v1/habits', { avatarId: me.userId, ...h })
  await page.reload()
  await expect.poll(() => page.evaluate('navigator.serviceWorker.controller !== null')).toBe(true)
  for (const h of habits) await page.getByRole('button', { name: `Complete ${h.title}` }).waitFor()
  return { page, me }
}

const avatarOf = async (me: Signed) =>
  (await (await api(world, me.token, 'GET', `/api/v1/avatars/${me.userId}`)).json()) as { level: { currentExperience: number }; money: { amount: number } }

test('the server serves the worker unkept and the manifest as a manifest; its icons are PNGs', async () => {
  const sw = await fetch(`${world.baseUrl}/sw.js`)
  expect(sw.status).toBe(200)
  expect(sw.headers.get('cache-control')).toBe('no-cache')
  expect(sw.headers.get('content-type')).toMatch(/javascript/)
  const manifest = await fetch(`${world.baseUrl}/manifest.webmanifest`)
  expect(manifest.headers.get('content-type')).toMatch(/^application\/manifest\+json/)
  const m = await manifest.json() as { start_url: string; display: string; icons: { src: string; sizes: string; purpose: string }[] }
  expect(m).toMatchObject({ start_url: '/', display: 'standalone' })
  expect(m.icons.map((i) => `${i.sizes} ${i.purpose}`)).toEqual(['192x192 any', '512x512 any', '512x512 maskable'])
  for (const icon of m.icons) {
    const png = await fetch(`${world.baseUrl}${icon.src}`)
    expect(png.headers.get('content-type')).toBe('image/png')
    expect([...new Uint8Array(await png.arrayBuffer()).slice(1, 4)]).toEqual([0x50, 0x4e, 0x47]) // "PNG"
  }
})

test('offline check-ins show as pending, survive a reload offline and go up in one request on reconnect', async () => {
  const titles = ['Read', 'Run', 'Write']
  const { page, me } = await playerWith('Wanderer', titles.map((title) => ({ title, recurrenceType: 'TIMES_PER_WEEK', timesPerWeek: 3 })))
  const due = page.getByRole('list', { name: 'Due habits' })
  for (let i = 0; i < titles.length; i++) await due.getByLabel('0 of 3 this week').nth(i).waitFor()
  // The platform's own pages are never the app's: /docs comes from the server.
  const docs = await page.goto('/docs')
  expect(docs?.fromServiceWorker()).toBe(false)
  expect(await page.title()).not.toMatch(/Questline$/)
  await page.goto('/')
  await page.getByRole('button', { name: 'Complete Read' }).waitFor()
  const before = await avatarOf(me)
  const sent = bulkRequests(page.context())

  await page.context().setOffline(true)
  const done = page.getByRole('list', { name: 'Done habits' })
  for (const title of titles) {
    await page.getByRole('button', { name: `Complete ${title}` }).click()
    const row = done.getByRole('listitem').filter({ hasText: title })
    await row.getByText('Pending: sends when online').waitFor()
    await row.getByLabel('1 of 3 this week, 1 pending').waitFor()
  }
  await screenshots(page, 'offline-pending')

  // Reloaded without a network, the worker opens the app; the queue is still there.
  const reloaded = await page.reload()
  expect(reloaded?.fromServiceWorker()).toBe(true)
  await page.getByRole('region', { name: 'Your hero' }).waitFor()
  await expect.poll(() => done.getByText('Pending: sends when online').count()).toBe(3)
  expect(sent).toHaveLength(0)

  await page.context().setOffline(false)
  await expect.poll(() => sent.length).toBe(1)
  await expect.poll(() => sent[0]).toHaveLength(3)
  await expect.poll(() => page.getByText('Pending: sends when online').count()).toBe(0)
  for (const title of titles) await done.getByRole('listitem').filter({ hasText: title }).getByLabel('1 of 3 this week').waitFor()
  // The rewards come by events: the page's experience bar shows them (the "sent: +N XP" status
  // waits ~4 s for them, which a loaded machine may outlast; the bar follows the stream).
  await expect.poll(async () => (await avatarOf(me)).level.currentExperience).toBeGreaterThanOrEqual(before.level.currentExperience + 3 * 10)
  const after = await avatarOf(me)
  expect(after.money.amount).toBeGreaterThan(before.money.amount)
  await expect.poll(() => page.getByRole('progressbar', { name: 'Experience' }).first().getAttribute('aria-valuenow')).toBe(String(after.level.currentExperience))
  expect(sent).toHaveLength(1)
  await page.context().close()
})

test('a queued check-in the server refuses is explained in words until dismissed', async () => {
  const { page, me } = await playerWith('Latecomer', [{ title: 'Read', recurrenceType: 'DAILY' }])
  await page.context().setOffline(true)
  await page.getByRole('button', { name: 'Complete Read' }).click()
  await page.getByText('Pending: sends when online').waitFor()

  // Meanwhile another device completes the day's window: the queued check-in can no longer count.
  const habit = (await (await api(world, me.token, 'GET', `/api/v1/habits?avatarId=${me.userId}`)).json()) as { items: { id: string; timeZone: string }[] }
  const { id, timeZone } = habit.items[0]!
  await api(world, me.token, 'POST', `/api/v1/habits/${id}/attend`, { date: localDateTimeIn(new Date(), timeZone) })

  await page.context().setOffline(false)
  const note = page.getByRole('list', { name: 'Check-ins not counted' }).getByRole('alert')
  await expect.poll(() => note.textContent()).toMatch(/^Your check-in of 'Read' on \w+, \w+ \d+ was not counted: that window had already been completed\./)
  await expect.poll(() => page.getByText('Pending: sends when online').count()).toBe(0)
  await screenshots(page, 'offline-refused')
  // It stays across a reload until the player dismisses it.
  await page.reload()
  await note.waitFor()
  await page.getByRole('button', { name: 'Dismiss the note about Read' }).click()
  await expect.poll(() => note.count()).toBe(0)
  await page.reload()
  await page.getByRole('region', { name: 'Your hero' }).waitFor()
  expect(await note.count()).toBe(0)
  await page.context().close()
})

test('two tabs coming online together send the queue once', async () => {
  const { page, me } = await playerWith('Twin', [{ title: 'Stretch', recurrenceType: 'DAILY' }, { title: 'Water', recurrenceType: 'DAILY' }])
  const context = page.context()
  const sent = bulkRequests(context)
  await context.setOffline(true)
  await page.getByRole('button', { name: 'Complete Stretch' }).click()
  await page.getByRole('button', { name: 'Complete Water' }).click()
  await expect.poll(() => page.getByText('Pending: sends when online').count()).toBe(2)
  const other = await context.newPage()
  await other.goto('/')
  await expect.poll(() => other.getByText('Pending: sends when online').count()).toBe(2)

  await context.setOffline(false)
  for (const p of [page, other]) await expect.poll(() => p.getByText('Pending: sends when online').count()).toBe(0)
  await other.waitForTimeout(1_000) // room for a second sending, were there one
  expect(sent).toHaveLength(1)
  await expect.poll(() => sent[0]).toHaveLength(2)
  const keys = sent.flat()
  expect(new Set(keys).size).toBe(2)
  const habits = (await (await api(world, me.token, 'GET', `/api/v1/habits?avatarId=${me.userId}`)).json()) as { items: { streak: number }[] }
  expect(habits.items.map((h) => h.streak)).toEqual([1, 1])
  await context.close()
})
