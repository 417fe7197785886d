/**
 * "Around you" on the Hero screen (DESIGN §9.5): two players, the one with more experience above,
 * the viewer marked, and the rank as text; it follows the hero's own experience.
 */
import { afterAll, beforeAll, expect, test } from 'vitest'
import { api, open, registerInUi, screenshots, startWorld, type WebWorld } from './support/browser.js'

let world: WebWorld
beforeAll(async () => {
  world = await startWorld()
})
afterAll(() => world?.close())

test('the hero sees its neighbours by experience, itself marked and its rank in words', async () => {
  const rivalPage = await world.player()
  const rival = await registerInUi(rivalPage, 'Rival')
  await api(world, rival.token, 'POST', `/api/v1/avatars/${rival.userId}/experience/grant`, { amount: 500 })

  const page = await world.player()
  const me = await registerInUi(page, 'Climber')
  await open(page, 'Hero')
  const board = page.getByRole('list', { name: 'Experience board around you' })
  const mine = board.locator('li[aria-current="true"]')
  await mine.getByText('Climber').waitFor()
  await expect.poll(() => board.locator('li').allTextContents()).toEqual([
    expect.stringContaining('Rival'), expect.stringContaining('Climber (you)'),
  ])
  await expect.poll(() => page.getByTestId('board-rank').textContent()).toBe('You are #2 of 2')
  await screenshots(page, 'experience-board')

  // More experience than the rival: the hero moves to the top as the stream tells of the change.
  await api(world, me.token, 'POST', `/api/v1/avatars/${me.userId}/experience/grant`, { amount: 1000 })
  await expect.poll(() => page.getByTestId('board-rank').textContent()).toBe('You are #1 of 2')
  expect(await mine.textContent()).toContain('1,000 XP')
})
