/**
 * WCAG 2.2 AA by axe-core on every screen, in the light and the dark scheme, at phone and desktop
 * size; the Settings switch pinning a theme over the system's; and reduced motion stopping every
 * animation and transition. One world and one player, arranged once; the pages are reused.
 */
import { AxeBuilder } from '@axe-core/playwright'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { api, DESKTOP, open, PHONE, registerInUi, screenshots, startWorld, type Signed, type WebWorld } from './support/browser.js'

/** What a screen needs to be shown in full before it is checked: a new screen is one line here. */
interface Screen {
  name: string
  path: string
  signedOut?: boolean
  /** Waits for the screen's content (and opens what it shows only on demand). */
  ready: (page: Page) => Promise<unknown>
}

const SCREENS: Screen[] = [
  { name: 'sign-in', path: '/login', signedOut: true, ready: (p) => p.getByRole('button', { name: 'Sign in' }).waitFor() },
  { name: 'register', path: '/register', signedOut: true, ready: (p) => p.getByRole('button', { name: 'Create account' }).waitFor() },
  { name: 'Today', path: '/', ready: (p) => p.locator('.habit-row', { hasText: 'Run' }).waitFor() },
  { name: 'Habits', path: '/habits', ready: openHabitFormAndStats },
  { name: 'Hero', path: '/character', ready: (p) => p.getByRole('list', { name: 'Experience board around you' }).locator('li').first().waitFor() },
  { name: 'Market', path: '/market', ready: (p) => p.locator('.item').first().waitFor() },
  { name: 'Guild', path: '/guild', ready: (p) => p.getByRole('list', { name: 'Members' }).waitFor().then(() => p.getByRole('heading', { name: 'Guild chat' }).waitFor()) },
  { name: 'Battle', path: '/battle', ready: (p) => p.getByRole('button', { name: 'Attack' }).waitFor() },
  { name: 'League', path: '/league', ready: (p) => p.getByRole('table').locator('tr[aria-current="true"]').waitFor() },
  { name: 'Quests', path: '/quests', ready: openQuestForm },
  { name: 'Settings', path: '/settings', ready: (p) => p.getByRole('radiogroup', { name: 'Theme' }).waitFor() },
  { name: 'inbox', path: '/', ready: openInbox },
  { name: 'not found', path: '/no-such-screen', ready: (p) => p.getByRole('heading', { name: 'Nothing here' }).waitFor() },
]

const WCAG_22_AA = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa']

async function openHabitFormAndStats(page: Page) {
  await page.getByRole('button', { name: 'New habit' }).click()
  await page.getByLabel('Title').waitFor()
  await page.getByRole('button', { name: 'History of Run' }).click()
  await page.getByTestId('habit-stats').waitFor()
}

async function openQuestForm(page: Page) {
  await page.getByRole('button', { name: 'New quest' }).click()
  await page.getByLabel('Quest name').waitFor()
}

async function openInbox(page: Page) {
  await page.getByRole('button', { name: /^Inbox/ }).click()
  const inbox = page.getByRole('dialog', { name: 'Inbox' })
  await inbox.locator('.notification').first().or(inbox.getByText(/^Nothing yet/)).waitFor()
}

let world: WebWorld
let me: Signed
/** The same two pages for every check: signed out and signed in. */
let guest: Page
let player: Page

beforeAll(async () => {
  world = await startWorld()
})
afterAll(() => world?.close())

/** The player and their world, arranged by the first test that needs them (registering expects a running test). */
let arranging: Promise<void> | undefined
const arranged = () => (arranging ??= arrange())

async function arrange() {
  guest = await world.player(PHONE)
  player = await world.player(PHONE)
  me = await registerInUi(player, 'Ada')
  // Through the API: a habit done today and one to do, a guild with a battle under way.
  const habit = await (await api(world, me.token, 'POST', '/api/v1/habits', { avatarId: me.userId, title: 'Run', recurrenceType: 'DAILY' })).json() as { id: string }
  await api(world, me.token, 'POST', `/api/v1/habits/${habit.id}/attend`, { date: new Date().toISOString().slice(0, 19) })
  await api(world, me.token, 'POST', '/api/v1/habits', { avatarId: me.userId, title: 'Read', recurrenceType: 'DAILY' })
  const { id: guildId } = await (await api(world, me.token, 'POST', '/api/v1/guilds', { name: 'Order of Light', creatorAvatarId: me.userId, creatorNickname: 'Ada' })).json() as { id: string }
  await api(world, me.token, 'POST', '/api/v1/battles', { guildId, bossType: 'GOBLIN', requesterId: me.userId })
}
/** axe's findings on the page as it is: `rule: target (summary)`, one a line. */
async function violations(page: Page, where: string): Promise<string[]> {
  const { violations: found } = await new AxeBuilder({ page }).withTags(WCAG_22_AA).analyze()
  return found.flatMap((v) => v.nodes.map((n) => `${where} — ${v.id}: ${n.target.join(' ')} (${n.failureSummary?.split('\n')[1]?.trim() ?? v.help})`))
}

const SCHEMES = ['light', 'dark'] as const
const SIZES = [PHONE, DESKTOP]

/** The screen in both schemes at both sizes, loaded once: the scheme and the size change in place. */
for (const screen of SCREENS) {
  test(`${screen.name}: no WCAG 2.2 AA violation in the light and the dark scheme, on a phone and a desktop`, async () => {
    await arranged()
    const page = screen.signedOut ? guest : player
    await page.setViewportSize(PHONE)
    await page.emulateMedia({ colorScheme: 'light' })
    await page.goto(screen.path)
    await screen.ready(page)
    const found: string[] = []
    for (const scheme of SCHEMES) {
      for (const size of SIZES) {
        await page.emulateMedia({ colorScheme: scheme })
        await page.setViewportSize(size)
        found.push(...await violations(page, `${screen.name} ${scheme} ${size.width}px`))
      }
    }
    expect(found).toEqual([])
  })
}

const background = (page: Page) => page.evaluate<string>('getComputedStyle(document.documentElement).backgroundColor')

test('the Settings switch pins a theme over the system scheme, remembered from the first paint on', async () => {
  await arranged()
  await player.setViewportSize(PHONE)
  await player.emulateMedia({ colorScheme: 'dark' })
  await player.goto('/settings')
  const darkBackground = await background(player)
  await player.getByRole('radio', { name: 'Light' }).check()
  await expect.poll(() => player.evaluate<string | undefined>('document.documentElement.dataset.theme')).toBe('light')
  const lightBackground = await background(player)
  expect(lightBackground).not.toBe(darkBackground)
  expect(await violations(player, 'Settings, Light pinned over a dark system')).toEqual([])

  // Remembered, and painted before the app runs: with its script held back the page is light already.
  await player.route('**/assets/*.js', (route) => route.abort())
  await player.goto('/')
  expect(await background(player)).toBe(lightBackground)
  await player.unroute('**/assets/*.js')
  await player.goto('/')
  await player.getByRole('region', { name: 'Your hero' }).waitFor()
  expect(await violations(player, 'Today, Light pinned over a dark system')).toEqual([])
  await screenshots(player, 'theme-light-today')
  await open(player, 'Hero')
  await screenshots(player, 'theme-light-hero')
  await open(player, 'Battle')
  await player.getByRole('button', { name: 'Attack' }).waitFor()
  await screenshots(player, 'theme-light-battle')

  await open(player, 'Settings')
  await player.getByRole('radio', { name: 'Dark' }).check()
  await player.emulateMedia({ colorScheme: 'light' })
  expect(await background(player)).toBe(darkBackground)
  expect(await violations(player, 'Settings, Dark pinned over a light system')).toEqual([])
  await open(player, 'Today')
  await screenshots(player, 'theme-dark-today')
  await open(player, 'Hero')
  await screenshots(player, 'theme-dark-hero')
  await open(player, 'Battle')
  await player.getByRole('button', { name: 'Attack' }).waitFor()
  await screenshots(player, 'theme-dark-battle')

  // System again: the page follows the scheme the system reports.
  await open(player, 'Settings')
  await player.getByRole('radio', { name: 'System' }).check()
  expect(await background(player)).toBe(lightBackground)
  expect(await player.evaluate<string | null>("localStorage.getItem('questline.theme')")).toBeNull()
})

test('with reduced motion nothing animates or transitions', async () => {
  await arranged()
  const page = await world.player(PHONE)
  await page.emulateMedia({ reducedMotion: 'reduce' })
  await page.goto('/login')
  await page.evaluate(`localStorage.setItem('questline.session', ${JSON.stringify(await player.evaluate<string>("localStorage.getItem('questline.session')"))})`)
  // Every element whose animation or transition lasts longer than 0.01s: `tag.class: seconds`.
  const moving = () => page.evaluate<string[]>(`[...document.querySelectorAll('*')].flatMap((el) => {
    const style = getComputedStyle(el)
    const longest = (list) => Math.max(...list.split(',').map((d) => parseFloat(d) * (d.trim().endsWith('ms') ? 0.001 : 1)))
    const seconds = Math.max(longest(style.animationDuration), longest(style.transitionDuration))
    const named = style.animationName !== 'none' || style.transitionProperty !== 'none'
    return seconds > 0.01 && named ? [el.tagName.toLowerCase() + '.' + el.className + ': ' + seconds + 's'] : []
  })`)
  for (const screen of SCREENS.filter((s) => !s.signedOut)) {
    await page.goto(screen.path)
    await screen.ready(page)
    expect(await moving(), screen.name).toEqual([])
  }
  // Without the preference the bars do move: the check above can fail.
  await page.emulateMedia({ reducedMotion: 'no-preference' })
  await page.goto('/character')
  await SCREENS.find((s) => s.name === 'Hero')!.ready(page)
  expect(await moving()).not.toEqual([])
})
