/**
 * One rule for an avatar a request names (DESIGN §5), in every context: a missing avatar named in
 * a body or a query is a 400 `unknown-avatar`, named as the path's resource a 404; someone else's
 * avatar, where the caller acts as it or asks what only its owner may see, a 403 `not-owner`.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { buildTestApp, type TestApp } from './support/app.js'
import { guildName, newGuild } from './support/guilds.js'
import { newPlayer, type Player } from './support/players.js'

let app: TestApp
let me: Player
let other: Player
let guildId: string
let questId: string
let battleId: string
const nobody = 'no-such-avatar'

beforeAll(async () => {
  app = await buildTestApp()
  ;[me, other] = [await newPlayer(app), await newPlayer(app)]
  guildId = await newGuild(app, me)
  questId = (await app.inject({ method: 'POST', url: '/api/v1/quests', headers: me.auth, payload: { name: 'Walk daily' } })).json().id
  battleId = (await app.inject({ method: 'POST', url: '/api/v1/battles', headers: me.auth, payload: { guildId, bossType: 'GOBLIN', requesterId: me.avatarId } })).json().id
})
afterAll(() => app.close())

/** Each request with the avatar it names put in. */
const requests: Record<string, (avatarId: string) => { method: 'GET' | 'POST' | 'DELETE'; url: string; payload?: Record<string, unknown> }> = {
  'a habit for it': (a) => ({ method: 'POST', url: '/api/v1/habits', payload: { avatarId: a, title: 'Read', recurrenceType: 'DAILY' } }),
  'its habits': (a) => ({ method: 'GET', url: `/api/v1/habits?avatarId=${a}` }),
  'its marketplace': (a) => ({ method: 'POST', url: '/api/v1/marketplaces', payload: { avatarId: a } }),
  'a quest it owns': (a) => ({ method: 'POST', url: '/api/v1/quests', payload: { name: 'Run', ownerAvatarId: a } }),
  'joining a quest as it': (a) => ({ method: 'POST', url: `/api/v1/quests/${questId}/participants`, payload: { avatarId: a } }),
  'a guild it leads': (a) => ({ method: 'POST', url: '/api/v1/guilds', payload: { name: guildName(), creatorAvatarId: a, creatorNickname: 'Boss' } }),
  'inviting as it': (a) => ({ method: 'POST', url: `/api/v1/guilds/${guildId}/invites`, payload: { requestorId: a, targetAvatarId: other.avatarId } }),
  'attacking as it': (a) => ({ method: 'POST', url: `/api/v1/battles/${battleId}/damage`, payload: { damage: 5, attackerAvatarId: a } }),
}

describe('named in a body or a query', () => {
  for (const [what, request] of Object.entries(requests)) {
    test(`${what}: a missing avatar is 400 unknown-avatar, someone else's 403 not-owner`, async () => {
      const missing = await app.inject({ ...request(nobody), headers: me.auth })
      expect(missing.statusCode, missing.body).toBe(400)
      expect(missing.json().type).toBe('/problems/unknown-avatar')
      const theirs = await app.inject({ ...request(other.avatarId), headers: me.auth })
      expect(theirs.statusCode, theirs.body).toBe(403)
      expect(theirs.json().type).toBe('/problems/not-owner')
    })
  }

  test('the target of an invite that is no avatar is 400 unknown-avatar', async () => {
    const res = await app.inject({ method: 'POST', url: `/api/v1/guilds/${guildId}/invites`, headers: me.auth, payload: { requestorId: me.avatarId, targetAvatarId: nobody } })
    expect(res.statusCode).toBe(400)
    expect(res.json().type).toBe('/problems/unknown-avatar')
  })
})

describe('named in the path', () => {
  const paths: Record<string, (a: string) => { method: 'GET' | 'DELETE'; url: string }> = {
    'its invites': (a) => ({ method: 'GET', url: `/api/v1/avatars/${a}/invites` }),
    'leaving a quest': (a) => ({ method: 'DELETE', url: `/api/v1/quests/${questId}/participants/${a}` }),
  }
  for (const [what, request] of Object.entries(paths)) {
    test(`${what}: a missing avatar is 404, someone else's 403 not-owner`, async () => {
      const missing = await app.inject({ ...request(nobody), headers: me.auth })
      expect(missing.statusCode, missing.body).toBe(404)
      const theirs = await app.inject({ ...request(other.avatarId), headers: me.auth })
      expect(theirs.statusCode, theirs.body).toBe(403)
      expect(theirs.json().type).toBe('/problems/not-owner')
    })
  }
})
