/**
 * Two players in one guild chat: A posts "@B hello" with Enter, B sees it appear live in the
 * guild's chat panel and an unread mention on the bell; A deletes it and B sees "message deleted".
 */
import { afterAll, beforeAll, expect, test } from 'vitest'
import { api, DESKTOP, open, PHONE, registerInUi, screenshots, startWorld, streaming, type Signed, type WebWorld } from './support/browser.js'

let world: WebWorld
beforeAll(async () => {
  world = await startWorld()
})
afterAll(() => world?.close())

/** A founds a guild and B joins it, through the API. */
async function oneGuild(a: Signed, b: Signed): Promise<string> {
  const created = await api(world, a.token, 'POST', '/api/v1/guilds', {
    name: `Chatters ${Math.random().toString(36).slice(2, 8)}`, creatorAvatarId: a.userId, creatorNickname: 'A',
  })
  const guildId = ((await created.json()) as { id: string }).id
  const invited = await api(world, a.token, 'POST', `/api/v1/guilds/${guildId}/invites`, { requestorId: a.userId, targetAvatarId: b.userId })
  const inviteId = invited.headers.get('location')!.split('/').pop()!
  const accepted = await api(world, b.token, 'POST', `/api/v1/guilds/${guildId}/invites/${inviteId}/accept`, { avatarId: b.userId, nickname: 'B' })
  expect(accepted.status).toBe(204)
  return guildId
}

test('a message with a mention reaches the other member live, with a mention on the bell', async () => {
  const aPage = await world.player(DESKTOP)
  const a = await registerInUi(aPage, 'Aveline')
  const bPage = await world.player(PHONE)
  const b = await registerInUi(bPage, 'Bertrand')
  await oneGuild(a, b)

  await open(bPage, 'Guild')
  await streaming(bPage)
  const bLog = bPage.getByRole('list', { name: 'Guild chat messages' })
  await bPage.getByText('No messages yet.', { exact: false }).waitFor()

  await open(aPage, 'Guild')
  await aPage.getByRole('textbox', { name: 'Chat message' }).fill('@Bertrand hello')
  await aPage.getByRole('textbox', { name: 'Chat message' }).press('Enter')
  await aPage.getByRole('list', { name: 'Guild chat messages' }).getByText('@Bertrand hello').waitFor()

  await bLog.getByText('@Bertrand hello').waitFor()
  await bPage.getByRole('button', { name: /Inbox, \d+ unread, 1 mention$/ }).waitFor()
  await screenshots(bPage, 'guild-chat')

  await aPage.getByRole('button', { name: /^Delete message from Aveline/ }).click()
  await bLog.getByText('message deleted').waitFor()
  // B is a plain member: no delete on A's messages.
  expect(await bPage.getByRole('button', { name: /^Delete message/ }).count()).toBe(0)
})
