/** Every number of the quest rules (DESIGN §6, Quests). */
export const NAME_MAX = 100
export const DESCRIPTION_MAX = 2000

export const DEFAULT_DURATION = 'P7D'
export const DEFAULT_REWARD = { experience: 100, money: 50 } as const

/** A reward is stored and shown as set, each part an integer in this range. */
export const REWARD_MIN = 0
export const REWARD_MAX = 100_000

/**
 * A duration is positive, whole seconds and at most one year. To compare durations that mix
 * calendar parts with days and times, a year counts as 365 days and a month as a twelfth of
 * that (platform/time), so P1Y, P12M, P52W, P365D and PT8760H are the longest of their kinds.
 */
export const DURATION_MAX_DAYS = 365

/**
 * What a participant is paid is capped per required completion in their window, so nobody
 * mints value with an empty or trivial quest: min(reward, ceiling × required completions).
 */
export const PAYOUT_CEILING_PER_COMPLETION = { experience: 20, money: 10 } as const

/** A quest groups at most this many habits; each entry's habitId is 1–64 of A–Z a–z 0–9 _ -. */
export const QUEST_HABITS_MAX = 20
export const QUEST_HABIT_ID_PATTERN = '^[A-Za-z0-9_-]{1,64}$'

/**
 * A window that has ended is judged expired this long after its end, so completions recorded
 * just before the end, still on their way as events, are counted first.
 */
export const EXPIRY_GRACE_MS = 5 * 60_000
export const EXPIRE_JOB_EVERY_MS = 60_000
export const EXPIRE_JOB_BATCH = 200

export const LIST_DEFAULT_LIMIT = 50
export const LIST_MAX_LIMIT = 200

/** A join whose copies are still not all made this long after it began is finished by a job. */
export const JOIN_RECOVERY_AFTER_MS = 60_000
export const JOIN_RECOVERY_JOB_EVERY_MS = 60_000
export const JOIN_RECOVERY_BATCH = 50
/** Copies whose quest link is cleared per call to tracking. */
export const UNLINK_BATCH = 200
