/**
 * Events the guild context publishes: its public event contract. Payloads are plain values,
 * checked against these schemas when a consumer receives them. `version` is the aggregate's
 * version after the change: a guild's membership version; a battle's, which changes once when it
 * starts and once per turn (`battleVersion`).
 */
import { Type } from 'typebox'
import { eventsOf, type DraftsOf, type EventOf } from '../../platform/events/contract.js'

const event = eventsOf('guild')
const Participants = Type.Array(Type.String())
const Battle = { battleId: Type.String(), guildId: Type.String() }

export const GuildCreated = event('GuildCreated', Type.Object({ guildId: Type.String(), name: Type.String(), leaderAvatarId: Type.String() }))
export const GuildDisbanded = event('GuildDisbanded', Type.Object({ guildId: Type.String() }))
export const MemberJoined = event('MemberJoined', Type.Object({ guildId: Type.String(), avatarId: Type.String() }))
export const MemberLeft = event('MemberLeft', Type.Object({
  guildId: Type.String(), avatarId: Type.String(), reason: Type.Union([Type.Literal('LEFT'), Type.Literal('REMOVED'), Type.Literal('AVATAR_DELETED')]),
}))
/** An avatar was invited to a guild (again: a new invite replaces the earlier one). The invite is the aggregate. */
export const InviteSent = event('InviteSent', Type.Object({
  inviteId: Type.String(), guildId: Type.String(), guildName: Type.String(), targetAvatarId: Type.String(), invitedBy: Type.String(),
  expiresAt: Type.String({ description: 'ISO 8601 instant' }),
}))
/** Members whose role a change of the membership changed (a promotion, a transfer, a succession). */
export const MemberRolesChanged = event('MemberRolesChanged', Type.Object({
  guildId: Type.String(), changes: Type.Array(Type.Object({ avatarId: Type.String(), role: Type.String() })),
}))
/** A pending invite closed without a join: declined by the invited avatar's owner or withdrawn by the guild. */
export const InviteWithdrawn = event('InviteWithdrawn', Type.Object({ inviteId: Type.String(), guildId: Type.String(), targetAvatarId: Type.String() }))
const ChatPerson = Type.Object({ avatarId: Type.String(), name: Type.String({ description: "The avatar's public name when it acted" }) })
/** A member posted in the guild's chat; `mentions` are the members its `@name`s named (never the author). The message is the aggregate. */
export const GuildMessagePosted = event('GuildMessagePosted', Type.Object({
  messageId: Type.String(), guildId: Type.String(), author: ChatPerson, text: Type.String(), sentAt: Type.String({ description: 'ISO 8601 instant' }),
  mentions: Type.Array(Type.String()),
}))
/** A chat message was deleted (its author, or an officer or the leader): it stays as a tombstone. */
export const GuildMessageDeleted = event('GuildMessageDeleted', Type.Object({
  messageId: Type.String(), guildId: Type.String(), deletedBy: ChatPerson, deletedAt: Type.String({ description: 'ISO 8601 instant' }),
}))
export const BattleStarted = event('BattleStarted', Type.Object({ ...Battle, bossType: Type.String(), participants: Participants }))
/** The boss struck an attacker back: the avatar context applies the damage (its death follows from its own health). */
export const BossStruckBack = event('BossStruckBack', Type.Object({
  ...Battle, turn: Type.Integer({ minimum: 1 }), avatarId: Type.String(), damage: Type.Integer({ minimum: 0 }),
}))
/** One attack on a boss, as the guild's members watch it: what it did and the boss's health after it. */
export const BattleTurnTaken = event('BattleTurnTaken', Type.Object({
  ...Battle, turn: Type.Integer({ minimum: 1 }), numOfTurns: Type.Integer({ minimum: 1 }), avatarId: Type.String(),
  dealt: Type.Integer({ minimum: 0 }), strikeBack: Type.Integer({ minimum: 0 }), attackerFell: Type.Boolean(),
  bossHealth: Type.Integer({ minimum: 0 }), bossMaxHealth: Type.Integer({ minimum: 1 }),
  status: Type.Union([Type.Literal('IN_PROGRESS'), Type.Literal('WON'), Type.Literal('LOST')]),
}))
/**
 * A battle in progress was called off (by its leader, or with its guild): it is gone, without
 * reward or penalty. It names its participants, who are told even when the guild went with it.
 * (`participants` is optional: an event written without it tells the guild's members only.)
 */
export const BattleCancelled = event('BattleCancelled', Type.Object({ ...Battle, cancelledBy: Type.String(), participants: Type.Optional(Participants) }))
/** Every participant receives the reward (the avatar context applies it). */
export const BattleWon = event('BattleWon', Type.Object({
  ...Battle,
  bossType: Type.String(),
  participants: Participants,
  reward: Type.Object({ experience: Type.Integer({ minimum: 0 }), money: Type.Integer({ minimum: 0 }) }),
  guildPoints: Type.Integer({ minimum: 0 }),
}))
/** Every participant takes the penalty as damage (the avatar context applies it). */
export const BattleLost = event('BattleLost', Type.Object({ ...Battle, bossType: Type.String(), participants: Participants, penalty: Type.Integer({ minimum: 0 }) }))

export type GuildCreated = EventOf<typeof GuildCreated>
export type GuildDisbanded = EventOf<typeof GuildDisbanded>
export type MemberJoined = EventOf<typeof MemberJoined>
export type MemberLeft = EventOf<typeof MemberLeft>
export type InviteSent = EventOf<typeof InviteSent>
export type MemberRolesChanged = EventOf<typeof MemberRolesChanged>
export type InviteWithdrawn = EventOf<typeof InviteWithdrawn>
export type GuildMessagePosted = EventOf<typeof GuildMessagePosted>
export type GuildMessageDeleted = EventOf<typeof GuildMessageDeleted>
export type BattleStarted = EventOf<typeof BattleStarted>
export type BossStruckBack = EventOf<typeof BossStruckBack>
export type BattleTurnTaken = EventOf<typeof BattleTurnTaken>
export type BattleCancelled = EventOf<typeof BattleCancelled>
export type BattleWon = EventOf<typeof BattleWon>
export type BattleLost = EventOf<typeof BattleLost>

export type GuildDraft = DraftsOf<[
  typeof GuildCreated, typeof GuildDisbanded, typeof MemberJoined, typeof MemberLeft, typeof InviteSent,
  typeof MemberRolesChanged, typeof InviteWithdrawn, typeof BattleStarted, typeof BossStruckBack,
  typeof BattleTurnTaken, typeof BattleCancelled, typeof BattleWon, typeof BattleLost, typeof GuildMessagePosted, typeof GuildMessageDeleted,
]>
