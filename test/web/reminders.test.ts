/**
 * A reminder in the browser (DESIGN §9.2): at its time (the server's clock is the test's, the job
 * run by hand), a habit not yet done brings a REMINDER to the open page: the bell's count, a
 * browser notification, and the inbox; a habit already done brings none, and nothing comes before
 * the time.
 */
import { afterAll, beforeAll, expect, test } from 'vitest'
import { REMINDERS_JOB } from '../../src/contexts/tracking/index.js'
import { ManualClock } from '../../src/platform/clock.js'
import { api, open, recordNotifications, registerInUi, shown, startWorld, streaming, type WebWorld } from './support/browser.js'

const HOUR = 3_600_000
// The server's clock starts at the real time (the browser's): the page and the server agree on the day.
const clock = new ManualClock(new Date())
let world: WebWorld
beforeAll(async () => {
  // The clock jumps up to two hours ahead: tokens outlive that.
  world = await startWorld({ ACCESS_TOKEN_TTL_SECONDS: '86400' }, { clock })
})
afterAll(() => world?.close())

/**
 * A fixed-offset zone in which it is now 07:xx, so that 09:00 the same day is ahead by one to two
 * hours whatever the time of the run (Etc/GMT-N is UTC+N).
 */
function zoneAtSevenNow(): string {
  let offset = 7 - clock.now().getUTCHours()
  if (offset < -12) offset += 24
  if (offset > 14) offset -= 24
  return offset === 0 ? 'Etc/GMT' : offset > 0 ? `Etc/GMT-${offset}` : `Etc/GMT+${-offset}`
}

/** The local date-time in `timeZone` at the server's time, as the API takes it. */
const localNow = (timeZone: string) =>
  new Intl.DateTimeFormat('sv-SE', { timeZone, dateStyle: 'short', timeStyle: 'medium' }).format(clock.now()).replace(' ', 'T')

test('a reminder reaches the open page at its time, only for the habit not yet done', async () => {
  const page = await world.player()
  await recordNotifications(page, 'granted')
  const me = await registerInUi(page, 'Forgetful')
  await streaming(page)
  // Permission is asked on the first opening of the bell.
  const bell = page.getByRole('button', { name: /^Inbox/ })
  await bell.click()
  await page.getByRole('dialog', { name: 'Inbox' }).getByText('Nothing yet.').waitFor()
  await page.keyboard.press('Escape')

  const timeZone = zoneAtSevenNow()
  const habit = (title: string, reminder: Record<string, string>) => api(world, me.token, 'POST', '/api/v1/habits', { avatarId: me.userId, title, recurrenceType: 'DAILY', timeZone, ...reminder })
    .then((r) => r.json() as Promise<{ id: string }>)
  await habit('Stretch', {})
  const read = await habit('Read', { reminderTime: '09:00' })
  await api(world, me.token, 'POST', `/api/v1/habits/${read.id}/attend`, { date: localNow(timeZone) })

  // Stretch gets its reminder in the habit form.
  await open(page, 'Habits')
  await page.getByRole('button', { name: 'Edit Stretch' }).click()
  await page.getByLabel('Reminder (optional)').fill('09:00')
  await page.getByRole('button', { name: 'Save' }).click()
  const stretch = page.getByRole('list', { name: 'Your habits' }).locator('.habit-item', { hasText: 'Stretch' })
  await stretch.getByText('Reminder 09:00').waitFor()
  const stored = await (await api(world, me.token, 'GET', `/api/v1/habits?avatarId=${me.userId}`)).json() as { items: { title: string; reminderTime: string | null }[] }
  expect(stored.items.find((h) => h.title === 'Stretch')?.reminderTime).toBe('09:00')

  await open(page, 'Today')
  await page.getByRole('list', { name: 'Due habits' }).locator('.habit-title', { hasText: 'Stretch' }).waitFor()
  await page.getByRole('list', { name: 'Done habits' }).locator('.habit-title', { hasText: 'Read' }).waitFor()

  // 09:00 local is the next full hour but one, in UTC too (the zone is whole hours off).
  const nine = Math.floor(clock.now().getTime() / HOUR) * HOUR + 2 * HOUR
  // A minute early: nothing.
  clock.set(new Date(nine - 60_000))
  await world.app.runJob(REMINDERS_JOB)
  await world.app.settle()
  await page.waitForTimeout(500)
  expect(await bell.getAttribute('aria-label')).toBe('Inbox, 0 unread')

  // At its time: one reminder, for Stretch only.
  clock.set(new Date(nine + 30_000))
  await world.app.runJob(REMINDERS_JOB)
  await world.app.settle()
  await expect.poll(() => page.getByTestId('unread-count').textContent()).toBe('1')
  await expect.poll(() => shown(page)).toEqual([expect.objectContaining({ title: 'Reminder', body: 'Still to do: Stretch.' })])
  await page.getByRole('status').filter({ hasText: 'Reminder: Still to do: Stretch.' }).waitFor()
  await bell.click()
  const items = page.getByRole('dialog', { name: 'Inbox' }).getByRole('list', { name: 'Notifications' }).getByRole('listitem')
  await expect.poll(() => items.count()).toBe(1)
  expect(await items.first().textContent()).toContain('Still to do: Stretch.')

  // The job again: not twice.
  clock.set(new Date(nine + 90_000))
  await world.app.runJob(REMINDERS_JOB)
  await world.app.settle()
  await page.waitForTimeout(500)
  expect(await bell.getAttribute('aria-label')).toBe('Inbox, 1 unread')
  expect(await shown(page)).toHaveLength(1)
})
