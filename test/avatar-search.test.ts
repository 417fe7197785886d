/** Avatar search (DESIGN §6): criteria from a GET body or the query, and the input it refuses. */
import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { buildTestApp, type TestApp } from './support/app.js'
import { newPlayer, type Player } from './support/players.js'

let app: TestApp
beforeAll(async () => {
  app = await buildTestApp()
})
afterAll(() => app.close())

const grantExperience = (p: Player, amount: number) =>
  app.inject({ method: 'POST', url: `/api/v1/avatars/${p.avatarId}/experience/grant`, headers: p.auth, payload: { amount } })

describe('search', () => {
  test('criteria from a GET body or from the query combine with AND; name is a case-insensitive substring', async () => {
    const tag = `zq${Date.now().toString(36)}`
    const low = await newPlayer(app, `${tag} Low`)
    const high = await newPlayer(app, `${tag.toUpperCase()} High`)
    await grantExperience(high, 700) // level 5
    const byBody = await app.inject({ method: 'GET', url: '/api/v1/avatars/search', headers: { ...low.auth, 'content-type': 'application/json' }, payload: { name: tag, minLevel: 3, maxLevel: 9 } })
    expect(byBody.statusCode).toBe(200)
    expect(byBody.json()._embedded.avatars.map((a: { id: string }) => a.id)).toEqual([high.avatarId])
    const hit = byBody.json()._embedded.avatars[0]
    expect(Object.keys(hit._links)).toEqual(expect.arrayContaining(['self', 'avatar']))
    expect(byBody.json()._links.self.href).toContain('/api/v1/avatars/search?')

    const byQuery = await app.inject({ url: `/api/v1/avatars/search?name=${tag}`, headers: low.auth })
    expect(byQuery.json()._embedded.avatars.map((a: { id: string }) => a.id).sort()).toEqual([low.avatarId, high.avatarId].sort())
    const levelOnly = await app.inject({ url: `/api/v1/avatars/search?name=${tag}&maxLevel=1`, headers: low.auth })
    expect(levelOnly.json()._embedded.avatars.map((a: { id: string }) => a.id)).toEqual([low.avatarId])
  })

  test('an inverted level range or a malformed body is 400', async () => {
    const p = await newPlayer(app)
    const inverted = await app.inject({ url: '/api/v1/avatars/search?minLevel=5&maxLevel=2', headers: p.auth })
    expect(inverted.statusCode).toBe(400)
    const badBody = await app.inject({ method: 'GET', url: '/api/v1/avatars/search', headers: { ...p.auth, 'content-type': 'application/json' }, payload: '{"name":' })
    expect(badBody.statusCode).toBe(400)
    const wrongType = await app.inject({ method: 'GET', url: '/api/v1/avatars/search', headers: { ...p.auth, 'content-type': 'application/json' }, payload: { minLevel: '3' } })
    expect(wrongType.statusCode).toBe(400)
    expect(wrongType.json().errors[0].path).toBe('body/minLevel')
  })

  test('level bounds are filters: 0 means from the start; a number beyond what a level can be is 400, never 500', async () => {
    const tag = `Bounds ${randomUUID().slice(0, 8)}`
    const p = await newPlayer(app, tag)
    const fromStart = await app.inject({ url: `/api/v1/avatars/search?name=${encodeURIComponent(tag)}&minLevel=0`, headers: p.auth })
    expect(fromStart.statusCode, fromStart.body).toBe(200)
    expect(fromStart.json()._embedded.avatars.map((a: { id: string }) => a.id)).toContain(p.avatarId)
    for (const huge of ['1e20', '9007199254740993', '2147483648']) {
      const byQuery = await app.inject({ url: `/api/v1/avatars/search?minLevel=${huge}`, headers: p.auth })
      expect(byQuery.statusCode, `${huge}: ${byQuery.body}`).toBe(400)
      expect(byQuery.json().errors[0].path).toBe('querystring/minLevel')
      const byBody = await app.inject({ method: 'GET', url: '/api/v1/avatars/search', headers: { ...p.auth, 'content-type': 'application/json' }, payload: `{"maxLevel":${huge}}` })
      expect(byBody.statusCode, `${huge}: ${byBody.body}`).toBe(400)
      expect(byBody.json().errors[0].path).toBe('body/maxLevel')
    }
  })

  test('text a database cannot hold (NUL, an unpaired surrogate) is 400 naming the field, in a body, a GET body or a query', async () => {
    const p = await newPlayer(app)
    // JSON escapes, as a client sends them.
    for (const bad of ['a\\u0000b', 'a\\ud800b', 'a\\udc00', '\\ud83d']) {
      const rename = await app.inject({ method: 'PATCH', url: `/api/v1/avatars/${p.avatarId}/name`, headers: { ...p.auth, 'content-type': 'application/json' }, payload: `{"name":"${bad}"}` })
      expect(rename.statusCode, `${bad}: ${rename.body}`).toBe(400)
      expect(rename.json().errors[0].path).toBe('body/name')
      const search = await app.inject({ method: 'GET', url: '/api/v1/avatars/search', headers: { ...p.auth, 'content-type': 'application/json' }, payload: `{"name":"${bad}"}` })
      expect(search.statusCode, `${bad}: ${search.body}`).toBe(400)
      expect(search.json().errors[0].path).toBe('body/name')
    }
    const byQuery = await app.inject({ url: '/api/v1/avatars/search?name=a%ED%A0%80b', headers: p.auth })
    // Percent-escapes that are no UTF-8 (here a surrogate's bytes) are refused in every shape alike.
    expect(byQuery.statusCode, byQuery.body).toBe(400)
    expect(byQuery.json().errors[0].path).toBe('querystring')
    // A surrogate pair is a character like any other.
    const emoji = await app.inject({ method: 'PATCH', url: `/api/v1/avatars/${p.avatarId}/name`, headers: { ...p.auth, 'content-type': 'application/json' }, payload: '{"name":"Hero \\ud83d\\ude00"}' })
    expect(emoji.statusCode, emoji.body).toBeLessThan(300)
  })
})
