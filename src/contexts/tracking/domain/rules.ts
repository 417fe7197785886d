/** Every number of the habit rules (DESIGN §6, Habits). */
export const TITLE_MAX = 200
export const DESCRIPTION_MAX = 2000
export const TAGS_MAX = 20
export const TAG_MAX = 40
export const DAY_OF_MONTH_MIN = 1
export const DAY_OF_MONTH_MAX = 31
/** TIMES_PER_WEEK: completions a week needs (at most one a day). */
export const TIMES_PER_WEEK_MIN = 1
export const TIMES_PER_WEEK_MAX = 7
/** EVERY_N_DAYS: the window's length in days. */
export const EVERY_N_DAYS_MIN = 2
export const EVERY_N_DAYS_MAX = 365

/** Avatar day settings (DESIGN §9.3): a day starts at a whole local hour; a vacation lasts at most 90 days, both ends counted. */
export const DAY_START_HOUR_MAX = 23
export const VACATION_MAX_DAYS = 90
/** Settings changes remembered (each governs the windows that start after it); older windows were judged long before. */
export const SETTINGS_HISTORY_MAX = 20
/** Frozen windows a habit remembers for its streak (the latest). */
export const FROZEN_WINDOWS_KEPT = 100
/** Spans of archived time a habit remembers for its windows' due-ness and its streak (the latest). */
export const ARCHIVED_SPANS_KEPT = 20
/** A streak walk (over completed, frozen and not-due windows) looks back at most this many windows. */
export const STREAK_WALK_MAX = 2000

/** An attend may name a time at most this far ahead of the habit's local now (time zones, clock skew). */
export const ATTEND_FUTURE_TOLERANCE_HOURS = 24

/** A bulk attend (`POST /avatars/{id}/attends`) takes 1 to this many items: a day or two of check-ins queued offline. */
export const BULK_ATTENDS_MAX = 100
/** A bulk item's key, chosen by the client: 8–64 characters of A–Z, a–z, 0–9, _ and - (long enough to be unique, safe in logs). */
export const ATTEND_KEY_MIN = 8
export const ATTEND_KEY_MAX = 64
/**
 * How long an attend's key answers its first result again: a check-in may wait offline for weeks,
 * and its retry must still apply nothing twice (longer than the platform's RETENTION_DAYS default).
 */
export const ATTEND_KEYS_KEPT_DAYS = 30

/** Experience per completion: 10 + min(streak − 1, 10). */
export const REWARD_BASE_EXPERIENCE = 10
export const REWARD_STREAK_BONUS_CAP = 10
export const REWARD_MONEY = 2
/** Damage to the avatar for each window that ended uncompleted (never the first). */
export const MISSED_WINDOW_DAMAGE = 5

export const experienceForStreak = (streak: number): number =>
  REWARD_BASE_EXPERIENCE + Math.min(Math.max(streak - 1, 0), REWARD_STREAK_BONUS_CAP)

/** The whole reward of one completion that makes a run of `streak` completed windows. */
export const rewardForStreak = (streak: number): { experience: number; money: number } =>
  ({ experience: experienceForStreak(streak), money: REWARD_MONEY })

/** How many ended windows one run of the missed-window job catches up on per habit. */
export const MISSED_CATCH_UP_LIMIT = 400
export const MISSED_JOB_EVERY_MS = 60_000
export const MISSED_JOB_BATCH = 200

/** A reminder time: `HH:mm`, 00:00–23:59, two digits each (no `(?` group: the API fuzz builds values from it). */
/** The reminder job runs this often: a reminder comes at most this late after its time (reminder times are whole minutes). */
export const REMINDER_JOB_EVERY_MS = 60_000
/** Habits one transaction of the reminder job takes. */
export const REMINDER_JOB_BATCH = 200

/** Windows one windows view shows at most (a year of daily windows and then some). */
export const WINDOWS_VIEW_MAX = 400
/** The span a windows view covers unless asked: the last five weeks. */
export const WINDOWS_VIEW_DEFAULT_DAYS = 35
/**
 * The days a windows view may span: a window (a month at most) that starts within them also ends
 * within the years 0001–9999, the only ones a date of ours can name.
 */
export const WINDOWS_VIEW_FIRST_DAY = '0002-01-01'
export const WINDOWS_VIEW_LAST_DAY = '9999-01-01'

export const LIST_DEFAULT_LIMIT = 50
export const LIST_MAX_LIMIT = 200

/** Habits one unlink request names at most (the HTTP port sends longer lists in parts). */
export const UNLINK_MAX_HABITS = 1000

/** Stats (DESIGN §9.4): the spans of the completion rates, in the habit's days, today included. */
export const COMPLETION_RATE_SPANS = { days7: 7, days30: 30, days365: 365 } as const
/**
 * Strength's smoothing: each due window weighs 1 − 0.1 = 0.9 times the one after it, so the last
 * ten or so windows decide most of it (a window's weight halves about every 6.6 windows).
 */
export const STRENGTH_SMOOTHING = 0.1
export const STRENGTH_MAX = 100
/** A report covers the week (from Monday) or the month (from the 1st) holding a day. */
export const REPORT_PERIODS = ['week', 'month'] as const
export type ReportPeriod = (typeof REPORT_PERIODS)[number]
/** The earliest day a report may be asked for: no player's data is older, and the dates stay four-digit years. */
export const REPORT_EARLIEST_DATE = '2000-01-01'
