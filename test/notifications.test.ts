/**
 * The inbox (DESIGN §9.2): notifications made from the game's events, read by the avatar's owner,
 * newest first, with an unread count and read state.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { buildTestApp, type TestApp } from './support/app.js'
import { guildName, inviteTo, newGuild } from './support/guilds.js'
import { newPlayer, type Player } from './support/players.js'

let app: TestApp
beforeAll(async () => {
  app = await buildTestApp()
})
afterAll(() => app.close())

const inboxUrl = (p: Player, rest = '') => `/api/v1/avatars/${p.avatarId}/notifications${rest}`
const inbox = (p: Player, query = '', as: Player = p) => app.inject({ url: inboxUrl(p, query), headers: as.auth })
const post = (p: Player, path: string, payload: unknown) =>
  app.inject({ method: 'POST', url: `/api/v1/avatars/${p.avatarId}${path}`, headers: p.auth, payload: payload as object })

/** A player who levelled up, then fell: two notifications, the death newest. */
async function playerWithNews(): Promise<Player> {
  const p = await newPlayer(app)
  // 700 experience: level 1 → 5, which teaches Fireball.
  expect((await post(p, '/experience/grant', { amount: 700 })).statusCode).toBe(204)
  const health = (await app.inject({ url: `/api/v1/avatars/${p.avatarId}`, headers: p.auth })).json().health.current as number
  expect((await post(p, '/health/damage', { amount: health })).json()).toMatchObject({ died: true })
  await app.settle()
  return p
}

describe('the inbox', () => {
  test('a level-up and a death become notifications, newest first, unread, with what happened in data', async () => {
    const p = await playerWithNews()
    const res = await inbox(p)
    expect(res.statusCode, res.body).toBe(200)
    const body = res.json()
    expect(body.unreadCount).toBe(2)
    expect(body.next).toBeNull()
    expect(body.items.map((n: { type: string }) => n.type)).toEqual(['DIED', 'LEVEL_UP'])
    expect(body.items[1]).toMatchObject({
      title: 'Level 5!', body: 'You gained 4 levels and learned Fireball.', readAt: null,
      data: { level: 5, levelsGained: 4, spellsLearned: ['Fireball'] },
    })
    expect(body.items[0].data).toEqual({ moneyLost: expect.any(Number) })
    expect(Date.parse(body.items[0].createdAt)).not.toBeNaN()
  })

  test('an invite tells the invited player which guild asks, with what a client needs to answer it', async () => {
    const leader = await newPlayer(app)
    const target = await newPlayer(app)
    const name = guildName('Inbox')
    const guildId = await newGuild(app, leader, name)
    const inviteId = await inviteTo(app, guildId, leader, target)
    await app.settle()
    const [invite, ...others] = (await inbox(target)).json().items
    expect(others).toEqual([])
    expect(invite).toMatchObject({
      type: 'INVITE', title: 'Guild invite', body: `${name} invites you to join.`,
      data: { inviteId, guildId, guildName: name, invitedBy: leader.avatarId, expiresAt: expect.any(String) },
    })
    // The leader is told nothing.
    expect((await inbox(leader)).json().items).toEqual([])
  })

  test('reading one keeps its first read time; read-all reads the rest; the unread filter and count follow', async () => {
    const p = await playerWithNews()
    const [died, levelUp] = (await inbox(p)).json().items
    expect((await app.inject({ method: 'POST', url: inboxUrl(p, `/${levelUp.id}/read`), headers: p.auth })).statusCode).toBe(204)
    const once = (await inbox(p)).json()
    expect(once.unreadCount).toBe(1)
    const readAt = once.items.find((n: { id: string }) => n.id === levelUp.id).readAt
    expect(readAt).not.toBeNull()
    expect((await inbox(p, '?unread=true')).json().items.map((n: { id: string }) => n.id)).toEqual([died.id])

    expect((await app.inject({ method: 'POST', url: inboxUrl(p, `/${levelUp.id}/read`), headers: p.auth })).statusCode).toBe(204)
    expect((await inbox(p)).json().items.find((n: { id: string }) => n.id === levelUp.id).readAt).toBe(readAt)

    expect((await app.inject({ method: 'POST', url: inboxUrl(p, '/read-all'), headers: p.auth })).statusCode).toBe(204)
    const all = (await inbox(p)).json()
    expect(all.unreadCount).toBe(0)
    expect(all.items.every((n: { readAt: string | null }) => n.readAt !== null)).toBe(true)
    expect((await inbox(p, '?unread=true')).json().items).toEqual([])
  })

  test('pages go from newest to oldest by cursor', async () => {
    const p = await playerWithNews()
    const first = (await inbox(p, '?limit=1')).json()
    expect(first.items.map((n: { type: string }) => n.type)).toEqual(['DIED'])
    expect(first.next).toBe(first.items[0].id)
    const second = (await inbox(p, `?limit=1&cursor=${first.next}`)).json()
    expect(second.items.map((n: { type: string }) => n.type)).toEqual(['LEVEL_UP'])
    expect(second.next).toBeNull()
    expect(second.unreadCount).toBe(2)
  })

  test("another player's inbox is 403; an unknown avatar 404; someone else's notification, a bad cursor or limit are refused", async () => {
    const p = await playerWithNews()
    const other = await newPlayer(app)
    expect((await inbox(p, '', other)).statusCode).toBe(403)
    const ofP = (await inbox(p)).json().items[0].id as string
    expect((await app.inject({ method: 'POST', url: inboxUrl(p, `/${ofP}/read`), headers: other.auth })).statusCode).toBe(403)
    expect((await app.inject({ method: 'POST', url: inboxUrl(p, '/read-all'), headers: other.auth })).statusCode).toBe(403)
    // The other player's own avatar has no such notification.
    const notTheirs = await app.inject({ method: 'POST', url: inboxUrl(other, `/${ofP}/read`), headers: other.auth })
    expect(notTheirs.statusCode).toBe(404)
    expect(notTheirs.headers['content-type']).toMatch(/^application\/problem\+json/)
    expect((await inbox(p, '?limit=1')).json().unreadCount).toBe(2)

    const unknown = await app.inject({ url: '/api/v1/avatars/no-such-avatar/notifications', headers: p.auth })
    expect(unknown.statusCode).toBe(404)
    const badCursor = await inbox(p, `?cursor=${ofP.replace(/^./, ofP.startsWith('0') ? '1' : '0')}`)
    expect(badCursor.statusCode).toBe(400)
    expect(badCursor.json().type).toBe('/problems/invalid-cursor')
    expect((await inbox(p, '?limit=0')).statusCode).toBe(400)
    expect((await inbox(p, '?unread=maybe')).statusCode).toBe(400)
  })
})
