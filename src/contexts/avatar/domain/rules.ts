/** Every number of the avatar's game rules (DESIGN §6, Avatar). */

export const STARTING_AVATAR = {
  level: 1,
  experience: 0,
  health: 100,
  mana: 50,
  money: 100,
  strength: 10,
  defense: 10,
  intelligence: 10,
  unspentPoints: 5,
} as const

/** Experience needed to leave level L: 50·L + 50 (100, 150, 200, …). */
export const EXPERIENCE_PER_LEVEL = 50
export const EXPERIENCE_BASE = 50
export const experienceRequired = (level: number): number => EXPERIENCE_PER_LEVEL * level + EXPERIENCE_BASE

/** What each level gained brings (health and mana are also refilled). */
export const LEVEL_UP_REWARD = { maxHealth: 10, maxMana: 5, statPoints: 1, money: 20 } as const

export const SPELLBOOK = [
  { name: 'Fireball', description: 'A ball of fire hurled at one foe.', manaCost: 5, power: 10, requiredLevel: 5 },
  { name: 'Blizzard', description: 'A storm of ice that chills every foe.', manaCost: 7, power: 15, requiredLevel: 10 },
  { name: 'Thunder', description: 'Lightning called down from a clear sky.', manaCost: 10, power: 20, requiredLevel: 15 },
] as const

/** Bounds of the amount in earn, spend, grant, heal, restore; damage may also be 0. */
export const AMOUNT_MIN = 1
export const DAMAGE_MIN = 0
export const AMOUNT_MAX = 1_000_000

/** A wallet never holds more than this, so sums stay exact in every client's number type. */
export const MONEY_MAX = 1_000_000_000_000

/** On death, money loses floor(money / 10). */
export const DEATH_MONEY_LOSS_DIVISOR = 10

export const ITEM_TYPES = ['WEAPON', 'ARMOR', 'CONSUMABLE'] as const
/** What using a consumable does: restore health or mana by its power, or add one streak freeze. */
export const CONSUMABLE_EFFECTS = ['HEALTH', 'MANA', 'FREEZE'] as const
export const INVENTORY_CAPACITY = 100
export const ITEM_NAME_MAX = 64
export const ITEM_DESCRIPTION_MAX = 500
export const ITEM_POWER_MAX = 10_000

export const AVATAR_NAME_MAX = 64
/** Ids that would shadow a route under /api/v1/avatars. */
export const RESERVED_AVATAR_IDS = ['search'] as const
/** Extra avatars one user may create besides the registration one. */
export const MAX_AVATARS_PER_USER = 10

export const STATS = ['strength', 'defense', 'intelligence'] as const

// ---- streak freezes and missed windows (DESIGN §9.3) ----

/** Streak freezes an avatar may hold: earned or bought past this, none is added. */
export const STREAK_FREEZES_MAX = 2
/** A habit's streak reaching a multiple of this earns one freeze. */
export const FREEZE_EVERY_STREAK = 7
/** Damage from missed habits one avatar takes in one local day, at most; windows missed past it cost nothing. */
export const MISSED_DAMAGE_DAILY_CAP = 25
/**
 * Days of missed-habit damage remembered (the latest ones that had any): enough for any window
 * judged late. A day older than all of them, when that many are held, is past the record.
 */
export const MISSED_DAMAGE_DAYS_KEPT = 14

// ---- earnings (DESIGN §9.4: a report's experience and money earned) ----

/**
 * What an avatar earned is kept per quarter hour: every zone's offset today is a whole number of
 * quarter hours, so a day that starts on a local whole hour starts on a bucket's edge everywhere.
 */
export const EARNINGS_BUCKET_MINUTES = 15
/** Earnings are kept this many days (a year's reports, and then some), then pruned. */
export const EARNINGS_KEPT_DAYS = 400

// ---- weekly leagues (DESIGN §9.5) ----

/** League tiers, lowest first; a new avatar starts in the first. */
export const LEAGUE_TIERS = ['BRONZE', 'SILVER', 'GOLD', 'PLATINUM', 'DIAMOND'] as const
/** What a closed season did to an avatar's tier. */
export const LEAGUE_OUTCOMES = ['PROMOTED', 'STAYED', 'DEMOTED'] as const
/** Avatars in one division of a tier's week, at most; the next one to enter opens a new division. */
export const DIVISION_SIZE = 30
/** How many of a division's first ranks go up a tier (from any tier but the highest). */
export const PROMOTED_PER_DIVISION = 7
/** How many of a division's last ranks go down a tier (from any tier but the lowest). */
export const DEMOTED_PER_DIVISION = 5
/** A division of this many members or fewer demotes nobody: a small board should not punish. */
export const NO_DEMOTION_AT_OR_BELOW = 12
/** Money paid to a division's ranks 1, 2, 3 at the season's end. */
export const LEAGUE_REWARDS = [50, 30, 20] as const
/** How often the season-end job looks for ended seasons to close. */
export const LEAGUE_CLOSE_JOB_EVERY_MS = 5 * 60_000
/** A page of league history: `?limit=` by default and at most. */
export const LEAGUE_HISTORY_DEFAULT_LIMIT = 50
export const LEAGUE_HISTORY_MAX_LIMIT = 200

// ---- the experience board (DESIGN §9.5: all-time ranks by total experience) ----

/** Entries a board page holds unless asked otherwise, and at most (odd: the avatar asked about sits in the middle). */
export const EXPERIENCE_BOARD_LIMIT_DEFAULT = 11
export const EXPERIENCE_BOARD_LIMIT_MAX = 101
/**
 * The board's tallies (store/experience-board.ts): level-1 buckets span this much total
 * experience, level-0 blocks this many seconds of the time a total was reached. The migration's
 * tally trigger (the experience_board migration) uses the same two numbers.
 */
export const EXPERIENCE_BOARD_BUCKET = 100
export const EXPERIENCE_BOARD_BLOCK_SECONDS = 3600
