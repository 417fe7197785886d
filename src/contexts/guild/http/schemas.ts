import { Type } from 'typebox'
import { LinksSchema } from '../../../platform/http/links.js'
import { AvatarIdString, Nullable, STORED_INT_MAX, StringEnum } from '../../../platform/http/schemas.js'
import {
  ASSIGNABLE_ROLES, ATTACK_DAMAGE_MAX, ATTACK_DAMAGE_MIN, BOSS_TYPES, GUILD_NAME_MAX, GUILD_NAME_MIN, LEADERBOARD_DEFAULT_LIMIT, LEADERBOARD_MAX_LIMIT,
  LIST_DEFAULT_LIMIT, LIST_MAX_LIMIT, NICKNAME_MAX, NICKNAME_MIN, ROLES,
} from '../domain/rules.js'

const AvatarId = AvatarIdString()
const Id = Type.String({ format: 'uuid' })

export const GuildIdParams = Type.Object({ id: Id })
export const MemberParams = Type.Object({ id: Id, memberId: AvatarId })
export const InviteParams = Type.Object({ id: Id, inviteId: Id })
export const AvatarIdParams = Type.Object({ id: AvatarId })
export const BattleIdParams = Type.Object({ id: Id })
export const GuildOfBattleParams = Type.Object({ guildId: Id })
export const AttackParams = Type.Object({ id: Id, turn: Type.Integer({ minimum: 1, maximum: STORED_INT_MAX }) })

export const CreateGuildBody = Type.Object({
  name: Type.String({ minLength: GUILD_NAME_MIN, maxLength: GUILD_NAME_MAX + 20, pattern: '\\S', description: '3–40 characters after trimming; unique ignoring case' }),
  creatorAvatarId: AvatarId,
  creatorNickname: Type.String({ minLength: NICKNAME_MIN, maxLength: NICKNAME_MAX + 20, pattern: '\\S', description: '1–32 characters after trimming' }),
}, { examples: [{ name: 'Dawn Runners', creatorAvatarId: 'ada-ranger', creatorNickname: 'Ada' }] })
export const DeleteGuildBody = Type.Object({
  requestorId: Type.Optional(AvatarId),
}, { description: 'Optional: without it, the caller must own the leader\'s avatar', examples: [{ requestorId: 'ada-ranger' }] })
export const InviteBody = Type.Object({ requestorId: AvatarId, targetAvatarId: AvatarId }, { examples: [{ requestorId: 'ada-ranger', targetAvatarId: 'grace-mage' }] })
export const AcceptBody = Type.Object({
  avatarId: AvatarId,
  nickname: Type.String({ minLength: NICKNAME_MIN, maxLength: NICKNAME_MAX + 20, pattern: '\\S', description: '1–32 characters after trimming; unique in the guild ignoring case' }),
}, { examples: [{ avatarId: 'grace-mage', nickname: 'Grace' }] })
export const RequestorBody = Type.Object({ requestorId: AvatarId }, { examples: [{ requestorId: 'ada-ranger' }] })
export const RoleBody = Type.Object({ roleName: StringEnum(ASSIGNABLE_ROLES), requestorId: AvatarId }, { examples: [{ roleName: 'OFFICER', requestorId: 'ada-ranger' }] })
export const LeaderBody = Type.Object({ avatarId: AvatarId, requestorId: AvatarId }, { examples: [{ avatarId: 'grace-mage', requestorId: 'ada-ranger' }] })

export const LeaderboardQuery = Type.Object({
  limit: Type.Integer({ minimum: 1, maximum: LEADERBOARD_MAX_LIMIT, default: LEADERBOARD_DEFAULT_LIMIT }),
})
export const GuildListQuery = Type.Object({
  name: Type.Optional(Type.String({ maxLength: GUILD_NAME_MAX, description: 'Case-insensitive substring of the name' })),
  memberId: Type.Optional(AvatarIdString({ description: 'Only the guild this avatar belongs to (none or one)' })),
  limit: Type.Integer({ minimum: 1, maximum: LIST_MAX_LIMIT, default: LIST_DEFAULT_LIMIT }),
  cursor: Type.Optional(Id),
})

export const MemberView = Type.Object({
  avatarId: Type.String(),
  nickname: Type.String(),
  role: StringEnum(ROLES),
  joinedAt: Type.String({ format: 'date-time' }),
})
export const GuildView = Type.Object({
  id: Type.String(),
  name: Type.String(),
  globalRank: Type.Integer(),
  points: Type.Integer(),
  createdAt: Type.String({ format: 'date-time' }),
  members: Type.Array(MemberView),
  _links: LinksSchema,
})
export const CreatedView = Type.Object({ id: Type.String(), _links: LinksSchema })
export const GuildListView = Type.Object({ items: Type.Array(GuildView), next: Nullable(Type.String()) })
export const LeaderboardView = Type.Object({
  _embedded: Type.Object({ guilds: Type.Array(GuildView) }),
  _links: LinksSchema,
})
export const RankView = Type.Object({ globalRank: Type.Integer(), _links: Type.Optional(LinksSchema) })
export const InviteView = Type.Object({
  id: Type.String(),
  guildId: Type.String(),
  targetAvatarId: Type.String(),
  invitedBy: Type.String(),
  createdAt: Type.String({ format: 'date-time' }),
  expiresAt: Type.String({ format: 'date-time' }),
  _links: LinksSchema,
})
export const InviteListView = Type.Object({ items: Type.Array(InviteView) })

// ---- battles ----

export const StartBattleBody = Type.Object({ guildId: Id, bossType: StringEnum(BOSS_TYPES), requesterId: AvatarId }, {
  examples: [{ guildId: '8c3e5a71-2d4f-4e9b-a6c1-0f7d9b2e4a58', bossType: 'GOBLIN', requesterId: 'ada-ranger' }],
})
export const CancelBattleBody = Type.Object({ guildId: Id, requesterId: AvatarId }, { examples: [{ guildId: '8c3e5a71-2d4f-4e9b-a6c1-0f7d9b2e4a58', requesterId: 'ada-ranger' }] })
export const DamageBody = Type.Object({
  damage: Type.Integer({ minimum: ATTACK_DAMAGE_MIN, maximum: ATTACK_DAMAGE_MAX, description: 'The damage asked for; what is dealt is capped by the attacker\'s effective attack' }),
  attackerAvatarId: AvatarId,
}, { examples: [{ damage: 14, attackerAvatarId: 'grace-mage' }] })

export const BossView = Type.Object({
  type: StringEnum(BOSS_TYPES),
  name: Type.String(),
  health: Type.Integer(),
  strength: Type.Integer(),
  defense: Type.Integer(),
  experienceReward: Type.Integer(),
  moneyReward: Type.Integer(),
  penalty: Type.Integer(),
  turnsPerMember: Type.Integer(),
})
export const BossCatalogView = Type.Object({ bosses: Type.Array(BossView) })
const ParticipantView = Type.Object({
  avatarId: Type.String(), fallen: Type.Boolean(), damageDealt: Type.Integer(), attacks: Type.Integer(),
})
export const BattleView = Type.Object({
  id: Type.String(),
  guildId: Type.String(),
  status: StringEnum(['IN_PROGRESS', 'WON', 'LOST'] as const),
  currentTurn: Type.Integer(),
  numOfTurns: Type.Integer(),
  boss: BossView,
  bossRemainingHealth: Type.Integer(),
  participants: Type.Array(ParticipantView),
  startedAt: Type.String({ format: 'date-time' }),
  endedAt: Nullable(Type.String({ format: 'date-time' })),
  _links: LinksSchema,
})
export const BattleListView = Type.Object({ items: Type.Array(BattleView) })
export const AttackView = Type.Object({
  turn: Type.Integer(),
  attackerAvatarId: Type.String(),
  requestedDamage: Type.Integer(),
  dealt: Type.Integer(),
  strikeBack: Type.Integer(),
  attackerFell: Type.Boolean(),
  at: Type.String({ format: 'date-time' }),
  _links: LinksSchema,
})
export const AttackListView = Type.Object({ items: Type.Array(AttackView) })
