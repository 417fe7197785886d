import { links, type Links } from '../../../platform/http/links.js'
import type { RankedGuild } from '../app/guild-app.js'
import type { Attack, Battle } from '../domain/battle.js'
import type { Invite, Member } from '../domain/guild.js'
import type { Boss, BossType } from '../domain/rules.js'

/** One attack of a battle, as the battle's use cases answer it. */

export const guildPath = (id: string) => `/api/v1/guilds/${id}`
export const invitePath = (guildId: string, inviteId: string) => `${guildPath(guildId)}/invites/${inviteId}`
const battlePath = (id: string) => `/api/v1/battles/${id}`
const avatarPath = (id: string) => `/api/v1/avatars/${encodeURIComponent(id)}`

export function guildLinks(id: string) {
  const self = guildPath(id)
  return links({
    self,
    members: `${self}/members`,
    invites: `${self}/invites`,
    rank: `${self}/rank`,
    leader: `${self}/leader`,
    leaderboard: '/api/v1/guilds/leaderboard',
    activeBattle: `/api/v1/battles/guild/${id}`,
    battleInProgress: `/api/v1/battles/guild/${id}/in-progress`,
    battles: `/api/v1/battles/guild/${id}/history`,
    startBattle: '/api/v1/battles',
  })
}

export const memberView = (m: Member) => ({ avatarId: m.avatarId, nickname: m.nickname, role: m.role, joinedAt: m.joinedAt.toISOString() })

/** In collections (leaderboard, list) a guild carries only its main links: the page stays small. */
const guildSummaryLinks = (id: string) => links({ self: guildPath(id), members: `${guildPath(id)}/members`, rank: `${guildPath(id)}/rank` })

const rankedGuildView = ({ guild, globalRank }: RankedGuild, linksOf: (id: string) => Links) => ({
  id: guild.id,
  name: guild.name,
  globalRank,
  points: guild.points,
  createdAt: guild.createdAt.toISOString(),
  members: guild.members.map(memberView),
  _links: linksOf(guild.id),
})

export const guildView = (g: RankedGuild) => rankedGuildView(g, guildLinks)
export const guildSummaryView = (g: RankedGuild) => rankedGuildView(g, guildSummaryLinks)

export const inviteView = (i: Invite) => ({
  id: i.id,
  guildId: i.guildId,
  targetAvatarId: i.targetAvatarId,
  invitedBy: i.invitedBy,
  createdAt: i.createdAt.toISOString(),
  expiresAt: i.expiresAt.toISOString(),
  _links: links({
    self: invitePath(i.guildId, i.id),
    accept: `${invitePath(i.guildId, i.id)}/accept`,
    guild: guildPath(i.guildId),
    target: avatarPath(i.targetAvatarId),
  }),
})

export const bossView = (type: BossType, b: Boss) => ({ type, ...b })

export function battleLinks(b: { id: string; guildId: string }) {
  const self = battlePath(b.id)
  return links({
    self,
    guild: guildPath(b.guildId),
    boss: `${self}/boss`,
    bossHealth: `${self}/boss/health`,
    currentTurn: `${self}/turns/current`,
    totalTurns: `${self}/turns/total`,
    status: `${self}/status`,
    damage: `${self}/damage`,
    attacks: `${self}/attacks`,
  })
}

export const battleView = (b: Battle) => ({
  id: b.id,
  guildId: b.guildId,
  status: b.status,
  currentTurn: b.currentTurn,
  numOfTurns: b.numOfTurns,
  boss: bossView(b.bossType, b.boss),
  bossRemainingHealth: b.bossRemainingHealth,
  // The health ledger is the battle's own bookkeeping, not part of the view.
  participants: b.participants.map(({ avatarId, fallen, damageDealt, attacks }) => ({ avatarId, fallen, damageDealt, attacks })),
  startedAt: b.startedAt.toISOString(),
  endedAt: b.endedAt?.toISOString() ?? null,
  _links: battleLinks(b),
})

export const attackPath = (battleId: string, turn: number) => `${battlePath(battleId)}/attacks/${turn}`

export const attackView = (battleId: string, a: Attack) => ({
  ...a,
  at: a.at.toISOString(),
  _links: links({ self: attackPath(battleId, a.turn), battle: battlePath(battleId), attacker: avatarPath(a.attackerAvatarId) }),
})
