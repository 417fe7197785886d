/** A quest made in the browser, joined, and advanced by completing its habit on Today. */
import { afterAll, beforeAll, expect, test } from 'vitest'
import { open, registerInUi, screenshots, startWorld, type WebWorld } from './support/browser.js'

let world: WebWorld
beforeAll(async () => {
  world = await startWorld()
})
afterAll(() => world?.close())

test('a quest is created, joined, and progresses when its habit is completed', async () => {
  const page = await world.player()
  await registerInUi(page, 'Quester')
  await open(page, 'Quests')
  await page.getByRole('button', { name: 'New quest' }).click()
  await page.getByRole('button', { name: 'Create quest' }).click()
  await page.locator('.field', { hasText: 'Quest name' }).getByText('Required.').waitFor()
  await page.getByLabel('Quest name').fill('Morning routine for the whole week and then some more')
  await page.getByLabel('Duration').selectOption('P1D')
  await page.getByLabel('Habit 1').fill('Stretch for ten minutes')
  await page.getByRole('button', { name: 'Create quest' }).click()

  const open_ = page.getByRole('list', { name: 'Open quests' })
  await open_.getByRole('heading', { name: /^Morning routine/ }).waitFor()
  await page.getByRole('button', { name: /^Join Morning routine/ }).click()
  const mine = page.getByRole('list', { name: 'Your quests' })
  const progress = mine.getByTestId('quest-progress')
  await progress.waitFor()
  // P1D from now: one completion per daily window it overlaps (two, unless joined at midnight).
  const required = Number((await progress.getByRole('progressbar').getAttribute('aria-valuemax')) ?? 0)
  expect([1, 2]).toContain(required)
  expect(await progress.getByRole('progressbar').getAttribute('aria-valuenow')).toBe('0')

  // The quest's habit is on Today; completing it counts.
  await open(page, 'Today')
  const due = page.getByRole('list', { name: 'Due habits' })
  await due.locator('.habit-row', { hasText: 'Stretch for ten minutes' }).getByText('Quest').waitFor()
  await page.getByRole('button', { name: 'Complete Stretch for ten minutes' }).click()
  await page.getByRole('status').filter({ hasText: 'Stretch for ten minutes done: +10 XP' }).waitFor()

  await open(page, 'Quests')
  await expect.poll(() => mine.getByTestId('quest-progress').getByRole('progressbar').getAttribute('aria-valuenow'), { timeout: 10_000 }).toBe('1')
  await mine.getByRole('list', { name: 'Quest habits' }).getByText(`1 / ${required}`).waitFor()
  if (required === 1) await mine.getByText('Quest complete!').waitFor()
  await screenshots(page, 'quests')
})

test('a quest habit done twice a week is created through the form and shows its schedule', async () => {
  const page = await world.player()
  await registerInUi(page, 'Planner')
  await open(page, 'Quests')
  await page.getByRole('button', { name: 'New quest' }).click()
  await page.getByLabel('Quest name').fill('Gym fortnight')
  await page.getByLabel('Habit 1').fill('Lift weights')
  await page.getByLabel('Repeats').selectOption('TIMES_PER_WEEK')
  await page.getByLabel('Times a week').selectOption('2')
  await page.getByRole('button', { name: 'Create quest' }).click()

  const quest = page.getByRole('list', { name: 'Open quests' }).getByRole('listitem', { name: 'Gym fortnight' })
  await quest.getByRole('list', { name: 'Quest habits' }).getByRole('listitem').filter({ hasText: 'Lift weights' }).getByText('2 times a week').waitFor()
})
