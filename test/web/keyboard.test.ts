/**
 * The keyboard alone (Tab, Shift+Tab, Enter, Space and typing; no click): register, create a habit,
 * check it in on Today, buy an item in the Market and attack in a battle, with a visible focus
 * indicator on every control reached; and the inbox keeping focus inside until Escape returns it.
 */
import type { Locator, Page } from 'playwright-core'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { api, PHONE, session, startWorld, type WebWorld } from './support/browser.js'

let world: WebWorld
beforeAll(async () => {
  world = await startWorld()
})
afterAll(() => world?.close())

/** The most presses it takes to reach a control (the Market's catalog is the longest way). */
const MAX_PRESSES = 120

/** The page's document, as the test's code sees it (it is type-checked without the DOM library). */
interface Doc { activeElement: unknown }

// Runs in the page: only what the function itself names reaches it.
const isFocused = (target: Locator) => target.evaluate((el) => el === (globalThis as unknown as { document: Doc }).document.activeElement, undefined, { timeout: 2_000 }).catch(() => false)

/** The focused element's ring: its outline or box shadow (or, for a hidden radio, its label's). */
const focusRing = (page: Page) => page.evaluate<boolean>(`(() => {
  const el = document.activeElement
  const shown = (e) => {
    const s = getComputedStyle(e)
    return (s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) > 0) || s.boxShadow !== 'none'
  }
  return shown(el) || (el.closest('label') !== null && shown(el.closest('label')))
})()`)

/** Tab (or Shift+Tab) until `target` has the focus, then asserts that the focus shows. */
async function tabTo(page: Page, target: Locator, key: 'Tab' | 'Shift+Tab' = 'Tab') {
  await target.waitFor()
  for (let i = 0; i < MAX_PRESSES && !(await isFocused(target)); i++) await page.keyboard.press(key)
  expect(await isFocused(target), `${target} reached by ${key}`).toBe(true)
  expect(await focusRing(page), `${target} shows its focus`).toBe(true)
}

async function typeInto(page: Page, field: Locator, text: string) {
  await tabTo(page, field)
  await page.keyboard.type(text)
}

async function goTo(page: Page, screen: string) {
  await tabTo(page, page.getByRole('navigation', { name: 'Screens' }).getByRole('link', { name: screen }))
  await page.keyboard.press('Enter')
  await page.getByRole('link', { name: screen, exact: true }).and(page.locator('[aria-current="page"]')).waitFor()
}

test('register, create a habit, check it in, buy an item and attack, by keyboard alone', async () => {
  const page = await world.player(PHONE)
  await page.goto('/register')
  await typeInto(page, page.getByLabel('Hero name'), 'Keys')
  await typeInto(page, page.getByLabel('Email'), `keys-${Math.random().toString(36).slice(2)}@example.com`)
  await typeInto(page, page.getByLabel('Password'), 'correct horse battery')
  await tabTo(page, page.getByRole('button', { name: 'Create account' }))
  await page.keyboard.press('Enter')
  await page.getByRole('region', { name: 'Your hero' }).waitFor()
  const me = await session(page)

  // The skip link is the first stop and leads into the screen.
  await tabTo(page, page.getByRole('link', { name: 'Skip to content' }), 'Shift+Tab')

  await goTo(page, 'Habits')
  // With no habit yet the form is open already.
  await typeInto(page, page.getByLabel('Title'), 'Stretch')
  await tabTo(page, page.getByRole('button', { name: 'Create habit' }))
  await page.keyboard.press('Enter')
  await page.getByRole('list', { name: 'Your habits' }).locator('.habit-title', { hasText: 'Stretch' }).waitFor()

  await goTo(page, 'Today')
  await tabTo(page, page.getByRole('button', { name: 'Complete Stretch' }))
  await page.keyboard.press('Space')
  await page.getByRole('list', { name: 'Done habits' }).getByText('Stretch').waitFor()

  await goTo(page, 'Market')
  const affordable = page.locator('.item:has(button.primary:not([disabled])):has(.price:not(.short))').first()
  const name = (await affordable.locator('.item-name').textContent())!
  await tabTo(page, page.getByRole('button', { name: `Buy ${name}` }).first())
  await page.keyboard.press('Enter')
  await page.getByText(`Bought ${name}`).first().waitFor()

  // Arranged through the API: a guild of one and a battle under way.
  const { id: guildId } = await (await api(world, me.token, 'POST', '/api/v1/guilds', { name: 'Keyboard Club', creatorAvatarId: me.userId, creatorNickname: 'Keys' })).json() as { id: string }
  await api(world, me.token, 'POST', '/api/v1/battles', { guildId, bossType: 'GOBLIN', requesterId: me.userId })
  await goTo(page, 'Battle')
  await tabTo(page, page.getByRole('button', { name: 'Attack' }))
  await page.keyboard.press('Enter')
  await expect.poll(() => page.getByTestId('attack-result').textContent()).toMatch(/^Turn 1: you dealt \d+ damage\./)
}, 300_000)

test('the inbox keeps the focus inside while open, and Escape returns it to the bell', async () => {
  const page = await world.player(PHONE)
  await page.goto('/register')
  await typeInto(page, page.getByLabel('Hero name'), 'Bell')
  await typeInto(page, page.getByLabel('Email'), `bell-${Math.random().toString(36).slice(2)}@example.com`)
  await typeInto(page, page.getByLabel('Password'), 'correct horse battery')
  await page.keyboard.press('Enter')
  await page.getByRole('region', { name: 'Your hero' }).waitFor()

  const bell = page.getByRole('button', { name: /^Inbox/ })
  await tabTo(page, bell)
  await page.keyboard.press('Enter')
  const inbox = page.getByRole('dialog', { name: 'Inbox' })
  await inbox.waitFor()
  const inside = () => inbox.evaluate((el) => el.contains((globalThis as unknown as { document: Doc }).document.activeElement as never))
  await expect.poll(inside).toBe(true)
  for (let i = 0; i < 8; i++) {
    await page.keyboard.press(i % 2 ? 'Shift+Tab' : 'Tab')
    await page.keyboard.press('Tab')
    expect(await inside()).toBe(true)
    expect(await focusRing(page)).toBe(true)
  }
  await page.keyboard.press('Escape')
  await inbox.waitFor({ state: 'detached' })
  expect(await isFocused(bell)).toBe(true)
})
