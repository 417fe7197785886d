import { randomUUID } from 'node:crypto'
import { expect } from 'vitest'
import type { TestApp } from './app.js'
import type { Player } from './players.js'

export const guildUrl = (id: string, rest = '') => `/api/v1/guilds/${id}${rest}`

/** A unique guild name, so tests sharing an app do not collide. */
export const guildName = (prefix = 'Guild') => `${prefix} ${randomUUID().slice(0, 8)}`

export async function newGuild(app: TestApp, leader: Player, name = guildName()): Promise<string> {
  const res = await app.inject({
    method: 'POST', url: '/api/v1/guilds', headers: leader.auth,
    payload: { name, creatorAvatarId: leader.avatarId, creatorNickname: 'Chief' },
  })
  expect(res.statusCode, res.body).toBe(200)
  return res.json().id
}

/** Invites through the API and answers the invite id read from the Location header. */
export async function inviteTo(app: TestApp, guildId: string, by: Player, target: Player): Promise<string> {
  const res = await app.inject({
    method: 'POST', url: guildUrl(guildId, '/invites'), headers: by.auth,
    payload: { requestorId: by.avatarId, targetAvatarId: target.avatarId },
  })
  expect(res.statusCode, res.body).toBe(204)
  const location = String(res.headers.location)
  expect(location).toMatch(new RegExp(`^/api/v1/guilds/${guildId}/invites/[0-9a-f-]{36}$`))
  return location.split('/').at(-1)!
}

export async function joinGuild(app: TestApp, guildId: string, leader: Player, p: Player, nickname = `n-${randomUUID().slice(0, 6)}`): Promise<void> {
  const inviteId = await inviteTo(app, guildId, leader, p)
  const res = await app.inject({
    method: 'POST', url: guildUrl(guildId, `/invites/${inviteId}/accept`), headers: p.auth, payload: { avatarId: p.avatarId, nickname },
  })
  expect(res.statusCode, res.body).toBe(204)
}

export async function guildOf(app: TestApp, p: Player, guildId: string) {
  const res = await app.inject({ url: guildUrl(guildId), headers: p.auth })
  expect(res.statusCode, res.body).toBe(200)
  return res.json()
}
