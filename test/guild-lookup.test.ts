/**
 * `GET /api/v1/guilds?memberId=`: how a client (the web app) finds the guild an avatar is in, and
 * how the quest context asks the guild service over HTTP (httpGuildClient) in split mode.
 */
import { randomUUID } from 'node:crypto'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { httpGuildClient } from '../src/contexts/guild/client.js'
import { SYSTEM } from '../src/platform/auth/principal.js'
import { freePort } from '../src/platform/net/free-port.js'
import { buildTestApp, splitTarget, type TestApp } from './support/app.js'
import { guildName, guildUrl, joinGuild, newGuild } from './support/guilds.js'
import { newPlayer, type Player } from './support/players.js'
import type { SplitTestApp } from './support/split-app.js'

let app: TestApp
beforeAll(async () => {
  app = await buildTestApp()
})
afterAll(() => app.close())

const list = (p: Player, query: string) => app.inject({ url: `/api/v1/guilds?${query}`, headers: p.auth })

test('memberId answers the one guild the avatar belongs to, or none; it combines with name', async () => {
  const [lead, ann, loner] = await Promise.all([newPlayer(app, 'Lead'), newPlayer(app, 'Ann'), newPlayer(app, 'Loner')])
  const name = guildName('Lookup')
  const id = await newGuild(app, lead, name)
  await newGuild(app, loner, guildName('Other')) // other guilds exist, and must not be answered
  await joinGuild(app, id, lead, ann, 'Annie')

  const ofAnn = await list(lead, `memberId=${ann.avatarId}`)
  expect(ofAnn.statusCode, ofAnn.body).toBe(200)
  expect(ofAnn.json().items).toHaveLength(1)
  expect(ofAnn.json().items[0]).toMatchObject({ id, name, globalRank: expect.any(Number) })
  expect(ofAnn.json().items[0].members.map((m: { nickname: string; role: string }) => [m.nickname, m.role]))
    .toEqual([['Chief', 'LEADER'], ['Annie', 'MEMBER']])

  expect((await list(ann, `memberId=${ann.avatarId}&name=${encodeURIComponent(name.slice(-8))}`)).json().items).toHaveLength(1)
  expect((await list(ann, `memberId=${ann.avatarId}&name=no-such-guild`)).json().items).toEqual([])

  const nobody = await newPlayer(app, 'Nobody')
  const none = await list(nobody, `memberId=${nobody.avatarId}`)
  expect(none.statusCode).toBe(200)
  expect(none.json()).toMatchObject({ items: [], next: null })

  // After leaving, the avatar is in no guild.
  const left = await app.inject({ method: 'POST', url: guildUrl(id, `/members/${ann.avatarId}/leave`), headers: ann.auth })
  expect(left.statusCode, left.body).toBe(204)
  expect((await list(ann, `memberId=${ann.avatarId}`)).json().items).toEqual([])
})

test('a memberId that is not an avatar id is a validation problem', async () => {
  const p = await newPlayer(app)
  const res = await list(p, 'memberId=not%20an%20id')
  expect(res.statusCode).toBe(400)
  expect(res.json().errors).toEqual([expect.objectContaining({ path: 'querystring/memberId' })])
})

test('a memberId that names no avatar is 400 unknown-avatar, not an empty list (one in no guild is)', async () => {
  const p = await newPlayer(app)
  const res = await list(p, `memberId=${randomUUID()}`)
  expect(res.statusCode, res.body).toBe(400)
  expect(res.json()).toMatchObject({ type: '/problems/unknown-avatar', errors: [{ path: 'querystring/memberId' }] })
})

/** Where the guild API answers over a real port: the guild process in split mode, else the app itself. */
async function guildServiceUrl(): Promise<string> {
  if (splitTarget) return (app as SplitTestApp).cluster.of('guild')[0]!.url
  return app.http.server.listening ? baseUrlOf(app) : app.http.listen({ port: 0, host: '127.0.0.1' })
}
const baseUrlOf = (a: TestApp) => {
  const { port } = a.http.server.address() as AddressInfo
  return `http://127.0.0.1:${port}`
}

describe('the guild port over HTTP (httpGuildClient), as the quest context uses it in split mode', () => {
  const serviceToken = () => app.issueToken(SYSTEM.userId, 'service')

  test('answers membership and existence from the public API', async () => {
    const guilds = httpGuildClient(await guildServiceUrl(), serviceToken, { retries: 0 })
    const [lead, ann, loner] = await Promise.all([newPlayer(app, 'Lead'), newPlayer(app, 'Ann'), newPlayer(app, 'Loner')])
    const id = await newGuild(app, lead)
    await joinGuild(app, id, lead, ann)

    expect(await guilds.guildOf(ann.avatarId)).toBe(id)
    expect(await guilds.guildOf(lead.avatarId)).toBe(id)
    expect(await guilds.guildOf(loner.avatarId)).toBeNull()
    expect(await guilds.exists(id)).toBe(true)
    expect(await guilds.exists(randomUUID())).toBe(false)
    // Quests take any string as a guild id; one that cannot be a guild's is simply none.
    expect(await guilds.exists('not-a-guild')).toBe(false)
  })

  test('a refused or failed call is an error, never "no guild"', async () => {
    const base = await guildServiceUrl()
    const stranger = httpGuildClient(base, async () => 'not-a-token', { retries: 0 })
    await expect(stranger.guildOf(randomUUID())).rejects.toMatchObject({ status: 401, slug: 'invalid-token' })
    await expect(stranger.exists(randomUUID())).rejects.toMatchObject({ status: 401 })

    const down = httpGuildClient(`http://127.0.0.1:${await freePort()}`, serviceToken, { retries: 0, timeoutMs: 500 })
    await expect(down.exists(randomUUID())).rejects.toMatchObject({ status: 502, slug: 'upstream-unreachable' })
  })
})

test('a quest for a guild id that names no guild is unknown-guild, whatever its shape', async () => {
  const p = await newPlayer(app)
  for (const guildId of ['not-a-guild', randomUUID()]) {
    const res = await app.inject({ method: 'POST', url: '/api/v1/quests', headers: p.auth, payload: { name: 'Q', guildId } })
    expect(res.statusCode, res.body).toBe(400)
    expect(res.json().type).toBe('/problems/unknown-guild')
  }
})

