/**
 * The web app goes live (DESIGN §9.2): the screens follow the player's stream, not a poll. Two
 * guildmates on the Battle screen see each other's blows at once; a habit completed elsewhere
 * shows its reward on Today without a reload; the bell counts a notification as it arrives (a
 * reminder or an invite also as a browser notification); after a restart of the server the page
 * says it is offline, comes back by itself and replays what it missed.
 */
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, expect, test } from 'vitest'
import {
  api, asked, DESKTOP, open, PHONE, recordNotifications, registerInUi, screenshots, shown, startWorld, streaming, type Signed, type WebWorld,
} from './support/browser.js'

let world: WebWorld
beforeAll(async () => {
  world = await startWorld()
})
afterAll(() => world?.close())

const json = async <T>(res: Response) => (await res.json()) as T

/** A guild of `lead` that `member` has joined (by invite), arranged through the API. */
async function guildOf(lead: Signed, member: Signed): Promise<string> {
  const name = `Live ${Math.random().toString(36).slice(2, 8)}`
  const { id } = await json<{ id: string }>(await api(world, lead.token, 'POST', '/api/v1/guilds', { name, creatorAvatarId: lead.userId, creatorNickname: lead.name }))
  await api(world, lead.token, 'POST', `/api/v1/guilds/${id}/invites`, { requestorId: lead.userId, targetAvatarId: member.userId })
  const { items } = await json<{ items: { id: string }[] }>(await api(world, member.token, 'GET', `/api/v1/avatars/${member.userId}/invites`))
  await api(world, member.token, 'POST', `/api/v1/guilds/${id}/invites/${items[0]!.id}/accept`, { avatarId: member.userId, nickname: member.name })
  return id
}

/** A sword of power 50, equipped (the open economy). */
async function armWithSword(p: Signed) {
  const sword = { type: 'WEAPON', name: 'Training Sword', description: 'Heavier than it looks', power: 50 }
  await api(world, p.token, 'POST', `/api/v1/avatars/${p.userId}/inventory/items`, sword)
  await api(world, p.token, 'POST', `/api/v1/avatars/${p.userId}/inventory/items/equip`, { type: sword.type, name: sword.name })
}

/** Whether the page is the one loaded at the start (not reloaded or navigated away since). */
const markPage = (page: Page) => page.evaluate('window.__sameDocument = true')
const samePage = (page: Page) => page.evaluate<boolean>('window.__sameDocument === true')

test("a guildmate's blow shows on the other member's battle screen within a second, without a poll", async () => {
  const leadPage = await world.player(DESKTOP)
  const lead = await registerInUi(leadPage, 'Watcher')
  const friendPage = await world.player(PHONE)
  const friend = await registerInUi(friendPage, 'Striker')
  const guildId = await guildOf(lead, friend)
  await armWithSword(friend)
  await api(world, lead.token, 'POST', '/api/v1/battles', { guildId, bossType: 'GOBLIN', requesterId: lead.userId })

  await world.app.settle()
  await streaming(leadPage)
  await open(leadPage, 'Battle')
  await open(friendPage, 'Battle')
  const bossHealth = leadPage.getByRole('progressbar', { name: 'Boss health' })
  await expect.poll(() => bossHealth.getAttribute('aria-valuenow')).toBe('150')
  await expect.poll(() => leadPage.getByTestId('turns').textContent()).toBe('Turn 0 of 12')
  // Idle, the watcher's page asks nothing of the server: no poll.
  const reads: string[] = []
  leadPage.on('request', (r) => {
    if (r.url().includes('/api/v1/battles')) reads.push(r.url())
  })
  await leadPage.waitForTimeout(2_500)
  expect(reads).toEqual([])

  // Attack = strength 10 + sword 50; the goblin's defense is 2: 58 a blow (150 → 92).
  const answered = friendPage.waitForResponse((r) => r.url().endsWith('/damage') && r.request().method() === 'POST')
  await friendPage.getByRole('button', { name: 'Attack' }).click()
  await answered
  const at = Date.now()
  await leadPage.waitForFunction(`document.querySelector('[role="progressbar"][aria-label="Boss health"]')?.getAttribute('aria-valuenow') === '92'`,
    undefined, { timeout: 5_000, polling: 20 })
  const delay = Date.now() - at
  expect(delay, `the watcher saw the blow ${delay} ms after the attack was answered`).toBeLessThanOrEqual(1_000)
  // From the stream, not a reading of the battle.
  expect(reads).toEqual([])
  await expect.poll(() => leadPage.getByTestId('turns').textContent()).toBe('Turn 1 of 12')
  const striker = leadPage.getByRole('list', { name: 'Fighters' }).locator('.row-item', { hasText: 'Striker' })
  await expect.poll(() => striker.textContent()).toContain('58 dmg · 1 hits')
  await screenshots(leadPage, 'battle-live')

  // The blow that wins: both screens end the battle, and the watcher is paid.
  await friendPage.getByRole('button', { name: 'Attack' }).click()
  await expect.poll(() => bossHealth.getAttribute('aria-valuenow')).toBe('34')
  await friendPage.getByRole('button', { name: 'Attack' }).click()
  await leadPage.getByText('Victory!').waitFor()
  await friendPage.getByText('Victory!').waitFor()
  await leadPage.getByRole('status').filter({ hasText: 'Victory over Goblin Chief: +50 XP, +25 gold' }).waitFor()
})

test('a habit completed elsewhere shows on Today with its reward, without a reload', async () => {
  const page = await world.player()
  const me = await registerInUi(page, 'Elsewhere')
  await markPage(page)
  await page.getByText('No habits yet.').waitFor()
  await streaming(page)

  // Created through the API (another device): it appears among the due habits.
  const { id } = await json<{ id: string }>(await api(world, me.token, 'POST', '/api/v1/habits', { avatarId: me.userId, title: 'Floss', recurrenceType: 'DAILY' }))
  const due = page.getByRole('list', { name: 'Due habits' })
  await due.locator('.habit-title', { hasText: 'Floss' }).waitFor()

  // Completed through the API: the reward shows, the habit moves to done.
  const habit = await json<{ timeZone: string }>(await api(world, me.token, 'GET', `/api/v1/habits/${id}`))
  const date = new Intl.DateTimeFormat('sv-SE', { timeZone: habit.timeZone, dateStyle: 'short', timeStyle: 'medium' }).format(Date.now()).replace(' ', 'T')
  await api(world, me.token, 'POST', `/api/v1/habits/${id}/attend`, { date })
  await page.getByRole('status').filter({ hasText: 'Floss done: +10 XP, +2 gold' }).waitFor()
  await expect.poll(() => page.getByRole('progressbar', { name: 'Experience' }).getAttribute('aria-valuenow')).toBe('10')
  await expect.poll(() => page.getByTestId('money').textContent()).toContain('102 gold')
  await page.getByRole('list', { name: 'Done habits' }).locator('.habit-title', { hasText: 'Floss' }).waitFor()
  expect(await samePage(page)).toBe(true)
})

test('the bell counts notifications as they arrive; an invite is also a browser notification; the inbox reads, marks and pages', async () => {
  const page = await world.player(DESKTOP)
  await recordNotifications(page, 'granted')
  const me = await registerInUi(page, 'Belle')
  await streaming(page)
  const bell = page.getByRole('button', { name: /^Inbox/ })
  await expect.poll(() => bell.getAttribute('aria-label')).toBe('Inbox, 0 unread')

  // 21 level-ups (a notification each), arranged through the API: the count follows.
  for (let level = 1; level <= 21; level++) {
    // Level L needs 50·L + 50 experience to leave.
    await api(world, me.token, 'POST', `/api/v1/avatars/${me.userId}/experience/grant`, { amount: 50 * level + 50 })
  }
  await expect.poll(() => page.getByTestId('unread-count').textContent()).toBe('21')
  expect(await shown(page)).toEqual([]) // a level-up is not worth a browser notification
  // Opened afresh, the inbox shows a page of 20.
  await page.reload()
  await streaming(page)
  await expect.poll(() => page.getByTestId('unread-count').textContent()).toBe('21')

  // The first opening of the bell asks the browser's permission; the second does not.
  await bell.click()
  const inbox = page.getByRole('dialog', { name: 'Inbox' })
  const items = inbox.getByRole('list', { name: 'Notifications' }).getByRole('listitem')
  await expect.poll(() => items.count()).toBe(20)
  expect(await asked(page)).toBe(1)
  await page.keyboard.press('Escape')
  await inbox.waitFor({ state: 'detached' })

  // An invite: the count rises, the browser shows it, and it is on top of the inbox.
  const inviter = await json<{ token: string; userId: string }>(await fetch(`${world.baseUrl}/auth/register`, {
    method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Inviter', email: `inviter-${Math.random().toString(36).slice(2)}@example.com`, password: 'correct horse battery' }),
  }))
  const guildName = `Bellringers ${Math.random().toString(36).slice(2, 8)}`
  const { id: guildId } = await json<{ id: string }>(await api(world, inviter.token, 'POST', '/api/v1/guilds', { name: guildName, creatorAvatarId: inviter.userId, creatorNickname: 'Inviter' }))
  await api(world, inviter.token, 'POST', `/api/v1/guilds/${guildId}/invites`, { requestorId: inviter.userId, targetAvatarId: me.userId })
  await expect.poll(() => page.getByTestId('unread-count').textContent()).toBe('22')
  await expect.poll(() => shown(page)).toEqual([expect.objectContaining({ title: 'Guild invite', body: `${guildName} invites you to join.` })])
  await page.getByRole('status').filter({ hasText: `Guild invite: ${guildName} invites you to join.` }).waitFor()

  await bell.click()
  await expect.poll(() => items.first().textContent()).toContain(`${guildName} invites you to join.`)
  expect(await asked(page)).toBe(1)
  await screenshots(page, 'inbox', { toasts: false })

  // Mark the invite read; page to the oldest; then mark everything read.
  await inbox.getByRole('button', { name: 'Mark read Guild invite' }).click()
  await expect.poll(() => page.getByTestId('unread-count').textContent()).toBe('21')
  await inbox.getByRole('button', { name: 'Show older' }).click()
  await expect.poll(() => items.count()).toBe(22)
  await expect.poll(() => items.last().textContent()).toContain('Level 2!')
  await inbox.getByRole('button', { name: 'Mark all read' }).click()
  await page.getByTestId('unread-count').waitFor({ state: 'detached' })
  expect(await bell.getAttribute('aria-label')).toBe('Inbox, 0 unread')
  const after = await json<{ unreadCount: number }>(await api(world, me.token, 'GET', `/api/v1/avatars/${me.userId}/notifications?limit=1`))
  expect(after.unreadCount).toBe(0)

  // The invite's title leads to the Guild screen.
  await inbox.getByRole('link', { name: 'Guild invite' }).click()
  await expect.poll(() => page.url()).toMatch(/\/guild$/)
  await page.getByRole('list', { name: 'Your invites' }).getByText(guildName, { exact: true }).waitFor()
})

test('a page whose permission request was dismissed is not asked again unprompted, and can turn notifications on', async () => {
  const page = await world.player()
  await recordNotifications(page, 'default')
  await registerInUi(page, 'Undecided')
  const bell = page.getByRole('button', { name: /^Inbox/ })
  await bell.click()
  const inbox = page.getByRole('dialog', { name: 'Inbox' })
  await inbox.getByText('Nothing yet.').waitFor()
  await expect.poll(() => asked(page)).toBe(1)
  await page.keyboard.press('Escape')
  await page.reload()
  await bell.click()
  await inbox.getByRole('button', { name: 'Turn on' }).waitFor()
  expect(await asked(page)).toBe(0) // a new document: the recorder counts from 0, and nothing asked on opening
  await inbox.getByRole('button', { name: 'Turn on' }).click()
  await expect.poll(() => asked(page)).toBe(1)
})

test('after a server restart the page says it is offline, comes back by itself and replays what it missed', async () => {
  const page = await world.player()
  const me = await registerInUi(page, 'Survivor')
  await streaming(page)
  const { id } = await json<{ id: string }>(await api(world, me.token, 'POST', '/api/v1/habits', { avatarId: me.userId, title: 'Stretch', recurrenceType: 'DAILY' }))
  await page.getByRole('list', { name: 'Due habits' }).locator('.habit-title', { hasText: 'Stretch' }).waitFor()
  await markPage(page)

  // Down for a while: the page says so.
  let streamsOpened: string[] = []
  page.on('request', (r) => {
    if (r.url().includes('/stream?')) streamsOpened.push(r.url())
  })
  // Until told otherwise, the page's reconnects fail (so what follows happens while it is away).
  await page.route('**/stream-tickets', (route) => route.abort('connectionrefused'))
  await world.restart(500)
  await page.getByText('Offline — reconnecting…').waitFor({ timeout: 15_000 })
  await screenshots(page, 'offline')

  // While the page is away, the habit is completed on another device (a new token: the key changed).
  const login = await json<{ token: string }>(await fetch(`${world.baseUrl}/auth/login`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: me.email, password: 'correct horse battery' }),
  }))
  const habit = await json<{ timeZone: string }>(await api(world, login.token, 'GET', `/api/v1/habits/${id}`))
  const date = new Intl.DateTimeFormat('sv-SE', { timeZone: habit.timeZone, dateStyle: 'short', timeStyle: 'medium' }).format(Date.now()).replace(' ', 'T')
  await api(world, login.token, 'POST', `/api/v1/habits/${id}/attend`, { date })
  streamsOpened = []

  // The way is open again: the page reconnects by itself, from where it left off, and catches up.
  await page.unroute('**/stream-tickets')
  await page.getByText('Offline — reconnecting…').waitFor({ state: 'detached', timeout: 15_000 })
  expect(streamsOpened.length).toBeGreaterThan(0)
  expect(new URL(streamsOpened[0]!).searchParams.get('lastEventId')).toMatch(/^\d+$/)
  await page.getByRole('status').filter({ hasText: 'Stretch done: +10 XP, +2 gold' }).waitFor({ timeout: 5_000 })
  await expect.poll(() => page.getByRole('progressbar', { name: 'Experience' }).getAttribute('aria-valuenow')).toBe('10')
  await page.getByRole('list', { name: 'Done habits' }).locator('.habit-title', { hasText: 'Stretch' }).waitFor()
  expect(await samePage(page)).toBe(true)
})
