import { describe, expect, test } from 'vitest'
import { admit, changeRole, founding, guildName, leave, nickname, remove, transferLeadership, type Guild, type Invite, type Member } from './guild.js'

const day = (n: number) => new Date(Date.UTC(2026, 2, n))
const member = (avatarId: string, role: Member['role'], joined: number): Member => ({ avatarId, nickname: avatarId, role, joinedAt: day(joined) })
const guild = (members: Member[]): Guild => ({ id: 'g', name: 'Owls', points: 0, createdAt: day(1), members })
const invite = (target: string, expires = day(20)): Invite =>
  ({ id: 'i', guildId: 'g', targetAvatarId: target, invitedBy: 'lead', createdAt: day(1), expiresAt: expires })

describe('names', () => {
  test('are trimmed and 3–40 characters', () => {
    expect(guildName('  Owls ')).toBe('Owls')
    expect(() => guildName(' ab ')).toThrow()
    expect(() => guildName('x'.repeat(41))).toThrow()
    // Characters, not UTF-16 units: as the request's schema counts them.
    expect(guildName('🦉🦉🦉')).toBe('🦉🦉🦉')
    expect(() => guildName('🦉🦉')).toThrow()
    expect(guildName('🦉'.repeat(40))).toBe('🦉'.repeat(40))
    expect(nickname('🦉'.repeat(32), '/nickname')).toBe('🦉'.repeat(32))
    expect(nickname(' Bo ', '/nickname')).toBe('Bo')
    expect(() => nickname('   ', '/nickname')).toThrow()
  })

  test('the founder leads', () => {
    expect(founding({ id: 'g', name: 'Owls', createdAt: day(1) }, { avatarId: 'a', nickname: 'A' }).members)
      .toEqual([{ avatarId: 'a', nickname: 'A', role: 'LEADER', joinedAt: day(1) }])
  })
})

describe('accepting an invite', () => {
  const g = guild([member('lead', 'LEADER', 1)])

  test('adds the target as a member', () => {
    expect(admit(g, invite('t'), 't', 'Tee', day(2)).at(-1)).toEqual({ avatarId: 't', nickname: 'Tee', role: 'MEMBER', joinedAt: day(2) })
  })

  test('is refused for another avatar, after expiry, for a taken nickname (any case) and in a full guild', () => {
    expect(() => admit(g, invite('t'), 'u', 'U', day(2))).toThrow(/another avatar/)
    expect(() => admit(g, invite('t', day(8)), 't', 'Tee', day(8))).toThrow(/expired/)
    expect(() => admit(g, invite('t'), 't', 'LEAD', day(2))).toThrow(/already called/)
    const full = guild(Array.from({ length: 30 }, (_, i) => member(`m${i}`, i === 0 ? 'LEADER' : 'MEMBER', 1)))
    expect(() => admit(full, invite('t'), 't', 'Tee', day(2))).toThrow(/at most 30/)
  })
})

describe('leaving', () => {
  test('a leader hands over to the longest-serving officer', () => {
    const g = guild([member('lead', 'LEADER', 1), member('old', 'MEMBER', 2), member('off1', 'OFFICER', 3), member('off2', 'OFFICER', 4)])
    expect(leave(g, 'lead').find((m) => m.role === 'LEADER')?.avatarId).toBe('off1')
  })

  test('with no officer, to the longest-serving member', () => {
    const g = guild([member('lead', 'LEADER', 1), member('old', 'MEMBER', 2), member('new', 'MEMBER', 5)])
    expect(leave(g, 'lead').find((m) => m.role === 'LEADER')?.avatarId).toBe('old')
  })

  test('the last member leaves an empty guild; a stranger cannot leave', () => {
    expect(leave(guild([member('lead', 'LEADER', 1)]), 'lead')).toEqual([])
    expect(() => leave(guild([member('lead', 'LEADER', 1)]), 'x')).toThrow(/not a member/)
  })
})

describe('leader powers', () => {
  const g = guild([member('lead', 'LEADER', 1), member('off', 'OFFICER', 2), member('m', 'MEMBER', 3)])

  test('only the leader removes, never the leader', () => {
    expect(remove(g, 'lead', 'm').map((x) => x.avatarId)).toEqual(['lead', 'off'])
    expect(() => remove(g, 'off', 'm')).toThrow(/leader may/)
    expect(() => remove(g, 'lead', 'lead')).toThrow(/cannot be removed/)
  })

  test('only the leader changes roles, not their own', () => {
    expect(changeRole(g, 'lead', 'm', 'OFFICER').find((x) => x.avatarId === 'm')?.role).toBe('OFFICER')
    expect(() => changeRole(g, 'off', 'm', 'OFFICER')).toThrow(/leader may/)
    expect(() => changeRole(g, 'lead', 'lead', 'MEMBER')).toThrow(/own role/)
  })

  test('transfer makes the heir leader and the old leader an officer', () => {
    const after = transferLeadership(g, 'lead', 'm')
    expect(after.map((x) => [x.avatarId, x.role])).toEqual([['lead', 'OFFICER'], ['off', 'OFFICER'], ['m', 'LEADER']])
  })
})
