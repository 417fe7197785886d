/**
 * Two players in two browsers: one founds a guild and invites the other by name, the invite is
 * accepted, roles change, and together they start a Goblin battle and win it, seeing each
 * attack's damage and strike-back, the turn counter, the outcome and the rewards.
 */
import { afterAll, beforeAll, expect, test } from 'vitest'
import { api, DESKTOP, open, PHONE, registerInUi, screenshots, startWorld, type Signed, type WebWorld } from './support/browser.js'

let world: WebWorld
beforeAll(async () => {
  world = await startWorld()
})
afterAll(() => world?.close())

/** Arranged through the API (the open economy): a sword of power 50, equipped. */
async function armWithSword(p: Signed) {
  const sword = { type: 'WEAPON', name: 'Training Sword', description: 'Heavier than it looks', power: 50 }
  await api(world, p.token, 'POST', `/api/v1/avatars/${p.userId}/inventory/items`, sword)
  await api(world, p.token, 'POST', `/api/v1/avatars/${p.userId}/inventory/items/equip`, { type: sword.type, name: sword.name })
}

test('two players form a guild by invite, start a Goblin battle and win it', async () => {
  const leadPage = await world.player(PHONE)
  const lead = await registerInUi(leadPage, 'Aldric')
  const friendPage = await world.player(DESKTOP)
  const friend = await registerInUi(friendPage, 'Brynja Stormcaller of the Exceedingly Long Name Clan')

  // Found the guild (a long name must not break the layout).
  const guildName = `Order of Long Names ${Math.random().toString(36).slice(2, 8)}`
  await open(leadPage, 'Guild')
  await leadPage.getByLabel('Guild name').fill(guildName)
  await leadPage.getByLabel('Your nickname in the guild').fill('Aldric')
  await leadPage.getByRole('button', { name: 'Found guild' }).click()
  await leadPage.getByRole('region', { name: 'Your guild' }).getByText(guildName).waitFor()

  // Invite the friend, found by name.
  await leadPage.getByLabel('Search heroes by name').fill('stormcaller')
  await leadPage.getByRole('button', { name: 'Find heroes' }).click()
  await leadPage.getByRole('button', { name: `Invite ${friend.name}` }).click()
  await leadPage.getByText(`Invited ${friend.name}.`).waitFor()
  await leadPage.getByRole('list', { name: 'Pending invites' }).waitFor()

  // The friend sees the invite and accepts it.
  await open(friendPage, 'Guild')
  const invites = friendPage.getByRole('list', { name: 'Your invites' })
  await invites.getByText(guildName, { exact: true }).waitFor()
  await invites.getByLabel('Your nickname there').fill('Brynja')
  await friendPage.getByRole('button', { name: `Accept invite to ${guildName}` }).click()
  const members = friendPage.getByRole('list', { name: 'Members' })
  await members.getByText('Brynja (you)').waitFor()
  await members.getByText('Aldric').waitFor()
  await friendPage.getByRole('list', { name: 'Leaderboard' }).getByText('(your guild)').waitFor()

  // The leader promotes her to officer.
  await open(leadPage, 'Today')
  await open(leadPage, 'Guild')
  await leadPage.getByRole('button', { name: 'Promote Brynja' }).click()
  await leadPage.getByRole('list', { name: 'Members' }).locator('.member', { hasText: 'Brynja' }).getByText('officer').waitFor()
  await screenshots(leadPage, 'guild')

  // Arm both, then start the battle.
  await armWithSword(lead)
  await armWithSword(friend)
  await open(leadPage, 'Battle')
  await leadPage.getByRole('button', { name: 'Fight Goblin Chief' }).click()
  const turns = leadPage.getByTestId('turns')
  await expect.poll(() => turns.textContent()).toBe('Turn 0 of 12')
  const bossHealth = leadPage.getByRole('progressbar', { name: 'Boss health' })
  expect(await bossHealth.getAttribute('aria-valuenow')).toBe('150')

  // Attack = strength 10 + sword 50; the goblin's defense is 2: 58 a blow; it strikes back for 1.
  await leadPage.getByRole('button', { name: 'Attack' }).click()
  await expect.poll(() => leadPage.getByTestId('attack-result').textContent()).toBe('Turn 1: you dealt 58 damage. Goblin Chief struck back for 1.')
  await expect.poll(() => bossHealth.getAttribute('aria-valuenow')).toBe('92')
  await screenshots(leadPage, 'battle')

  await open(friendPage, 'Battle')
  await friendPage.getByRole('button', { name: 'Attack' }).click()
  await expect.poll(() => friendPage.getByTestId('attack-result').textContent()).toContain('Turn 2: you dealt 58 damage.')

  // The leader's page follows by the stream, and the last blow wins.
  await expect.poll(() => bossHealth.getAttribute('aria-valuenow'), { timeout: 10_000 }).toBe('34')
  await leadPage.getByRole('button', { name: 'Attack' }).click()
  await leadPage.getByText('Victory!').waitFor()
  await expect.poll(() => turns.textContent()).toBe('Turn 3 of 12')
  await leadPage.getByRole('status').filter({ hasText: 'Victory over Goblin Chief: +50 XP, +25 gold' }).waitFor()
  await screenshots(leadPage, 'battle-won', { toasts: true })

  // The friend's page sees the win too, and her reward.
  await friendPage.getByText('Victory!').waitFor({ timeout: 10_000 })
  await friendPage.getByRole('status').filter({ hasText: '+50 XP, +25 gold' }).waitFor()
})

test('an invite is declined, leadership handed over, and the old leader leaves', async () => {
  const [leadPage, pickPage, nopePage] = [await world.player(), await world.player(), await world.player()]
  for (const p of [leadPage, pickPage, nopePage]) p.on('dialog', (d) => void d.accept())
  const lead = await registerInUi(leadPage, 'Leona')
  const pick = await registerInUi(pickPage, 'Pike')
  const nope = await registerInUi(nopePage, 'Nope')
  // Arranged through the API: the guild and both invites.
  const guildName = `Handover ${Math.random().toString(36).slice(2, 8)}`
  const { id } = await (await api(world, lead.token, 'POST', '/api/v1/guilds', { name: guildName, creatorAvatarId: lead.userId, creatorNickname: 'Leona' })).json() as { id: string }
  for (const p of [pick, nope]) await api(world, lead.token, 'POST', `/api/v1/guilds/${id}/invites`, { requestorId: lead.userId, targetAvatarId: p.userId })

  await open(nopePage, 'Guild')
  await nopePage.getByRole('button', { name: `Decline invite to ${guildName}` }).click()
  await nopePage.getByText('No invites yet.').waitFor()

  await open(pickPage, 'Guild')
  await pickPage.getByRole('button', { name: `Accept invite to ${guildName}` }).click()
  await pickPage.getByRole('list', { name: 'Members' }).getByText('Pike (you)').waitFor()

  await open(leadPage, 'Guild')
  await leadPage.getByRole('button', { name: 'Make leader Pike' }).click()
  const leonaRow = leadPage.getByRole('list', { name: 'Members' }).locator('.member', { hasText: 'Leona' })
  await leonaRow.getByText('officer').waitFor()
  await leadPage.getByRole('button', { name: 'Leave guild' }).click()
  await leadPage.getByRole('button', { name: 'Found guild' }).waitFor()

  await open(pickPage, 'Today')
  await open(pickPage, 'Guild')
  const members = pickPage.getByRole('list', { name: 'Members' })
  await members.locator('.member', { hasText: 'Pike' }).getByText('leader').waitFor()
  await expect.poll(() => members.locator('.member').count()).toBe(1)
})
