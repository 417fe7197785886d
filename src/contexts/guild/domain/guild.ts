/**
 * Guild membership rules. Pure: callers load the guild with its members, ask a rule, and save
 * the member list it answers.
 */
import {
  AlreadyMember, CannotChangeOwnRole, GuildFull, GuildRoleRequired, InvalidGuildName, InvalidNickname, InviteExpired, InvitePending,
  LeaderCannotBeRemoved, NicknameTaken, NotAMember, NotInviteTarget,
} from './errors.js'
import { GUILD_NAME_MAX, GUILD_NAME_MIN, INVITE_TTL_MS, MEMBER_CAP, NICKNAME_MAX, NICKNAME_MIN, type ASSIGNABLE_ROLES, type ROLES } from './rules.js'

export type Role = (typeof ROLES)[number]
export type AssignableRole = (typeof ASSIGNABLE_ROLES)[number]

export interface Member {
  avatarId: string
  nickname: string
  role: Role
  joinedAt: Date
}

export interface Guild {
  id: string
  name: string
  points: number
  createdAt: Date
  /** In joining order: the longest-serving first. */
  members: Member[]
}

export interface Invite {
  id: string
  guildId: string
  targetAvatarId: string
  invitedBy: string
  createdAt: Date
  expiresAt: Date
}

export const INVITERS: readonly Role[] = ['LEADER', 'OFFICER']
export const LEADER_ONLY: readonly Role[] = ['LEADER']

/** Lengths count characters (code points), as a JSON schema's `minLength` and `maxLength` do. */
function lengthWithin(text: string, min: number, max: number): boolean {
  const characters = [...text].length
  return characters >= min && characters <= max
}

export function guildName(raw: string): string {
  const name = raw.trim()
  if (!lengthWithin(name, GUILD_NAME_MIN, GUILD_NAME_MAX)) throw new InvalidGuildName(GUILD_NAME_MIN, GUILD_NAME_MAX)
  return name
}

export function nickname(raw: string, path: string): string {
  const nick = raw.trim()
  if (!lengthWithin(nick, NICKNAME_MIN, NICKNAME_MAX)) throw new InvalidNickname(path, NICKNAME_MIN, NICKNAME_MAX)
  return nick
}

export const memberOf = (g: Guild, avatarId: string): Member | undefined => g.members.find((m) => m.avatarId === avatarId)

export const leaderOf = (g: Guild): Member => g.members.find((m) => m.role === 'LEADER')!

/** The acting member, who must hold one of `roles`. */
export function actingAs(g: Guild, avatarId: string, roles: readonly Role[], action: string): Member {
  const m = memberOf(g, avatarId)
  if (!m || !roles.includes(m.role)) throw new GuildRoleRequired(action, roles)
  return m
}

function requireMember(g: Guild, avatarId: string): Member {
  const m = memberOf(g, avatarId)
  if (!m) throw new NotAMember(avatarId)
  return m
}

const sameNickname = (a: string, b: string) => a.toLowerCase() === b.toLowerCase()

export function founding(g: Omit<Guild, 'members' | 'points'>, founder: { avatarId: string; nickname: string }): Guild {
  return { ...g, points: 0, members: [{ ...founder, role: 'LEADER', joinedAt: g.createdAt }] }
}

/** An invite is pending until it expires; an expired one can be neither seen, answered nor repeated against. */
export const isPending = (invite: Invite, now: Date): boolean => invite.expiresAt > now

/** A new invite of the target, unless an earlier one is still pending (an expired one is replaced). */
export function newInvite(i: Pick<Invite, 'id' | 'guildId' | 'targetAvatarId' | 'invitedBy'>, earlier: Invite | undefined, now: Date): Invite {
  if (earlier && isPending(earlier, now)) throw new InvitePending(i.targetAvatarId)
  return { ...i, createdAt: now, expiresAt: new Date(now.getTime() + INVITE_TTL_MS) }
}

/** The member list after the invite's target accepts under `nick`. */
export function admit(g: Guild, invite: Invite, avatarId: string, nick: string, now: Date): Member[] {
  if (invite.targetAvatarId !== avatarId) throw new NotInviteTarget(avatarId)
  if (!isPending(invite, now)) throw new InviteExpired(invite.expiresAt.toISOString())
  if (memberOf(g, avatarId)) throw new AlreadyMember(avatarId)
  if (g.members.length >= MEMBER_CAP) throw new GuildFull(MEMBER_CAP)
  if (g.members.some((m) => sameNickname(m.nickname, nick))) throw new NicknameTaken(nick)
  return [...g.members, { avatarId, nickname: nick, role: 'MEMBER', joinedAt: now }]
}

/** Members are kept in joining order, so the longest-serving is the first. */
const longestServing = (members: Member[]): Member | undefined => members[0]

/**
 * The member list after `avatarId` leaves. A leaving leader hands over to the longest-serving
 * officer, else the longest-serving member; an empty list means the guild is gone.
 */
export function leave(g: Guild, avatarId: string): Member[] {
  const leaving = requireMember(g, avatarId)
  const rest = g.members.filter((m) => m.avatarId !== avatarId)
  if (leaving.role !== 'LEADER' || rest.length === 0) return rest
  const heir = longestServing(rest.filter((m) => m.role === 'OFFICER')) ?? longestServing(rest)!
  return rest.map((m) => (m.avatarId === heir.avatarId ? { ...m, role: 'LEADER' } : m))
}

export function remove(g: Guild, requestorId: string, memberId: string): Member[] {
  actingAs(g, requestorId, LEADER_ONLY, 'remove members')
  const target = requireMember(g, memberId)
  if (target.role === 'LEADER') throw new LeaderCannotBeRemoved()
  return g.members.filter((m) => m.avatarId !== memberId)
}

export function changeRole(g: Guild, requestorId: string, memberId: string, role: AssignableRole): Member[] {
  actingAs(g, requestorId, LEADER_ONLY, 'change roles')
  if (requestorId === memberId) throw new CannotChangeOwnRole()
  requireMember(g, memberId)
  return g.members.map((m) => (m.avatarId === memberId ? { ...m, role } : m))
}

/** The leader hands leadership to another member and becomes an officer. */
export function transferLeadership(g: Guild, requestorId: string, heirId: string): Member[] {
  actingAs(g, requestorId, LEADER_ONLY, 'transfer leadership')
  requireMember(g, heirId)
  if (heirId === requestorId) return g.members
  return g.members.map((m) => {
    if (m.avatarId === heirId) return { ...m, role: 'LEADER' }
    if (m.avatarId === requestorId) return { ...m, role: 'OFFICER' }
    return m
  })
}

/** Members in both lists whose role differs: their new roles. */
export function roleChanges(before: Member[], after: Member[]): { avatarId: string; role: Role }[] {
  const was = new Map(before.map((m) => [m.avatarId, m.role]))
  return after.filter((m) => was.has(m.avatarId) && was.get(m.avatarId) !== m.role).map((m) => ({ avatarId: m.avatarId, role: m.role }))
}
