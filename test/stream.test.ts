/**
 * The player's live stream (DESIGN §9.2), over a real socket: what reaches it and in which order,
 * replay after a reconnect, resync, tickets, token expiry and who may open it. Split: through
 * the gateway, with two live replicas holding the connections.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { ManualClock } from '../src/platform/clock.js'
import { buildTestApp, splitTarget, type TestApp } from './support/app.js'
import { joinGuild, newGuild } from './support/guilds.js'
import { newPlayer, type Player } from './support/players.js'
import { openStream, type OpenStream, type SseEvent } from './support/streams.js'

const clock = new ManualClock(new Date('2026-03-02T08:00:00Z'))
let app: TestApp
let base: string
const opened: OpenStream[] = []

beforeAll(async () => {
  app = await buildTestApp({ clock, env: { STREAM_HEARTBEAT_MS: '200' } })
  base = await app.baseUrl()
})
afterAll(async () => {
  for (const s of opened) s.close()
  await app?.close()
})

const streamUrl = (avatarId: string, query = '') => `${base}/api/v1/avatars/${avatarId}/stream${query}`
async function watch(p: Player, headers: Record<string, string> = p.auth, query = '', avatarId = p.avatarId): Promise<OpenStream> {
  const s = await openStream(streamUrl(avatarId, query), headers)
  opened.push(s)
  return s
}
const post = (p: Player, url: string, payload: object) => app.inject({ method: 'POST', url, headers: p.auth, payload })
async function earn(p: Player, amount: number): Promise<void> {
  const res = await post(p, `/api/v1/avatars/${p.avatarId}/money/earn`, { amount })
  expect(res.statusCode, res.body).toBe(204)
}
const isMoney = (amount: number) => (e: SseEvent) => e.event === 'AvatarChanged' && (e.data as { payload: { money: number } }).payload.money === amount
const ids = (s: OpenStream) => s.events.filter((e) => e.id !== undefined && e.event !== 'resync').map((e) => Number(e.id))
async function ticketFor(p: Player, avatarId = p.avatarId) {
  return post(p, `/api/v1/avatars/${avatarId}/stream-tickets`, {})
}

describe('the stream', () => {
  test('carries the avatar\'s changes as they commit, numbered in order, as server-sent events', async () => {
    const p = await newPlayer(app)
    const s = await watch(p)
    expect(s.status).toBe(200)
    expect(s.contentType).toMatch(/^text\/event-stream/)
    const money = (await app.inject({ url: `/api/v1/avatars/${p.avatarId}`, headers: p.auth })).json().money.amount as number
    for (const amount of [5, 7, 11]) await earn(p, amount)
    const last = await s.next(isMoney(money + 23))
    expect(last.data).toMatchObject({ type: 'AvatarChanged', occurredAt: expect.any(String), payload: { avatarId: p.avatarId, money: money + 23 } })
    const seen = ids(s)
    expect(seen.length).toBeGreaterThanOrEqual(1)
    expect(seen).toEqual([...seen].sort((a, b) => a - b))
    expect(new Set(seen).size).toBe(seen.length)
    // Heartbeats: a comment line every STREAM_HEARTBEAT_MS (200 ms here).
    await new Promise((r) => setTimeout(r, 450))
    expect(s.comments).toBeGreaterThan(0)
  })

  test('a reconnect with Last-Event-ID gets exactly what followed; without one, nothing old', async () => {
    const p = await newPlayer(app)
    const first = await watch(p)
    await earn(p, 1)
    const seenEvent = await first.next((e) => e.event === 'AvatarChanged')
    first.close()
    await earn(p, 2)
    await earn(p, 3)
    await app.settle()
    const again = await watch(p, { ...p.auth, 'last-event-id': seenEvent.id! })
    const fresh = await watch(p)
    const replayed = await again.next((e) => e.event === 'AvatarChanged' && Number(e.id) === Number(seenEvent.id) + 2)
    expect(replayed).toBeDefined()
    expect(ids(again)[0]).toBe(Number(seenEvent.id) + 1)
    expect(again.events.some((e) => e.event === 'resync')).toBe(false)
    // The same through the query parameter (EventSource with a ticket cannot set the header on its first try).
    const byQuery = await watch(p, p.auth, `?lastEventId=${seenEvent.id}`)
    await byQuery.next((e) => Number(e.id) === Number(seenEvent.id) + 2)
    await earn(p, 4)
    const live = await fresh.next((e) => e.event === 'AvatarChanged')
    expect(Number(live.id)).toBeGreaterThan(Number(seenEvent.id) + 2)
    expect(ids(fresh)).toEqual([Number(live.id)])
  })

  test('an unknown or unparseable Last-Event-ID starts with resync, and the stream goes on from there', async () => {
    const p = await newPlayer(app)
    const watching = await watch(p)
    await earn(p, 1)
    await watching.next((e) => e.event === 'AvatarChanged')
    for (const lastEventId of ['not-a-number', '999999', '-1']) {
      const s = await watch(p, { ...p.auth, 'last-event-id': lastEventId })
      const resync = await s.next(() => true)
      expect(resync.event).toBe('resync')
      expect(resync.data).toMatchObject({ detail: expect.any(String) })
      expect(Number(resync.id)).toBeGreaterThanOrEqual(1)
      s.close()
    }
  })

  /** A guild of two fighting a GOBLIN, its member watching. */
  async function battleWatched() {
    const leader = await newPlayer(app)
    const member = await newPlayer(app)
    const guildId = await newGuild(app, leader)
    await joinGuild(app, guildId, leader, member)
    await app.settle()
    const watching = await watch(member)
    const started = await post(leader, '/api/v1/battles', { guildId, bossType: 'GOBLIN', requesterId: leader.avatarId })
    expect(started.statusCode, started.body).toBe(200)
    return { leader, member, guildId, watching, battleId: started.json().id as string }
  }

  test('a guild battle: every member sees each turn with the boss\'s health after it, and its cancelling', async () => {
    const { leader, guildId, watching, battleId } = await battleWatched()
    const hit = await post(leader, `/api/v1/battles/${battleId}/damage`, { damage: 20, attackerAvatarId: leader.avatarId })
    expect(hit.statusCode, hit.body).toBe(204)
    const turn = await watching.next((e) => e.event === 'BattleTurnTaken')
    const battle = (await app.inject({ url: `/api/v1/battles/${battleId}`, headers: leader.auth })).json()
    expect(turn.data).toMatchObject({ payload: { battleId, guildId, turn: 1, avatarId: leader.avatarId, bossHealth: battle.bossRemainingHealth, status: 'IN_PROGRESS' } })
    expect((turn.data as { payload: { bossHealth: number; bossMaxHealth: number } }).payload.bossHealth).toBeLessThan((turn.data as { payload: { bossMaxHealth: number } }).payload.bossMaxHealth)
    await watching.next((e) => e.event === 'BattleStarted', 5_000)
    // Called off: the members' screens learn it too.
    const cancelled = await app.inject({ method: 'DELETE', url: `/api/v1/battles/${battleId}`, headers: leader.auth, payload: { guildId, requesterId: leader.avatarId } })
    expect(cancelled.statusCode, cancelled.body).toBe(204)
    expect((await watching.next((e) => e.event === 'BattleCancelled')).data).toMatchObject({ payload: { battleId, guildId, cancelledBy: leader.avatarId } })
  })

  test('a guild deleted in the middle of a battle: the members hear the battle called off, then the guild gone', async () => {
    const { leader, member, guildId, watching, battleId } = await battleWatched()
    const deleted = await app.inject({ method: 'DELETE', url: `/api/v1/guilds/${guildId}`, headers: leader.auth, payload: { requestorId: leader.avatarId } })
    expect(deleted.statusCode, deleted.body).toBe(204)
    // Told even when the guild's members are forgotten first: the event names its participants.
    const cancelled = await watching.next((e) => e.event === 'BattleCancelled')
    expect(cancelled.data).toMatchObject({ payload: { battleId, guildId, cancelledBy: leader.avatarId } })
    expect(new Set((cancelled.data as { payload: { participants: string[] } }).payload.participants)).toEqual(new Set([leader.avatarId, member.avatarId]))
    await watching.next((e) => e.event === 'GuildDisbanded')
    expect((await app.inject({ url: `/api/v1/battles/${battleId}`, headers: leader.auth })).statusCode).toBe(404)
  })

  test('an invite reaches the invitee\'s stream with its notification', async () => {
    const leader = await newPlayer(app)
    const target = await newPlayer(app)
    const s = await watch(target)
    const guildId = await newGuild(app, leader)
    const res = await post(leader, `/api/v1/guilds/${guildId}/invites`, { requestorId: leader.avatarId, targetAvatarId: target.avatarId })
    expect(res.statusCode, res.body).toBe(204)
    await s.next((e) => e.event === 'InviteSent')
    const note = await s.next((e) => e.event === 'NotificationCreated')
    expect(note.data).toMatchObject({ payload: { avatarId: target.avatarId, type: 'INVITE' } })
  })

  test(splitTarget ? 'streams held by either live replica all get the event' : 'several streams of one avatar all get each event', async () => {
    const p = await newPlayer(app)
    // The gateway spreads new streams over the replicas.
    const streams = await Promise.all(Array.from({ length: 6 }, () => watch(p)))
    await earn(p, 9)
    for (const s of streams) await s.next((e) => e.event === 'AvatarChanged')
  })
})

test('nothing is recorded while nobody watches: a replay across that time resyncs', async () => {
  const p = await newPlayer(app)
  const first = await watch(p)
  await earn(p, 1)
  const seen = await first.next((e) => e.event === 'AvatarChanged')
  first.close()
  // The server counts a stream as watched until it sees the socket close (an event meanwhile is kept).
  await new Promise((r) => setTimeout(r, 300))
  // Past the history window with no stream open: what follows is not kept.
  clock.advance(16 * 60_000)
  await app.baseUrl()
  await earn(p, 2)
  await app.settle()
  const again = await watch(p, { ...p.auth, 'last-event-id': seen.id! })
  expect((await again.next(() => true)).event).toBe('resync')
  // From then on it is recorded again, and goes to the stream live.
  await earn(p, 3)
  await again.next((e) => e.event === 'AvatarChanged')
})

describe('who may open a stream', () => {
  test('no credentials 401; another player\'s avatar 403; an unknown avatar 404, as problem+json', async () => {
    const p = await newPlayer(app)
    const other = await newPlayer(app)
    const anonymous = await watch(p, {})
    expect(anonymous.status).toBe(401)
    expect(anonymous.problem).toMatchObject({ status: 401 })
    expect((await watch(other, p.auth)).status).toBe(403)
    const unknown = await watch(p, p.auth, '', 'no-such-avatar')
    expect(unknown.status).toBe(404)
    expect(unknown.problem).toMatchObject({ status: 404 })
    expect((await watch(p, { authorization: 'Bearer garbage' })).status).toBe(401)
  })

  test('a ticket opens the stream once, without a header; reused, malformed or for another avatar it is refused', async () => {
    const p = await newPlayer(app)
    const other = await newPlayer(app)
    const issued = await ticketFor(p)
    expect(issued.statusCode, issued.body).toBe(201)
    expect(issued.json()).toEqual({ ticket: expect.any(String), expiresIn: 60 })
    const { ticket } = issued.json()
    const s = await watch(p, {}, `?ticket=${encodeURIComponent(ticket)}`)
    expect(s.status).toBe(200)
    await earn(p, 3)
    await s.next((e) => e.event === 'AvatarChanged')
    const reused = await watch(p, {}, `?ticket=${encodeURIComponent(ticket)}`)
    expect(reused.status).toBe(401)
    expect(reused.problem?.type).toMatch(/invalid-ticket$/)
    expect((await watch(p, {}, '?ticket=not-a-ticket')).status).toBe(401)
    // Another player's ticket (for their own avatar) does not open this avatar's stream.
    const theirs = (await ticketFor(other)).json().ticket as string
    expect((await watch(p, {}, `?ticket=${encodeURIComponent(theirs)}`)).status).toBe(401)
    // Tickets are asked for with the token, for one's own avatar.
    expect((await ticketFor(p, other.avatarId)).statusCode).toBe(403)
    expect((await app.inject({ method: 'POST', url: `/api/v1/avatars/${p.avatarId}/stream-tickets` })).statusCode).toBe(401)
  })

  test('a ticket expires after 60 s', async () => {
    const p = await newPlayer(app)
    const { ticket } = (await ticketFor(p)).json()
    clock.advance(61_000)
    await app.baseUrl() // split: the cluster's clocks follow
    expect((await watch(p, {}, `?ticket=${encodeURIComponent(ticket)}`)).status).toBe(401)
  })

  test('deleting the account ends its streams, opened with the token or with a ticket', async () => {
    const p = await newPlayer(app)
    const s = await watch(p)
    const ticketed = await watch(p, {}, `?ticket=${encodeURIComponent((await ticketFor(p)).json().ticket)}`)
    const deleted = await app.inject({ method: 'DELETE', url: '/api/v1/me', headers: p.auth, payload: { password: p.password } })
    expect(deleted.statusCode, deleted.body).toBe(204)
    // The token itself was never logged out: only the account-wide refusal can end them.
    for (const stream of [s, ticketed]) {
      await stream.next((e) => e.event === 'expired', 5_000)
      await stream.ended
    }
  })

  test('when the token that opened it expires, the stream says `expired` and ends', async () => {
    const p = await newPlayer(app)
    const s = await watch(p)
    const ticketed = await watch(p, {}, `?ticket=${encodeURIComponent((await ticketFor(p)).json().ticket)}`)
    clock.advance(2 * 3600_000)
    await app.baseUrl()
    for (const stream of [s, ticketed]) {
      await stream.next((e) => e.event === 'expired', 5_000)
      await stream.ended
    }
  })
})
