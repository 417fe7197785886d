/** Events the guild context publishes: its public event contract. Payloads are plain values. */
import type { DomainEvent } from '../../platform/events/outbox.js'

export type GuildCreated = DomainEvent<'GuildCreated', { guildId: string; name: string; leaderAvatarId: string }>
export type GuildDisbanded = DomainEvent<'GuildDisbanded', { guildId: string }>
export type MemberJoined = DomainEvent<'MemberJoined', { guildId: string; avatarId: string }>
export type MemberLeft = DomainEvent<'MemberLeft', { guildId: string; avatarId: string; reason: 'LEFT' | 'REMOVED' | 'AVATAR_DELETED' }>
export type BattleStarted = DomainEvent<'BattleStarted', { battleId: string; guildId: string; bossType: string; participants: string[] }>
/** The boss struck an attacker back: the avatar context applies the damage (its death follows from its own health). */
export type BossStruckBack = DomainEvent<'BossStruckBack', { battleId: string; guildId: string; turn: number; avatarId: string; damage: number }>
/** Every participant receives the reward (the avatar context applies it). */
export type BattleWon = DomainEvent<'BattleWon', {
  battleId: string
  guildId: string
  bossType: string
  participants: string[]
  reward: { experience: number; money: number }
  guildPoints: number
}>
/** Every participant takes the penalty as damage (the avatar context applies it). */
export type BattleLost = DomainEvent<'BattleLost', { battleId: string; guildId: string; bossType: string; participants: string[]; penalty: number }>

export type GuildEvent = GuildCreated | GuildDisbanded | MemberJoined | MemberLeft | BattleStarted | BossStruckBack | BattleWon | BattleLost
