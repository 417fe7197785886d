/**
 * A fair day in the browser (DESIGN §9.3): the heat map shows what became of each window (a rest
 * day not due, a missed day a streak freeze took), freezes on Today and the Hero, the Settings
 * screen (a day start, a vacation, and the server's words for one too long), and a habit done
 * three times a week, made in the form, that counts 1/3 and waits for tomorrow.
 */
import { afterAll, beforeAll, expect, test } from 'vitest'
import { MISSED_WINDOWS_JOB } from '../../src/contexts/tracking/index.js'
import { ManualClock } from '../../src/platform/clock.js'
import { addDays, DAY_MS, weekdayOf } from '../../src/platform/time/index.js'
import { api, open, registerInUi, screenshots, session, startWorld, type WebWorld } from './support/browser.js'

// The server's clock is the test's; it stays at the real time (the browser's) but where a test moves it.
const clock = new ManualClock(new Date())
let world: WebWorld
beforeAll(async () => {
  world = await startWorld({}, { clock })
})
afterAll(() => world?.close())

const utcDate = (ms: number) => new Date(ms).toISOString().slice(0, 10)
const crystal = { type: 'CONSUMABLE', name: 'Ice Crystal', description: 'Holds one day still', power: 1, effect: 'FREEZE' }

test('the heat map shows a rest day not due and a missed day a freeze took; freezes show on Today and the Hero', async () => {
  // Three days ago (the avatar's zone is UTC): an account, a daily habit resting the next day, and a freeze held.
  const real = Date.now()
  clock.set(new Date(real - 3 * DAY_MS))
  const email = `web-${Math.random().toString(36).slice(2)}@example.com`
  const registered = await fetch(`${world.baseUrl}/auth/register`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'Frosty', email, password: 'correct horse battery' }),
  })
  expect(registered.status).toBe(200)
  const then = await registered.json() as { token: string; userId: string }
  const first = utcDate(real - 3 * DAY_MS)
  const rest = addDays(first, 1), missed = addDays(first, 2)
  await api(world, then.token, 'POST', '/api/v1/habits', { avatarId: then.userId, title: 'Stretch', recurrenceType: 'DAILY', restDays: [weekdayOf(rest)] })
  await api(world, then.token, 'POST', `/api/v1/avatars/${then.userId}/inventory/items`, crystal)
  await api(world, then.token, 'POST', `/api/v1/avatars/${then.userId}/inventory/items/use`, { name: crystal.name })

  // Now: the job judges the two days since the first (which never penalises).
  clock.set(new Date())
  await world.app.runJob(MISSED_WINDOWS_JOB)
  await world.app.settle()

  const page = await world.player()
  await page.goto('/login')
  await page.getByLabel('Email').fill(email)
  await page.getByLabel('Password').fill('correct horse battery')
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.getByRole('region', { name: 'Your hero' }).waitFor()
  // The freeze took the missed day's damage.
  await expect.poll(() => page.getByTestId('freezes').textContent()).toBe(' 0/2')
  expect(await page.getByRole('progressbar', { name: 'Health' }).getAttribute('aria-valuenow')).toBe('100')

  await open(page, 'Habits')
  await page.getByRole('button', { name: 'History of Stretch' }).click()
  const cell = (day: string) => page.locator(`.heatmap .cell[data-day="${day}"]`)
  await expect.poll(() => cell(rest).getAttribute('data-status')).toBe('NOT_DUE')
  await expect.poll(() => cell(missed).getAttribute('data-status')).toBe('FROZEN')
  expect(await cell(missed).getAttribute('title')).toBe(`${missed}: frozen (a streak freeze took it)`)
  await screenshots(page, 'habits-windows')

  // Another Ice Crystal, used on the Hero screen.
  await api(world, (await session(page)).token, 'POST', `/api/v1/avatars/${then.userId}/inventory/items`, crystal)
  await open(page, 'Hero')
  await page.getByRole('button', { name: 'Use Ice Crystal' }).click()
  await page.getByRole('status').filter({ hasText: 'Used Ice Crystal: streak freezes 1/2.' }).waitFor()
  await expect.poll(() => page.getByTestId('freezes').textContent()).toBe(' 1/2')
  await page.context().close()
})

test('the settings screen saves a day start and a vacation, and shows why a vacation is refused', async () => {
  const page = await world.player()
  const me = await registerInUi(page, 'Planner')
  await open(page, 'Settings')
  await page.getByText('Changes apply from tomorrow').waitFor()
  expect(await page.getByLabel('Time zone').inputValue()).toBe('UTC')

  await page.getByLabel('Day starts at').selectOption('4')
  await page.getByRole('button', { name: 'Save day settings' }).click()
  await page.getByRole('status').filter({ hasText: 'Your day saved' }).waitFor()

  // A vacation starts tomorrow by default; 100 days is refused in the server's words.
  await page.getByRole('switch', { name: 'Going on vacation' }).check()
  const from = await page.getByLabel('From', { exact: true }).inputValue()
  expect(from).toBe(addDays(utcDate(Date.now()), 1))
  await page.getByLabel('To', { exact: true }).fill(addDays(from, 99))
  await page.getByRole('button', { name: 'Save vacation' }).click()
  await page.getByRole('alert').filter({ hasText: 'A vacation lasts at most 90 days.' }).waitFor()
  await page.getByLabel('To', { exact: true }).fill(addDays(from, 6))
  await page.getByRole('button', { name: 'Save vacation' }).click()
  await page.getByTestId('vacation-saved').waitFor()
  await screenshots(page, 'settings')

  const settings = await (await api(world, me.token, 'GET', `/api/v1/avatars/${me.userId}/settings`)).json()
  expect(settings).toEqual({ timeZone: 'UTC', dayStartHour: 4, vacation: { from, to: addDays(from, 6) } })
  await page.context().close()
})

test('a habit done three times a week, made in the form, shows 1/3 after one completion and waits for tomorrow', async () => {
  const page = await world.player()
  await registerInUi(page, 'Swimmer')
  await open(page, 'Habits')
  await page.getByLabel('Title').fill('Swim')
  await page.getByRole('radio', { name: 'Times a week' }).check()
  await page.getByRole('combobox', { name: 'Times a week' }).selectOption('3')
  await page.getByRole('button', { name: 'Create habit' }).click()
  await page.getByRole('list', { name: 'Your habits' }).getByText('3 times a week').waitFor()

  await open(page, 'Today')
  await page.getByRole('list', { name: 'Due habits' }).getByLabel('0 of 3 this week').waitFor()
  await page.getByRole('button', { name: 'Complete Swim' }).click()
  await page.getByRole('status').filter({ hasText: 'Swim done: +10 XP' }).waitFor()
  const done = page.getByRole('list', { name: 'Done habits' })
  await done.getByLabel('1 of 3 this week').waitFor()
  expect(await done.getByTestId('week-progress').textContent()).toBe('1/3 this week')
  await screenshots(page, 'today-times-per-week')
  await page.context().close()
})
