import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { EXPIRE_INVITES_JOB } from '../src/contexts/guild/index.js'
import { ManualClock } from '../src/platform/clock.js'
import { buildTestApp, type TestApp } from './support/app.js'
import { guildName, guildOf, guildUrl, inviteTo, joinGuild, newGuild } from './support/guilds.js'
import { attend, newHabit } from './support/habits.js'
import { newPlayer, signIn, type Player } from './support/players.js'
import { expectProblem } from './support/problems.js'

const clock = new ManualClock(new Date('2026-03-02T08:00:00Z'))
let app: TestApp
beforeAll(async () => {
  app = await buildTestApp({ clock, env: { ACCESS_TOKEN_TTL_SECONDS: '86400' } })
})
afterAll(() => app.close())

const post = (p: Player, url: string, payload?: object) => app.inject({ method: 'POST', url, headers: p.auth, ...(payload ? { payload } : {}) })
const patch = (p: Player, url: string, payload: object) => app.inject({ method: 'PATCH', url, headers: p.auth, payload })
const del = (p: Player, url: string, payload?: object) => app.inject({ method: 'DELETE', url, headers: p.auth, ...(payload ? { payload } : {}) })
const get = (p: Player, url: string) => app.inject({ url, headers: p.auth })

async function guildWith(n: number) {
  const players = await Promise.all(Array.from({ length: n }, (_, i) => newPlayer(app, `Player ${i}`)))
  const [leader, ...rest] = players as [Player, ...Player[]]
  const id = await newGuild(app, leader)
  for (const p of rest) await joinGuild(app, id, leader, p)
  return { id, leader, rest, players }
}

describe('a guild from founding to its members coming and going', () => {
  test('create, invite, accept, promote, officer invites, leave, remove', async () => {
    const [lead, ann, bob, cat] = await Promise.all([newPlayer(app, 'Lead'), newPlayer(app, 'Ann'), newPlayer(app, 'Bob'), newPlayer(app, 'Cat')])
    const name = guildName('Night Owls')
    const created = await post(lead, '/api/v1/guilds', { name: `  ${name} `, creatorAvatarId: lead.avatarId, creatorNickname: 'Boss' })
    expect(created.statusCode).toBe(200)
    const id = created.json().id
    expect(created.json()._links.self.href).toBe(guildUrl(id))

    const inviteId = await inviteTo(app, id, lead, ann)
    const listed = (await get(lead, guildUrl(id, '/invites'))).json().items
    expect(listed).toMatchObject([{ id: inviteId, targetAvatarId: ann.avatarId, invitedBy: lead.avatarId }])
    expect((await get(ann, `/api/v1/avatars/${ann.avatarId}/invites`)).json().items.map((i: { id: string }) => i.id)).toEqual([inviteId])
    expect((await get(ann, guildUrl(id, `/invites/${inviteId}`))).json().guildId).toBe(id)

    expect((await post(ann, guildUrl(id, `/invites/${inviteId}/accept`), { avatarId: ann.avatarId, nickname: 'Annie' })).statusCode).toBe(204)
    expect((await get(ann, `/api/v1/avatars/${ann.avatarId}/invites`)).json().items).toEqual([])

    expect((await patch(lead, guildUrl(id, `/members/${ann.avatarId}/role`), { roleName: 'OFFICER', requestorId: lead.avatarId })).statusCode).toBe(204)
    await joinGuild(app, id, ann, bob, 'Bobby')
    await joinGuild(app, id, ann, cat, 'Kitty')

    const g = await guildOf(app, lead, id)
    expect(g).toMatchObject({ id, name, globalRank: expect.any(Number), points: 0 })
    expect(g.members.map((m: { nickname: string; role: string }) => [m.nickname, m.role]))
      .toEqual([['Boss', 'LEADER'], ['Annie', 'OFFICER'], ['Bobby', 'MEMBER'], ['Kitty', 'MEMBER']])
    expect((await get(cat, guildUrl(id, '/members'))).json()).toHaveLength(4)

    expect((await post(bob, guildUrl(id, `/members/${bob.avatarId}/leave`))).statusCode).toBe(204)
    expect((await del(lead, guildUrl(id, `/members/${cat.avatarId}`), { requestorId: lead.avatarId })).statusCode).toBe(204)
    expect((await guildOf(app, lead, id)).members.map((m: { avatarId: string }) => m.avatarId)).toEqual([lead.avatarId, ann.avatarId])

    // Those who left may join another guild.
    expect((await post(bob, '/api/v1/guilds', { name: guildName(), creatorAvatarId: bob.avatarId, creatorNickname: 'B' })).statusCode).toBe(200)
  })

  test('a leaving leader hands over to the longest-serving officer; the last one out deletes the guild', async () => {
    const { id, leader, rest: [first, second] } = await guildWith(3)
    expect((await patch(leader, guildUrl(id, `/members/${second!.avatarId}/role`), { roleName: 'OFFICER', requestorId: leader.avatarId })).statusCode).toBe(204)
    expect((await post(leader, guildUrl(id, `/members/${leader.avatarId}/leave`))).statusCode).toBe(204)
    const roles = (await guildOf(app, first!, id)).members.map((m: { avatarId: string; role: string }) => [m.avatarId, m.role])
    expect(roles).toEqual([[first!.avatarId, 'MEMBER'], [second!.avatarId, 'LEADER']])

    expect((await post(first!, guildUrl(id, `/members/${first!.avatarId}/leave`))).statusCode).toBe(204)
    expect((await post(second!, guildUrl(id, `/members/${second!.avatarId}/leave`))).statusCode).toBe(204)
    expectProblem(await get(second!, guildUrl(id)), 404)
  })

  test("a deleted avatar leaves its guild (the leader's succession included) and its invites go; the last one deletes the guild", async () => {
    const { id, leader, rest: [member] } = await guildWith(2)
    const other = await guildWith(1)
    const invited = await inviteTo(app, other.id, other.leader, member!)
    expect((await del(leader, `/api/v1/avatars/${leader.avatarId}`)).statusCode).toBe(204)
    await app.settle()
    const after = await guildOf(app, member!, id)
    expect(after.members.map((m: { avatarId: string; role: string }) => [m.avatarId, m.role])).toEqual([[member!.avatarId, 'LEADER']])
    expect((await get(member!, guildUrl(other.id, `/invites/${invited}`))).statusCode).toBe(200)

    expect((await del(member!, `/api/v1/avatars/${member!.avatarId}`)).statusCode).toBe(204)
    await app.settle()
    expectProblem(await get(other.leader, guildUrl(id)), 404)
    expect((await get(other.leader, guildUrl(other.id, '/invites'))).json().items).toEqual([])
  })

  test("membership events carry the guild's version after each change, the disbanding one included", async () => {
    const { id, leader, rest: [member] } = await guildWith(2)
    expect((await patch(leader, guildUrl(id, `/members/${member!.avatarId}/role`), { roleName: 'OFFICER', requestorId: leader.avatarId })).statusCode).toBe(204)
    expect((await post(member!, guildUrl(id, `/members/${member!.avatarId}/leave`))).statusCode).toBe(204)
    expect((await post(leader, guildUrl(id, `/members/${leader.avatarId}/leave`))).statusCode).toBe(204)
    const rows = await app.database.db.execute(sql`select type, version from guild.outbox where aggregate_id = ${id} order by seq`)
    // Founded (1), joined (2), a role changed (3), left (4), the last one out (5).
    expect((rows as unknown as { rows: { type: string; version: number }[] }).rows.map((r) => [r.type, r.version])).toEqual([
      ['GuildCreated', 1], ['MemberJoined', 2], ['MemberRolesChanged', 3], ['MemberLeft', 4], ['MemberLeft', 5], ['GuildDisbanded', 5],
    ])
    const roles = await app.database.db.execute(sql`select payload from guild.outbox where aggregate_id = ${id} and type = 'MemberRolesChanged'`)
    expect((roles as unknown as { rows: { payload: unknown }[] }).rows[0]!.payload).toEqual({ guildId: id, changes: [{ avatarId: member!.avatarId, role: 'OFFICER' }] })
  })

  test('leadership transfer makes the old leader an officer', async () => {
    const { id, leader, rest: [heir] } = await guildWith(2)
    expect((await post(leader, guildUrl(id, '/leader'), { avatarId: heir!.avatarId, requestorId: leader.avatarId })).statusCode).toBe(204)
    const roles = (await guildOf(app, leader, id)).members.map((m: { role: string }) => m.role)
    expect(roles).toEqual(['OFFICER', 'LEADER'])
    expectProblem(await post(leader, guildUrl(id, '/leader'), { avatarId: leader.avatarId, requestorId: leader.avatarId }), 403, 'guild-role-required')
  })

  test('the leader deletes the guild with or without a body', async () => {
    const a = await guildWith(2)
    expectProblem(await del(a.rest[0]!, guildUrl(a.id)), 403, 'not-owner')
    expectProblem(await del(a.rest[0]!, guildUrl(a.id), { requestorId: a.rest[0]!.avatarId }), 403, 'guild-role-required')
    expect((await del(a.leader, guildUrl(a.id))).statusCode).toBe(204)
    expectProblem(await get(a.leader, guildUrl(a.id)), 404)
    const b = await guildWith(1)
    expect((await del(b.leader, guildUrl(b.id), { requestorId: b.leader.avatarId })).statusCode).toBe(204)
  })
})

describe('invites', () => {
  test('are declined by their target or withdrawn by an officer, and are gone after', async () => {
    const { id, leader } = await guildWith(1)
    const [t1, t2] = await Promise.all([newPlayer(app), newPlayer(app)])
    const i1 = await inviteTo(app, id, leader, t1)
    const i2 = await inviteTo(app, id, leader, t2)
    expectProblem(await del(t2, guildUrl(id, `/invites/${i1}`)), 403)
    expect((await del(t1, guildUrl(id, `/invites/${i1}`))).statusCode).toBe(204)
    expect((await del(leader, guildUrl(id, `/invites/${i2}`))).statusCode).toBe(204)
    expectProblem(await post(t1, guildUrl(id, `/invites/${i1}/accept`), { avatarId: t1.avatarId, nickname: 'x' }), 404)
    expect((await get(leader, guildUrl(id, '/invites'))).json().items).toEqual([])
  })

  test('expire after 7 days', async () => {
    const { id, leader } = await guildWith(1)
    const t = await newPlayer(app)
    const inviteId = await inviteTo(app, id, leader, t)
    clock.advance(7 * 86_400_000 + 1000)
    await signIn(app, t)
    await signIn(app, leader)
    try {
      expectProblem(await post(t, guildUrl(id, `/invites/${inviteId}/accept`), { avatarId: t.avatarId, nickname: 'Late' }), 400, 'invite-expired')
      expect((await get(t, `/api/v1/avatars/${t.avatarId}/invites`)).json().items).toEqual([])
      // Gone for every purpose, before the expiry job runs: not readable, not withdrawable.
      expectProblem(await get(leader, guildUrl(id, `/invites/${inviteId}`)), 404)
      expectProblem(await del(leader, guildUrl(id, `/invites/${inviteId}`)), 404)
      // An expired invite does not block a new one.
      const again = await inviteTo(app, id, leader, t)
      expect((await post(t, guildUrl(id, `/invites/${again}/accept`), { avatarId: t.avatarId, nickname: 'Late' })).statusCode).toBe(204)
    } finally {
      clock.advance(-(7 * 86_400_000 + 1000))
    }
  })

  test('the invite expiry job removes expired invites and keeps pending ones', async () => {
    const { id, leader } = await guildWith(1)
    const [late, soon] = await Promise.all([newPlayer(app), newPlayer(app)])
    const expired = await inviteTo(app, id, leader, late)
    const pending = await inviteTo(app, id, leader, soon)
    // Under the API: one invite ran out long ago; the other has days left.
    await app.database.db.execute(sql`update guild.invites set expires_at = created_at - interval '1 day' where id = ${expired}`)
    await app.runJob(EXPIRE_INVITES_JOB)
    const rows = await app.database.db.execute(sql`select id from guild.invites where id in (${expired}, ${pending})`)
    expect((rows as unknown as { rows: { id: string }[] }).rows.map((r) => r.id)).toEqual([pending])
    expect((await get(soon, guildUrl(id, `/invites/${pending}`))).statusCode).toBe(200)
  })
})

describe('refusals', () => {
  test('403: acting avatars the caller does not own, and missing guild roles', async () => {
    const { id, leader, rest: [member] } = await guildWith(2)
    const outsider = await newPlayer(app)
    const m = member!
    // Someone else's avatar in an acting field.
    expectProblem(await post(outsider, '/api/v1/guilds', { name: guildName(), creatorAvatarId: leader.avatarId, creatorNickname: 'x' }), 403, 'not-owner')
    expectProblem(await post(outsider, guildUrl(id, '/invites'), { requestorId: leader.avatarId, targetAvatarId: outsider.avatarId }), 403, 'not-owner')
    expectProblem(await del(outsider, guildUrl(id, `/members/${m.avatarId}`), { requestorId: leader.avatarId }), 403, 'not-owner')
    expectProblem(await patch(outsider, guildUrl(id, `/members/${m.avatarId}/role`), { roleName: 'OFFICER', requestorId: leader.avatarId }), 403, 'not-owner')
    expectProblem(await post(outsider, guildUrl(id, `/members/${m.avatarId}/leave`)), 403, 'not-owner')
    // Own avatar, wrong role.
    expectProblem(await post(m, guildUrl(id, '/invites'), { requestorId: m.avatarId, targetAvatarId: outsider.avatarId }), 403, 'guild-role-required')
    expectProblem(await del(m, guildUrl(id, `/members/${leader.avatarId}`), { requestorId: m.avatarId }), 403, 'guild-role-required')
    expectProblem(await patch(m, guildUrl(id, `/members/${m.avatarId}/role`), { roleName: 'OFFICER', requestorId: m.avatarId }), 403, 'guild-role-required')
    expectProblem(await post(m, guildUrl(id, '/leader'), { avatarId: m.avatarId, requestorId: m.avatarId }), 403, 'guild-role-required')
    expectProblem(await post(outsider, guildUrl(id, '/invites'), { requestorId: outsider.avatarId, targetAvatarId: outsider.avatarId }), 403, 'guild-role-required')
    // Private lists.
    expectProblem(await get(m, guildUrl(id, '/invites')), 403)
    expectProblem(await get(outsider, `/api/v1/avatars/${leader.avatarId}/invites`), 403)
    // Accepting for an avatar the caller does not own.
    const inviteId = await inviteTo(app, id, leader, outsider)
    expectProblem(await post(m, guildUrl(id, `/invites/${inviteId}/accept`), { avatarId: outsider.avatarId, nickname: 'x' }), 403, 'not-owner')
    expectProblem(await get(m, guildUrl(id, `/invites/${inviteId}`)), 403)
  })

  test('404: unknown guilds, invites and avatars', async () => {
    const p = await newPlayer(app)
    const missing = '00000000-0000-4000-8000-000000000000'
    for (const rest of ['', '/members', '/rank', '/invites']) expectProblem(await get(p, guildUrl(missing, rest)), 404)
    expectProblem(await del(p, guildUrl(missing)), 404)
    expectProblem(await post(p, guildUrl(missing, '/invites'), { requestorId: p.avatarId, targetAvatarId: p.avatarId }), 404)
    expectProblem(await post(p, guildUrl(missing, `/invites/${missing}/accept`), { avatarId: p.avatarId, nickname: 'x' }), 404)
    expectProblem(await post(p, guildUrl(missing, `/members/${p.avatarId}/leave`)), 404)
    expectProblem(await get(p, '/api/v1/avatars/nobody-here/invites'), 404)
    const { id, leader } = await guildWith(1)
    expectProblem(await get(leader, guildUrl(id, `/invites/${missing}`)), 404)
  })

  test('400: bad names, members and strangers, expired or foreign invites, own role, the leader', async () => {
    const { id, leader, rest: [member] } = await guildWith(2)
    const m = member!
    const [p, q] = await Promise.all([newPlayer(app), newPlayer(app)])
    expectProblem(await post(p, '/api/v1/guilds', { name: '  ab  ', creatorAvatarId: p.avatarId, creatorNickname: 'x' }), 400, 'invalid-guild-name')
    expectProblem(await post(p, '/api/v1/guilds', { name: guildName(), creatorAvatarId: p.avatarId, creatorNickname: ` ${'x'.repeat(33)} ` }), 400, 'invalid-nickname')
    // What the schema says (3 characters or more, not blank) is refused before the rules: 400 `validation` naming the field.
    for (const [name, nickname, field] of [['ab', 'x', 'body/name'], ['     ', 'x', 'body/name'], [guildName(), '   ', 'body/creatorNickname']]) {
      const res = await post(p, '/api/v1/guilds', { name, creatorAvatarId: p.avatarId, creatorNickname: nickname })
      expectProblem(res, 400, 'validation')
      expect(new Set(res.json().errors.map((e: { path: string }) => e.path)), `${name}/${nickname}`).toEqual(new Set([field]))
    }
    expectProblem(await post(p, '/api/v1/guilds', { name: guildName(), creatorAvatarId: p.avatarId }), 400, 'validation')
    const founding = await post(m, '/api/v1/guilds', { name: guildName(), creatorAvatarId: m.avatarId, creatorNickname: 'x' })
    expectProblem(founding, 409, 'already-in-guild')
    expect(founding.json().detail).toContain(id)
    expectProblem(await post(leader, guildUrl(id, '/invites'), { requestorId: leader.avatarId, targetAvatarId: 'no-such-avatar' }), 400, 'unknown-avatar')
    expectProblem(await post(leader, guildUrl(id, '/invites'), { requestorId: leader.avatarId, targetAvatarId: m.avatarId }), 400, 'already-member')
    const inviteId = await inviteTo(app, id, leader, p)
    expectProblem(await post(q, guildUrl(id, `/invites/${inviteId}/accept`), { avatarId: q.avatarId, nickname: 'x' }), 400, 'not-invite-target')
    expectProblem(await patch(leader, guildUrl(id, `/members/${leader.avatarId}/role`), { roleName: 'MEMBER', requestorId: leader.avatarId }), 400, 'own-role')
    expectProblem(await patch(leader, guildUrl(id, `/members/${m.avatarId}/role`), { roleName: 'LEADER', requestorId: leader.avatarId }), 400, 'validation')
    expectProblem(await patch(leader, guildUrl(id, `/members/${p.avatarId}/role`), { roleName: 'OFFICER', requestorId: leader.avatarId }), 400, 'not-a-member')
    expectProblem(await del(leader, guildUrl(id, `/members/${leader.avatarId}`), { requestorId: leader.avatarId }), 400, 'leader-cannot-be-removed')
    // An avatar in a guild cannot accept another guild's invite.
    const other = await guildWith(1)
    const cross = await inviteTo(app, other.id, other.leader, m)
    const accepted = await post(m, guildUrl(other.id, `/invites/${cross}/accept`), { avatarId: m.avatarId, nickname: 'x' })
    expectProblem(accepted, 409, 'already-in-guild')
    expect(accepted.json().detail).toContain(id)
  })

  test('409 naming the guild: an invite accepted after the avatar joined another, or racing other accepts', async () => {
    const joiner = await newPlayer(app)
    const guilds = await Promise.all([guildWith(1), guildWith(1), guildWith(1), guildWith(1)])
    const invites = await Promise.all(guilds.map((g) => inviteTo(app, g.id, g.leader, joiner)))
    const answers = await Promise.all(guilds.map((g, i) => post(joiner, guildUrl(g.id, `/invites/${invites[i]}/accept`), { avatarId: joiner.avatarId, nickname: 'j' })))
    expect(answers.map((a) => a.statusCode).sort()).toEqual([204, 409, 409, 409])
    const joined = guilds[answers.findIndex((a) => a.statusCode === 204)]!.id
    for (const refused of answers.filter((a) => a.statusCode === 409)) {
      expectProblem(refused, 409, 'already-in-guild')
      expect(refused.json().detail).toContain(joined)
    }
    // Joining withdrew the other invites; accepting one later still says why.
    const later = guilds.find((g) => g.id !== joined)!
    const again = await post(joiner, guildUrl(later.id, `/invites/${invites[guilds.indexOf(later)]}/accept`), { avatarId: joiner.avatarId, nickname: 'j' })
    expectProblem(again, 409, 'already-in-guild')
    expect(again.json().detail).toContain(joined)
    // The same accept again, once a member: already a member of this guild.
    const twice = await post(joiner, guildUrl(joined, `/invites/${invites[guilds.findIndex((g) => g.id === joined)]}/accept`), { avatarId: joiner.avatarId, nickname: 'j' })
    expectProblem(twice, 400, 'already-member')
  })

  test('409: guild names ignoring case, nicknames in a guild, a second pending invite', async () => {
    const name = guildName('Dup')
    const [a, b, c] = await Promise.all([newPlayer(app), newPlayer(app), newPlayer(app)])
    const id = await newGuild(app, a, name)
    expectProblem(await post(b, '/api/v1/guilds', { name: name.toUpperCase(), creatorAvatarId: b.avatarId, creatorNickname: 'x' }), 409, 'guild-name-taken')
    const inviteId = await inviteTo(app, id, a, b)
    expectProblem(await post(a, guildUrl(id, '/invites'), { requestorId: a.avatarId, targetAvatarId: b.avatarId }), 409, 'invite-pending')
    expectProblem(await post(b, guildUrl(id, `/invites/${inviteId}/accept`), { avatarId: b.avatarId, nickname: 'chief' }), 409, 'nickname-taken')
    expect((await post(b, guildUrl(id, `/invites/${inviteId}/accept`), { avatarId: b.avatarId, nickname: 'Second' })).statusCode).toBe(204)
    void c
  })

  test('a guild holds at most 30 members', async () => {
    const { id, leader } = await guildWith(1)
    const others = await Promise.all(Array.from({ length: 30 }, () => newPlayer(app)))
    for (const p of others.slice(0, 29)) await joinGuild(app, id, leader, p)
    const last = others[29]!
    const inviteId = await inviteTo(app, id, leader, last)
    expectProblem(await post(last, guildUrl(id, `/invites/${inviteId}/accept`), { avatarId: last.avatarId, nickname: 'thirty-one' }), 400, 'guild-full')
    expect((await guildOf(app, leader, id)).members).toHaveLength(30)
  })
})

describe('points and rank', () => {
  test("members' habit completions earn points; rank and leaderboard follow", async () => {
    const top = await guildWith(2)
    const low = await guildWith(1)
    const habit = await newHabit(app, top.rest[0]!)
    expect((await attend(app, top.rest[0]!, habit, '2026-03-02T08:00:00')).statusCode).toBe(204)
    const own = await newHabit(app, top.leader)
    expect((await attend(app, top.leader, own, '2026-03-02T09:00:00')).statusCode).toBe(204)
    await app.settle()
    const g = await guildOf(app, top.leader, top.id)
    expect(g.points).toBe(2)
    const topRank = (await get(top.leader, guildUrl(top.id, '/rank'))).json().globalRank
    const lowRank = (await get(low.leader, guildUrl(low.id, '/rank'))).json().globalRank
    expect(g.globalRank).toBe(topRank)
    expect(topRank).toBeLessThan(lowRank)

    const board = (await get(top.leader, '/api/v1/guilds/leaderboard?limit=200')).json()._embedded.guilds as { id: string; globalRank: number; points: number }[]
    expect(board.map((x) => x.globalRank)).toEqual(board.map((_, i) => i + 1))
    for (let i = 1; i < board.length; i++) expect(board[i - 1]!.points).toBeGreaterThanOrEqual(board[i]!.points)
    expect(board.find((x) => x.id === top.id)?.globalRank).toBe(topRank)
    expect(board.find((x) => x.id === low.id)?.globalRank).toBe(lowRank)
    expect((await get(top.leader, '/api/v1/guilds/leaderboard?limit=1')).json()._embedded.guilds).toHaveLength(1)
    expectProblem(await get(top.leader, '/api/v1/guilds/leaderboard?limit=0'), 400)
  })

  test('equal points: the older guild ranks first', async () => {
    const older = await guildWith(1)
    const newer = await guildWith(1)
    const r = async (g: { id: string; leader: Player }) => (await get(g.leader, guildUrl(g.id, '/rank'))).json().globalRank
    expect(await r(newer)).toBeGreaterThan(await r(older))
  })
})

describe('finding guilds', () => {
  test('by name, a page at a time', async () => {
    const tag = guildName('Findme').split(' ')[1]!
    for (let i = 0; i < 3; i++) await newGuild(app, await newPlayer(app), `Findme ${tag} ${i}`)
    const p = await newPlayer(app)
    const first = (await get(p, `/api/v1/guilds?name=${tag.toUpperCase()}&limit=2`)).json()
    expect(first.items.map((g: { name: string }) => g.name)).toEqual([`Findme ${tag} 0`, `Findme ${tag} 1`])
    const second = (await get(p, `/api/v1/guilds?name=${tag}&limit=2&cursor=${first.next}`)).json()
    expect(second.items.map((g: { name: string }) => g.name)).toEqual([`Findme ${tag} 2`])
    expect(second.next).toBeNull()
    expectProblem(await get(p, '/api/v1/guilds?cursor=00000000-0000-4000-8000-000000000000'), 400, 'invalid-cursor')
  })
})
