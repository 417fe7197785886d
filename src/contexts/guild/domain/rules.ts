/** Every number of the guild and battle rules (DESIGN §6, Guilds and Battles). */
export const GUILD_NAME_MIN = 3
export const GUILD_NAME_MAX = 40
export const NICKNAME_MIN = 1
export const NICKNAME_MAX = 32
export const MEMBER_CAP = 30

export const INVITE_TTL_MS = 7 * 24 * 3_600_000
export const INVITE_EXPIRY_JOB_EVERY_MS = 3_600_000

export const ROLES = ['LEADER', 'OFFICER', 'MEMBER'] as const
/** Roles the leader may hand out with PATCH …/role; leadership moves only by transfer. */
export const ASSIGNABLE_ROLES = ['OFFICER', 'MEMBER'] as const

/** Guild points per habit completion by a member. */
export const POINTS_PER_HABIT_COMPLETION = 1
/** A battle won brings the guild the boss's experienceReward divided by this. */
export const BATTLE_POINTS_DIVISOR = 10

export const LEADERBOARD_DEFAULT_LIMIT = 100
export const LEADERBOARD_MAX_LIMIT = 500
export const LIST_DEFAULT_LIMIT = 50
export const LIST_MAX_LIMIT = 200

/** An attack names a damage between these (inclusive). */
export const ATTACK_DAMAGE_MIN = 0
export const ATTACK_DAMAGE_MAX = 1_000_000
/** Neither a hit nor a strike-back does less than this. */
export const MIN_HIT = 1

export const BOSS_TYPES = ['GOBLIN', 'MINOTAUR', 'TROLL', 'HYDRA', 'DRAGON'] as const
export type BossType = (typeof BOSS_TYPES)[number]

export interface Boss {
  name: string
  health: number
  strength: number
  defense: number
  experienceReward: number
  moneyReward: number
  penalty: number
  /** Turns each participating member brings to the shared pool. */
  turnsPerMember: number
}

export const BOSSES: Record<BossType, Boss> = {
  GOBLIN: { name: 'Goblin Chief', health: 150, strength: 8, defense: 2, experienceReward: 50, moneyReward: 25, penalty: 5, turnsPerMember: 6 },
  MINOTAUR: { name: 'Minotaur', health: 400, strength: 15, defense: 5, experienceReward: 200, moneyReward: 100, penalty: 15, turnsPerMember: 5 },
  TROLL: { name: 'Cave Troll', health: 800, strength: 20, defense: 8, experienceReward: 400, moneyReward: 200, penalty: 20, turnsPerMember: 5 },
  HYDRA: { name: 'Hydra', health: 1500, strength: 28, defense: 12, experienceReward: 800, moneyReward: 400, penalty: 30, turnsPerMember: 4 },
  DRAGON: { name: 'Ancient Dragon', health: 3000, strength: 40, defense: 18, experienceReward: 2000, moneyReward: 1000, penalty: 50, turnsPerMember: 4 },
}

/** A chat message is this many characters after trimming (inclusive). */
export const CHAT_TEXT_MIN = 1
export const CHAT_TEXT_MAX = 1000
/** A member may post at most CHAT_BURST_MAX messages in a guild in any CHAT_BURST_WINDOW_MS. */
export const CHAT_BURST_MAX = 10
export const CHAT_BURST_WINDOW_MS = 10_000
/** Messages are kept this many days unless CHAT_RETENTION_DAYS says otherwise. */
export const CHAT_RETENTION_DAYS_DEFAULT = 90
