/**
 * A new player in a real browser: account errors, registration, a daily habit created and
 * completed with its reward shown, the habit edited with its history, archived and brought back, stats allocated, sign-out,
 * sign-in, and a token refreshed before it expires.
 */
import { afterAll, beforeAll, expect, test } from 'vitest'
import { api, DESKTOP, open, registerInUi, screenshots, session, startWorld, type WebWorld } from './support/browser.js'

let world: WebWorld
beforeAll(async () => {
  world = await startWorld()
})
afterAll(() => world?.close())

test('the sign-up form shows the API\'s field messages next to their fields', async () => {
  const page = await world.player()
  await page.goto('/')
  await expect.poll(() => page.url()).toMatch(/\/login$/) // signed out: every page is the sign-in page
  await page.getByRole('link', { name: 'Create an account' }).click()
  await page.getByLabel('Email').fill('not-an-email')
  await page.getByLabel('Password').fill('short')
  await page.getByRole('button', { name: 'Create account' }).click()
  await expect.poll(() => page.locator('.field', { hasText: 'Email' }).locator('.field-error').textContent()).toMatch(/email address/)
  await expect.poll(() => page.locator('.field', { hasText: 'Password' }).locator('.field-error').textContent()).toBe('At least 8 characters.')
  await expect.poll(() => page.locator('.field', { hasText: 'Hero name' }).locator('.field-error').textContent()).toBe('Required.')
  await screenshots(page, 'register-errors')

  // A wrong password at sign-in is said plainly.
  await page.getByRole('link', { name: 'Sign in' }).click()
  await page.getByLabel('Email').fill('nobody@example.com')
  await page.getByLabel('Password').fill('whatever-it-is')
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.getByText('That email and password do not match an account.').waitFor()
})

test('a new player creates a daily habit, completes it and sees experience rise', async () => {
  const page = await world.player()
  const me = await registerInUi(page, 'Sir Reginald Bartholomew of the Far Northern Marches Longname')
  const xp = page.getByRole('progressbar', { name: 'Experience' })
  expect(await xp.getAttribute('aria-valuenow')).toBe('0')
  await page.getByText('No habits yet.').waitFor()
  await screenshots(page, 'today-empty')

  // Create: daily, with tags; the title is required (the API's message, next to the field).
  await open(page, 'Habits')
  await page.getByRole('button', { name: 'Create habit' }).click()
  await page.locator('.field', { hasText: 'Title' }).getByText('Required.').waitFor()
  await page.getByLabel('Title').fill('Read 20 pages of a very long book about the history of everything')
  await page.getByLabel('Tags (comma-separated)').fill('mind, evening')
  await page.getByRole('button', { name: 'Create habit' }).click()
  await page.getByRole('list', { name: 'Your habits' }).locator('.habit-title', { hasText: 'Read 20 pages' }).waitFor()

  // Complete it on Today with one click: the reward arrives by event and is shown.
  await open(page, 'Today')
  await page.getByRole('button', { name: /^Complete Read 20 pages/ }).click()
  await page.getByRole('status').filter({ hasText: '+10 XP' }).waitFor()
  await expect.poll(() => xp.getAttribute('aria-valuenow')).toBe('10')
  await expect.poll(() => page.getByTestId('money').textContent()).toContain('102 gold')
  const done = page.getByRole('list', { name: 'Done habits' })
  await done.locator('.habit-title', { hasText: 'Read 20 pages' }).waitFor()
  expect(await done.getByLabel('Streak 1, best 1').count()).toBe(1)
  await screenshots(page, 'today', { toasts: true })

  // The reward came from the platform, not the page.
  const avatar = await (await fetch(`${world.baseUrl}/api/v1/avatars/${me.userId}`, { headers: { authorization: `Bearer ${(await session(page)).token}` } })).json()
  expect((avatar as { level: { currentExperience: number } }).level.currentExperience).toBe(10)

  // Edit: weekly on Friday; the history shows the completion.
  await open(page, 'Habits')
  await page.getByRole('button', { name: /^History of Read 20 pages/ }).click()
  await page.getByText('1 completion in the last year').waitFor()
  await page.getByRole('button', { name: /^Edit Read 20 pages/ }).click()
  await page.getByRole('radio', { name: 'Weekly' }).check()
  await page.getByLabel('Day of the week').selectOption('FRIDAY')
  await page.getByText('A new schedule starts the habit over').waitFor()
  await page.getByRole('button', { name: 'Save' }).click()
  await page.getByText('Weekly on Friday').waitFor()
  await page.getByRole('button', { name: /^History of Read 20 pages/ }).click()
  await page.getByText('1 completion in the last year').waitFor()
  await screenshots(page, 'habits')

  // Archive: out of play and off Today, kept in a collapsed "Archived" section with its history; then back in play.
  await page.getByRole('button', { name: /^Archive Read 20 pages/ }).click()
  await page.getByText('Every habit is archived.').waitFor()
  const showArchived = page.getByRole('button', { name: 'Show 1 archived habits' })
  expect(await showArchived.getAttribute('aria-expanded')).toBe('false')
  await showArchived.click()
  const shelf = page.getByRole('list', { name: 'Archived habits' })
  await shelf.locator('.habit-title', { hasText: 'Read 20 pages' }).waitFor()
  await shelf.getByRole('button', { name: /^History of Read 20 pages/ }).click()
  await page.getByText('1 completion in the last year').waitFor()
  await screenshots(page, 'habits-archived')
  await open(page, 'Today')
  await page.getByText('Every habit is archived.').waitFor()
  expect(await page.getByRole('button', { name: /^Complete Read 20 pages/ }).count()).toBe(0)
  await open(page, 'Habits')
  await page.getByRole('button', { name: 'Show 1 archived habits' }).click()
  await page.getByRole('button', { name: /^Unarchive Read 20 pages/ }).click()
  await page.getByRole('list', { name: 'Your habits' }).locator('.habit-title', { hasText: 'Read 20 pages' }).waitFor()
  expect(await page.getByRole('heading', { name: 'Archived' }).count()).toBe(0)

  // Stats: spend a point on strength; attack follows.
  await open(page, 'Hero')
  await expect.poll(() => page.getByTestId('unspent').textContent()).toBe('5 points to spend')
  await page.getByRole('button', { name: 'Raise Strength' }).click()
  await expect.poll(() => page.getByTestId('stat-strength').textContent()).toBe('11')
  await expect.poll(() => page.getByTestId('attack').textContent()).toBe('11')
  await expect.poll(() => page.getByTestId('unspent').textContent()).toBe('4 points to spend')
  await screenshots(page, 'hero')

  // Sign out, and back in: the rescheduled habit is due again.
  await page.getByRole('button', { name: 'Sign out' }).click()
  await expect.poll(() => page.url()).toMatch(/\/login$/)
  await page.getByLabel('Email').fill(me.email)
  await page.getByLabel('Password').fill('correct horse battery')
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.getByRole('list', { name: 'Due habits' }).locator('.habit-title', { hasText: 'Read 20 pages' }).waitFor()
})

test('an access token about to expire is refreshed before use, and the old refresh token is spent', async () => {
  const page = await world.player(DESKTOP)
  await registerInUi(page, 'Refresher')
  const before = await session(page)
  // Pretend the token expires in 10 s: the next request trades the refresh token first.
  await page.evaluate(`(() => { const s = JSON.parse(localStorage.getItem('questline.session')); s.expiresAt = Date.now() + 10000; localStorage.setItem('questline.session', JSON.stringify(s)) })()`)
  const refreshed = page.waitForResponse((r) => r.url().endsWith('/auth/refresh') && r.status() === 200)
  await page.reload()
  await refreshed
  await page.getByRole('region', { name: 'Your hero' }).waitFor()
  const after = await session(page)
  expect(after.refreshToken).not.toBe(before.refreshToken)
  expect(after.expiresAt).toBeGreaterThan(Date.now() + 30 * 60_000)
  const spent = await fetch(`${world.baseUrl}/auth/refresh`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ refreshToken: before.refreshToken }) })
  expect(spent.status).toBe(401)
})

test('a level-up is celebrated at once, and a death since the last visit is explained', async () => {
  const page = await world.player()
  const me = await registerInUi(page, 'Climber')
  // Arranged through the API (the open economy): 95 of the 100 experience level 1 needs, and a habit.
  await api(world, me.token, 'POST', `/api/v1/avatars/${me.userId}/experience/grant`, { amount: 95 })
  await api(world, me.token, 'POST', '/api/v1/habits', { avatarId: me.userId, title: 'Meditate', recurrenceType: 'DAILY' })
  await page.reload()
  const complete = page.getByRole('button', { name: 'Complete Meditate' })
  // Keyboard: the completion is a real button.
  await complete.focus()
  await page.keyboard.press('Enter')
  await page.getByRole('status').filter({ hasText: 'Level up! You are now level 2' }).waitFor()
  await page.getByRole('status').filter({ hasText: 'Meditate done: +10 XP, +22 gold' }) // 2 for the habit, 20 for the level.waitFor()
  await expect.poll(() => page.getByTestId('level').textContent()).toBe('Level 2')
  await expect.poll(() => page.getByRole('progressbar', { name: 'Experience' }).getAttribute('aria-valuenow')).toBe('5')
  await screenshots(page, 'today-level-up', { toasts: true })

  // Away from the page, the hero dies (here by the API; in play, missed habits or a boss).
  await open(page, 'Habits')
  await api(world, me.token, 'POST', `/api/v1/avatars/${me.userId}/health/damage`, { amount: 1000 })
  await open(page, 'Today')
  await page.getByText('You died since your last visit.').waitFor()
  await page.getByText('lost the experience of this level and a tenth of your money').waitFor()
  await expect.poll(() => page.getByRole('progressbar', { name: 'Experience' }).getAttribute('aria-valuenow')).toBe('0')
})

test('the hero equips and unequips a weapon, and drinks a potion', async () => {
  const page = await world.player()
  const me = await registerInUi(page, 'Gearhead')
  // Arranged through the API (the open economy): a sword, a potion, and a wound.
  await api(world, me.token, 'POST', `/api/v1/avatars/${me.userId}/inventory/items`, { type: 'WEAPON', name: 'Rusty Sword', description: 'Still sharp enough', power: 7 })
  await api(world, me.token, 'POST', `/api/v1/avatars/${me.userId}/inventory/items`, { type: 'CONSUMABLE', name: 'Small Health Potion', description: 'Restores 20 health', power: 20, effect: 'HEALTH' })
  await api(world, me.token, 'POST', `/api/v1/avatars/${me.userId}/health/damage`, { amount: 30 })

  await open(page, 'Hero')
  await expect.poll(() => page.getByTestId('attack').textContent()).toBe('10')
  await page.getByRole('button', { name: 'Equip Rusty Sword' }).click()
  await page.getByRole('list', { name: 'Equipped items' }).locator('.item-name', { hasText: 'Rusty Sword' }).waitFor()
  await expect.poll(() => page.getByTestId('attack').textContent()).toBe('17')

  const health = page.getByRole('progressbar', { name: 'Health' })
  await expect.poll(() => health.getAttribute('aria-valuenow')).toBe('70')
  await page.getByRole('button', { name: 'Use Small Health Potion' }).click()
  await page.getByRole('status').filter({ hasText: 'Used Small Health Potion: health 90/100' }).waitFor()
  await expect.poll(() => health.getAttribute('aria-valuenow')).toBe('90')
  await expect.poll(() => page.getByRole('list', { name: 'Inventory' }).locator('.item-name', { hasText: 'Small Health Potion' }).count()).toBe(0)
  await screenshots(page, 'hero-equipped')

  await page.getByRole('button', { name: 'Unequip Rusty Sword' }).click()
  await page.getByRole('list', { name: 'Inventory' }).locator('.item-name', { hasText: 'Rusty Sword' }).waitFor()
  await expect.poll(() => page.getByTestId('attack').textContent()).toBe('10')
})
