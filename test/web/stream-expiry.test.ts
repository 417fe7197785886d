/**
 * The page's stream outlives the access token that opened it: when the server says `expired`
 * (the token ran out by the server's clock, here the test's), the page opens the stream again
 * with a fresh token, from where it left off, and the screens go on following it.
 */
import { afterAll, beforeAll, expect, test } from 'vitest'
import { ManualClock } from '../../src/platform/clock.js'
import { api, registerInUi, startWorld, streaming, type WebWorld } from './support/browser.js'

const clock = new ManualClock(new Date())
let world: WebWorld
beforeAll(async () => {
  // Streams are checked for expiry with each heartbeat: often, so the test need not wait 15 s.
  world = await startWorld({ STREAM_HEARTBEAT_MS: '200' }, { clock })
})
afterAll(() => world?.close())

test('an expired stream is opened again with a fresh token, from where it left off', async () => {
  const page = await world.player()
  const me = await registerInUi(page, 'Sleeper')
  await streaming(page)
  const xp = page.getByRole('progressbar', { name: 'Experience' })
  await api(world, me.token, 'POST', `/api/v1/avatars/${me.userId}/experience/grant`, { amount: 5 })
  await expect.poll(() => xp.getAttribute('aria-valuenow')).toBe('5')

  const opened: string[] = []
  page.on('request', (r) => {
    if (r.url().includes('/stream?')) opened.push(r.url())
  })
  const refreshed = page.waitForResponse((r) => r.url().endsWith('/auth/refresh') && r.status() === 200)
  // Two hours on by the server's clock: the page's access token (an hour) has expired there.
  clock.advance(2 * 3_600_000)
  await refreshed
  await expect.poll(() => opened.length).toBeGreaterThan(0)
  expect(new URL(opened[0]!).searchParams.get('lastEventId')).toMatch(/^\d+$/)
  await streaming(page)

  // The test's token has expired too: sign in again, and change the hero; the page follows.
  const login = await (await fetch(`${world.baseUrl}/auth/login`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: me.email, password: 'correct horse battery' }),
  })).json() as { token: string }
  await api(world, login.token, 'POST', `/api/v1/avatars/${me.userId}/experience/grant`, { amount: 10 })
  await expect.poll(() => xp.getAttribute('aria-valuenow')).toBe('15')
  await expect.poll(() => page.getByText('Offline — reconnecting…').count()).toBe(0)
})
