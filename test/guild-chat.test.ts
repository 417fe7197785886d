import { randomUUID } from 'node:crypto'
import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { ManualClock } from '../src/platform/clock.js'
import { buildTestApp, splitTarget, type TestApp } from './support/app.js'
import { eventually } from './support/eventually.js'
import { guildUrl, joinGuild, newGuild } from './support/guilds.js'
import { newPlayer, type Player } from './support/players.js'
import { expectProblem } from './support/problems.js'
import type { SplitTestApp } from './support/split-app.js'
import { openStream } from './support/streams.js'

const clock = new ManualClock(new Date('2026-03-02T08:00:00Z'))
let app: TestApp
beforeAll(async () => {
  app = await buildTestApp({ clock, env: { ACCESS_TOKEN_TTL_SECONDS: '86400' } })
})
afterAll(() => app.close())

const unique = (name: string) => `${name} ${randomUUID().slice(0, 6)}`
const say = (p: Player, guildId: string, text: unknown) =>
  app.inject({ method: 'POST', url: guildUrl(guildId, '/messages'), headers: p.auth, payload: { text } })
const read = (p: Player, guildId: string, query = '') => app.inject({ url: guildUrl(guildId, `/messages${query}`), headers: p.auth })
const remove = (p: Player, guildId: string, messageId: string) =>
  app.inject({ method: 'DELETE', url: guildUrl(guildId, `/messages/${messageId}`), headers: p.auth })
const texts = async (p: Player, guildId: string, query = '') => (await read(p, guildId, query)).json().items.map((m: { text: string | null }) => m.text)
const notifications = async (p: Player) =>
  (await app.inject({ url: `/api/v1/avatars/${p.avatarId}/notifications`, headers: p.auth })).json().items as { type: string; data: { messageId: string } }[]

/** A guild of a leader, an officer and a member, with these names. */
async function guildOfThree(names = [unique('Lead'), unique('Offi'), unique('Memb')]) {
  const [leader, officer, member] = await Promise.all(names.map((n) => newPlayer(app, n))) as [Player, Player, Player]
  const id = await newGuild(app, leader)
  await joinGuild(app, id, leader, officer)
  await joinGuild(app, id, leader, member)
  const role = await app.inject({
    method: 'PATCH', url: guildUrl(id, `/members/${officer.avatarId}/role`), headers: leader.auth, payload: { roleName: 'OFFICER', requestorId: leader.avatarId },
  })
  expect(role.statusCode).toBe(204)
  return { id, leader, officer, member }
}

async function posted(p: Player, guildId: string, text: string): Promise<string> {
  const res = await say(p, guildId, text)
  expect(res.statusCode, res.body).toBe(201)
  return res.json().id
}

describe('posting and reading', () => {
  test('a member posts; members read newest first in pages; the text is trimmed and bounded', async () => {
    const { id, leader, member } = await guildOfThree()
    const res = await say(member, id, '  hello guild  ')
    expect(res.statusCode).toBe(201)
    const body = res.json()
    expect(body).toMatchObject({ guildId: id, author: { avatarId: member.avatarId }, text: 'hello guild', sentAt: '2026-03-02T08:00:00.000Z' })
    expect(body.author.name).toMatch(/^Memb /)
    expect(res.headers.location).toBe(guildUrl(id, `/messages/${body.id}`))
    for (const n of [1, 2, 3, 4]) await posted(leader, id, `m${n}`)

    expect(await texts(member, id)).toEqual(['m4', 'm3', 'm2', 'm1', 'hello guild'])
    const first = (await read(member, id, '?limit=2')).json()
    expect(first.items.map((m: { text: string }) => m.text)).toEqual(['m4', 'm3'])
    const second = (await read(member, id, `?limit=2&before=${first.next}`)).json()
    expect(second.items.map((m: { text: string }) => m.text)).toEqual(['m2', 'm1'])
    const last = (await read(member, id, `?limit=2&before=${second.next}`)).json()
    expect(last).toMatchObject({ items: [{ text: 'hello guild' }], next: null })

    expectProblem(await read(member, id, '?limit=0'), 400)
    expectProblem(await read(member, id, '?limit=201'), 400)
    expect((await read(member, id, '?limit=200')).statusCode).toBe(200)
    expectProblem(await read(member, id, `?before=${randomUUID()}`), 400, 'invalid-cursor')
    // Blank is what the schema refuses (the document says so); too long once trimmed, the rule.
    for (const blank of ['', '   ']) {
      const res = await say(member, id, blank)
      expectProblem(res, 400, 'validation')
      expect(new Set(res.json().errors.map((e: { path: string }) => e.path))).toEqual(new Set(['body/text']))
    }
    expect((await say(member, id, 'x'.repeat(1000))).statusCode).toBe(201)
    const long = await say(member, id, 'x'.repeat(1001))
    expectProblem(long, 400, 'invalid-message-text')
    expect(long.json().errors).toEqual([{ path: expect.stringMatching(/\/text$/), message: expect.any(String) }])
    expectProblem(await say(member, id, 42), 400)
  })

  test('outsiders neither read nor post; an unknown guild is 404', async () => {
    const { id } = await guildOfThree()
    const outsider = await newPlayer(app, unique('Out'))
    expectProblem(await say(outsider, id, 'let me in'), 403, 'guild-members-only')
    expectProblem(await read(outsider, id), 403, 'guild-members-only')
    expectProblem(await say(outsider, randomUUID(), 'hi'), 404)
    expectProblem(await read(outsider, randomUUID()), 404)
  })
})

/** Requests the avatar processes answered on a route, from their /metrics (split only: in one process a port call is a call). */
async function avatarRequests(route: string): Promise<number> {
  let n = 0
  for (const p of (app as SplitTestApp).cluster.of('avatar')) {
    const text = await (await fetch(`${p.url}/metrics`)).text()
    for (const m of text.matchAll(/^http_requests_total\{([^}]*)\} (\d+)$/gm)) if (m[1]!.includes(`route="${route}"`)) n += Number(m[2])
  }
  return n
}

test.runIf(splitTarget)("a post reads its guild's members from the avatar service in one call, not one per member", async () => {
  const { id, leader, member } = await guildOfThree()
  const asked = async () => ({ together: await avatarRequests('/internal/v1/avatar-profiles'), each: await avatarRequests('/internal/v1/avatars/:id/profile') })
  const before = await asked()
  await posted(member, id, `hello @${(await app.inject({ url: `/api/v1/avatars/${leader.avatarId}`, headers: leader.auth })).json().name}`)
  expect(await asked()).toEqual({ together: before.together + 1, each: before.each })
})

describe('deleting', () => {
  test('the author, an officer and the leader delete; a plain member may not; tombstones stay in pages', async () => {
    const { id, leader, officer, member } = await guildOfThree()
    const own = await posted(member, id, 'mine')
    const byOfficer = await posted(leader, id, 'for the officer')
    const byLeader = await posted(officer, id, 'for the leader')
    const kept = await posted(leader, id, 'not yours')

    expectProblem(await remove(member, id, kept), 403, 'guild-role-required')
    expect((await remove(member, id, own)).statusCode).toBe(204)
    expect((await remove(officer, id, byOfficer)).statusCode).toBe(204)
    expect((await remove(leader, id, byLeader)).statusCode).toBe(204)
    // A tombstone deleted again: nothing changes.
    expect((await remove(leader, id, own)).statusCode).toBe(204)
    expectProblem(await remove(leader, id, randomUUID()), 404)
    expectProblem(await remove(await newPlayer(app, unique('Out')), id, kept), 403, 'guild-members-only')

    const items = (await read(member, id)).json().items
    expect(items.map((m: { text: string | null }) => m.text)).toEqual(['not yours', null, null, null])
    expect(items[3]).toMatchObject({ id: own, text: null, deletedBy: { avatarId: member.avatarId }, deletedAt: expect.any(String) })
    expect(items[2].deletedBy.avatarId).toBe(officer.avatarId)
    expect(items[1].deletedBy.avatarId).toBe(leader.avatarId)
  })
})

describe('mentions', () => {
  test('@name puts one MENTION in a member\'s inbox; not for the author, nor for a non-member', async () => {
    const tag = randomUUID().slice(0, 6)
    const { id, leader, officer, member } = await guildOfThree([`Lead${tag}`, `Sir Reg${tag}`, `Memb${tag}`])
    const outsider = await newPlayer(app, `Out${tag}`)
    const messageId = await posted(leader, id, `@"Sir Reg${tag}" and @memb${tag}, @Memb${tag} again; @Lead${tag} @Out${tag}`)
    for (const p of [officer, member]) {
      const mentions = await eventually('the mention', async () => {
        const found = (await notifications(p)).filter((n) => n.type === 'MENTION')
        return found.length > 0 ? found : undefined
      })
      expect(mentions).toMatchObject([{ type: 'MENTION', data: { messageId, guildId: id } }])
    }
    // Whatever was to come has come once a later mention arrived.
    await posted(member, id, `@Sir Reg${tag} last`)
    await eventually('the second mention', async () => (await notifications(officer)).filter((n) => n.type === 'MENTION').length === 2 || undefined)
    expect((await notifications(leader)).filter((n) => n.type === 'MENTION')).toEqual([])
    expect((await notifications(outsider)).filter((n) => n.type === 'MENTION')).toEqual([])
  })
})

describe('throttling', () => {
  test('the 11th message in 10 s is 429 with Retry-After until the oldest leaves the window', async () => {
    const { id, leader, member } = await guildOfThree()
    const start = clock.now()
    for (let i = 0; i < 10; i++) {
      await posted(member, id, `burst ${i}`)
      clock.advance(500)
    }
    const refused = await say(member, id, 'one too many')
    expectProblem(refused, 429, 'chat-rate-limited')
    // The first was sent at start, now is start + 5 s: it leaves the window 5 s from now.
    expect(refused.headers['retry-after']).toBe('5')
    // Another member is not held back.
    await posted(leader, id, 'me too')
    clock.set(new Date(start.getTime() + 10_001))
    await posted(member, id, 'again')
    expectProblem(await say(member, id, 'and again'), 429, 'chat-rate-limited')
  })
})

describe('what goes with what', () => {
  test('a disbanded guild takes its messages; a member who leaves keeps theirs under the name', async () => {
    const { id, leader, member } = await guildOfThree()
    const left = await posted(member, id, 'bye all')
    expect((await app.inject({ method: 'POST', url: guildUrl(id, `/members/${member.avatarId}/leave`), headers: member.auth })).statusCode).toBe(204)
    const items = (await read(leader, id)).json().items
    expect(items).toMatchObject([{ id: left, text: 'bye all', author: { avatarId: member.avatarId } }])
    expectProblem(await read(member, id), 403, 'guild-members-only')

    expect((await app.inject({ method: 'DELETE', url: guildUrl(id), headers: leader.auth })).statusCode).toBe(204)
    const rows = await app.database.db.execute(sql`select count(*)::int as n from guild.chat_messages where guild_id = ${id}`)
    expect((rows as unknown as { rows: { n: number }[] }).rows[0]!.n).toBe(0)
  })

  test('the export holds the player\'s own messages; a deleted account takes them', async () => {
    const { id, leader, member } = await guildOfThree()
    const mine = await posted(member, id, 'my words')
    await posted(leader, id, 'not in the export')
    const exported = (await app.inject({ url: '/api/v1/me/export', headers: member.auth })).json()
    expect(exported.avatars[0].chatMessages).toMatchObject([{ id: mine, guildId: id, text: 'my words' }])

    const gone = await app.inject({ method: 'DELETE', url: '/api/v1/me', headers: member.auth, payload: { password: member.password } })
    expect(gone.statusCode).toBe(204)
    await eventually('the messages gone', async () => ((await texts(leader, id)).length === 1 ? true : undefined))
    expect(await texts(leader, id)).toEqual(['not in the export'])
  })
})

describe('the stream', () => {
  test("a new message and a deletion reach every member's stream", async () => {
    const { id, leader, member } = await guildOfThree()
    const stream = await openStream(`${await app.baseUrl()}/api/v1/avatars/${member.avatarId}/stream`, member.auth)
    try {
      const messageId = await posted(leader, id, 'on the stream')
      const event = await stream.next((e) => e.event === 'GuildMessagePosted')
      expect(event.data).toMatchObject({ type: 'GuildMessagePosted', payload: { messageId, guildId: id, text: 'on the stream', author: { avatarId: leader.avatarId } } })
      expect((await remove(leader, id, messageId)).statusCode).toBe(204)
      const deleted = await stream.next((e) => e.event === 'GuildMessageDeleted')
      expect(deleted.data).toMatchObject({ payload: { messageId, deletedBy: { avatarId: leader.avatarId } } })
    } finally {
      stream.close()
    }
  })
})
