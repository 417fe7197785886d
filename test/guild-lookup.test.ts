/**
 * `GET /api/v1/guilds?memberId=`: how a client (the web app) finds the guild an avatar is in.
 */
import { afterAll, beforeAll, expect, test } from 'vitest'
import { buildTestApp, type TestApp } from './support/app.js'
import { guildName, guildUrl, joinGuild, newGuild } from './support/guilds.js'
import { newPlayer, type Player } from './support/players.js'

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
