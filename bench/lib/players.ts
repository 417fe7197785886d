/** Players, avatars and guilds made through the public API for a bench. */
import { randomUUID } from 'node:crypto'
import { call } from './http.js'
import { SPREAD_PER_PLAYER } from './bench-avatars.js'
import type { Target } from './load.js'
import { inBatches } from './scenarios.js'

export interface Player {
  token: string
  /** The registration avatar (its id is the user id). */
  avatarId: string
  auth: { authorization: string }
}

export async function register(base: string, name = 'Bench'): Promise<Player> {
  const session = await call(base, undefined, 'POST', '/auth/register', { name, email: `bench-${randomUUID()}@example.com`, password: 'bench password' })
  const { token, userId } = session as { token: string; userId: string }
  return { token, avatarId: userId, auth: { authorization: `Bearer ${token}` } }
}

/**
 * The spread: `ids.length` avatars with these ids, SPREAD_PER_PLAYER per registered player.
 * Answers each avatar's earn request with its owner's token.
 */
export async function spreadAvatars(base: string, ids: string[]): Promise<Target[]> {
  const owners = await inBatches(Math.ceil(ids.length / SPREAD_PER_PLAYER), 4, (i) => register(base, `Spread ${i}`))
  const targets = await inBatches(ids.length, 16, async (i) => {
    const owner = owners[Math.floor(i / SPREAD_PER_PLAYER)]!
    await call(base, owner.token, 'POST', '/api/v1/avatars', { id: ids[i], name: `Spread ${i}` })
    return { path: `/api/v1/avatars/${ids[i]}/money/earn`, headers: owner.auth }
  })
  return targets
}

/** A POST that must answer 204; answers its Location header. */
async function post204(base: string, p: Player, url: string, body: unknown): Promise<string | null> {
  const res = await fetch(base + url, { method: 'POST', headers: { ...p.auth, 'content-type': 'application/json' }, body: JSON.stringify(body) })
  if (res.status !== 204) throw new Error(`POST ${url}: ${res.status} ${await res.text()}`)
  return res.headers.get('location')
}

export interface Guild {
  id: string
  leader: Player
  members: Player[]
}

/** Experience each member is granted (in grants of at most 1,000,000): level ~1,100, health ~11,000. */
const MEMBER_EXPERIENCE = 30_000_000
const GRANT_MAX = 1_000_000

/**
 * A guild of `size` players (the first leads), each wearing armor strong enough that a boss
 * strikes back with 1, and raised to a level whose health outlasts the penalties of the lost
 * battles of a run (a member that dies is fallen in its battle), so a battle ends by running out
 * of turns.
 */
export async function guildOf(base: string, size: number): Promise<Guild> {
  const members = await inBatches(size, 4, (i) => register(base, `Fighter ${i}`))
  const leader = members[0]!
  const { id } = (await call(base, leader.token, 'POST', '/api/v1/guilds', {
    name: `Bench ${randomUUID().slice(0, 8)}`, creatorAvatarId: leader.avatarId, creatorNickname: 'Chief',
  })) as { id: string }
  for (const [i, p] of members.slice(1).entries()) {
    const location = await post204(base, leader, `/api/v1/guilds/${id}/invites`, { requestorId: leader.avatarId, targetAvatarId: p.avatarId })
    const inviteId = location?.split('/').at(-1)
    if (!inviteId) throw new Error('an invite answered no Location')
    await post204(base, p, `/api/v1/guilds/${id}/invites/${inviteId}/accept`, { avatarId: p.avatarId, nickname: `Fighter ${i + 1}` })
  }
  await inBatches(size, 4, async (i) => {
    const p = members[i]!
    const armor = { type: 'ARMOR', name: 'Bench Plate', description: 'heavy', power: 50 }
    await post204(base, p, `/api/v1/avatars/${p.avatarId}/inventory/items`, armor)
    await post204(base, p, `/api/v1/avatars/${p.avatarId}/inventory/items/equip`, { type: 'ARMOR', name: armor.name })
    for (let granted = 0; granted < MEMBER_EXPERIENCE; granted += GRANT_MAX) {
      await call(base, p.token, 'POST', `/api/v1/avatars/${p.avatarId}/experience/grant`, { amount: GRANT_MAX })
    }
  })
  return { id, leader, members }
}
