/**
 * Deleting an account (DESIGN §9.4): `DELETE /api/v1/me {password}` deletes the account, every
 * avatar it owns (each cascading as an avatar deletion does) and what other contexts keep of it,
 * and refuses its tokens at once.
 */
import { randomUUID } from 'node:crypto'
import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { ManualClock } from '../src/platform/clock.js'
import { buildTestApp, type TestApp } from './support/app.js'
import { guildOf, joinGuild, newGuild } from './support/guilds.js'
import { newHabit } from './support/habits.js'
import { buy, marketplaceOf, sell } from './support/marketplaces.js'
import { newPlayer, type Player } from './support/players.js'

// Frozen (tokens are issued and judged at one instant) until the last test moves it past the
// lifetime of every token the deleted accounts could hold.
const clock = new ManualClock(new Date())
let app: TestApp
beforeAll(async () => {
  app = await buildTestApp({ clock })
})
afterAll(() => app.close())

const deleteAccount = (p: Player, payload?: object) =>
  app.inject({ method: 'DELETE', url: '/api/v1/me', headers: p.auth, ...(payload ? { payload } : {}) })
const get = (p: Player, url: string) => app.inject({ url, headers: p.auth })
const post = (p: Player, url: string, payload: object) => app.inject({ method: 'POST', url, headers: p.auth, payload })
const newAvatar = (p: Player, id = `alt-${randomUUID().slice(0, 8)}`) => post(p, '/api/v1/avatars', { id, name: 'Alt' })
const notificationsOf = async (avatarId: string) => {
  const res = await app.database.db.execute(sql`select count(*)::int as n from live.notifications where avatar_id = ${avatarId}`)
  return (res as unknown as { rows: { n: number }[] }).rows[0]!.n
}

test('a wrong or missing password is refused and nothing is gone', async () => {
  const p = await newPlayer(app)
  const habitId = await newHabit(app, p)

  const wrong = await deleteAccount(p, { password: 'not the password' })
  expect(wrong.statusCode).toBe(401)
  expect(wrong.headers['content-type']).toMatch(/^application\/problem\+json/)
  expect(wrong.json().type).toBe('/problems/invalid-credentials')
  const missing = await deleteAccount(p, {})
  expect(missing.statusCode).toBe(400)
  expect(missing.json().errors.map((e: { path: string }) => e.path)).toContain('body/password')
  expect((await deleteAccount(p)).statusCode).toBe(400)

  await app.settle()
  expect((await get(p, `/api/v1/avatars/${p.avatarId}`)).statusCode).toBe(200)
  expect((await get(p, `/api/v1/habits/${habitId}`)).statusCode).toBe(200)
  const login = await post(p, '/auth/login', { email: p.email, password: p.password })
  expect(login.statusCode, login.body).toBe(200)
})

test('the right password deletes every resource of the account; the guild passes to the other member, who keeps everything', async () => {
  const [p, friend] = [await newPlayer(app, 'Doomed'), await newPlayer(app, 'Friend')]
  const habitId = await newHabit(app, p)
  const altId = (await newAvatar(p)).json().id
  const quest = await post(p, '/api/v1/quests', { name: 'Last quest', habits: [{ habitId: 'walk', title: 'Walk', recurrence: { type: 'DAILY' } }] })
  expect(quest.statusCode, quest.body).toBe(200)
  const questId = quest.json().id
  expect((await post(p, `/api/v1/quests/${questId}/participants`, { avatarId: p.avatarId })).statusCode).toBe(200)
  const guildId = await newGuild(app, p)
  await joinGuild(app, guildId, p, friend)
  const marketplaceId = await marketplaceOf(app, p)
  expect((await buy(app, p, marketplaceId, 'Rusty Shortsword')).statusCode).toBe(204)
  expect((await sell(app, p, marketplaceId, 'Rusty Shortsword')).statusCode).toBe(204)
  expect((await post(p, `/api/v1/avatars/${p.avatarId}/experience/grant`, { amount: 150 })).statusCode).toBe(204)
  await app.settle()
  expect((await get(p, `/api/v1/avatars/${p.avatarId}/notifications`)).json().items.map((n: { type: string }) => n.type)).toContain('LEVEL_UP')
  const friendBefore = (await get(friend, `/api/v1/avatars/${friend.avatarId}`)).json()

  const res = await deleteAccount(p, { password: p.password })
  expect(res.statusCode, res.body).toBe(204)
  await app.settle()

  // Read by the friend: reads of others' avatars, guilds and quests are allowed; habits and
  // marketplaces would answer 403 while they exist.
  for (const url of [
    `/api/v1/avatars/${p.avatarId}`, `/api/v1/avatars/${altId}`, `/api/v1/habits/${habitId}`, `/api/v1/quests/${questId}`,
    `/api/v1/marketplaces/${marketplaceId}`, `/api/v1/marketplaces/${marketplaceId}/sold-items`,
  ]) expect((await get(friend, url)).statusCode, url).toBe(404)
  expect(await notificationsOf(p.avatarId)).toBe(0)
  const guild = await guildOf(app, friend, guildId)
  expect(guild.members.map((m: { avatarId: string; role: string }) => [m.avatarId, m.role])).toEqual([[friend.avatarId, 'LEADER']])
  expect((await get(friend, `/api/v1/avatars/${friend.avatarId}`)).json()).toEqual(friendBefore)
})

test('the old access and refresh tokens are refused at once, a second deletion too, and the email can register again', async () => {
  const p = await newPlayer(app)
  expect((await deleteAccount(p, { password: p.password })).statusCode).toBe(204)

  // No settling: the refusal is part of the deletion's commit.
  expect((await get(p, `/api/v1/avatars/${p.avatarId}`)).statusCode).toBe(401)
  expect((await deleteAccount(p, { password: p.password })).statusCode).toBe(401)
  expect((await post(p, '/auth/refresh', { refreshToken: p.refreshToken })).statusCode).toBe(401)
  expect((await post(p, '/auth/login', { email: p.email, password: p.password })).statusCode).toBe(401)
  // One issued after the deletion (a login under way as it happened) is refused as well.
  const late = { ...p, auth: { authorization: `Bearer ${await app.issueToken(p.userId, 'player')}` } }
  expect((await get(late, `/api/v1/avatars/${p.avatarId}`)).statusCode).toBe(401)

  const again = await post(p, '/auth/register', { name: 'Reborn', email: p.email, password: 'a new password' })
  expect(again.statusCode, again.body).toBe(200)
  const reborn = { ...p, userId: again.json().userId, avatarId: again.json().userId, auth: { authorization: `Bearer ${again.json().token}` } }
  expect(reborn.userId).not.toBe(p.userId)
  await app.settle()
  expect((await get(reborn, `/api/v1/avatars/${reborn.avatarId}`)).json()).toMatchObject({ name: 'Reborn', level: { levelNumber: 1 } })
})

test('no avatar outlives its account: not one made as the account is deleted, nor one asked for after', async () => {
  const p = await newPlayer(app)
  const racing = ['race-1', 'race-2', 'race-3'].map((id) => `${id}-${randomUUID().slice(0, 8)}`)
  const [deleted] = await Promise.all([deleteAccount(p, { password: p.password }), ...racing.map((id) => newAvatar(p, id))])
  expect(deleted!.statusCode).toBe(204)
  await app.settle()
  const friend = await newPlayer(app)
  for (const id of racing) expect((await get(friend, `/api/v1/avatars/${id}`)).statusCode, id).toBe(404)

  // Past the refusal of its tokens (issued up to an hour after the deletion, living an hour), a
  // token for the account could verify; the avatar context still makes it nothing.
  clock.advance(2 * 3600_000 + 1000)
  const stray = { ...p, auth: { authorization: `Bearer ${await app.issueToken(p.userId, 'player')}` } }
  const made = await newAvatar(stray)
  expect(made.statusCode, made.body).toBe(401)
  expect(made.json().type).toBe('/problems/invalid-token')
})
