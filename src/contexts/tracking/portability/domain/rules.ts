/** Every bound of a player's habit data in and out (DESIGN §9.4): export pages, imports, the calendar feed. */

/** What one page of an export reads at a time. */
export const EXPORT_HABITS_PAGE = 50
export const EXPORT_HISTORY_PAGE = 2000

/**
 * An import's bounds: habits it makes, history rows (completions and judged windows) it writes in
 * all, and the bytes of the file it reads. Beyond them it is refused whole (413), before any work.
 */
export const IMPORT_HABITS_MAX = 200
export const IMPORT_ROWS_MAX = 250_000
export const IMPORT_BODY_MAX_BYTES = 24 * 1024 * 1024
/** History is imported from at most this far back (a bound on the windows a streak is counted over). */
export const IMPORT_HISTORY_MAX_DAYS = 20 * 366
/** Rows one insert statement of an import writes (PostgreSQL takes at most 65,535 parameters a statement). */
export const IMPORT_INSERT_CHUNK = 5000

/**
 * The calendar feed: where a habit's due windows and its rule's occurrences differ (a vacation, a
 * day the zone skipped, February's last day for the 29th or 30th), the dates are listed from this
 * many days before today to as many after (and over the present vacation whole); rest days are in
 * the rule itself. The feed is fetched again every CALENDAR_REFRESH_MINUTES, so the span moves on.
 */
export const CALENDAR_EXCEPTIONS_SPAN_DAYS = 366
/** How often a subscribed calendar is asked to fetch the feed again (REFRESH-INTERVAL). */
export const CALENDAR_REFRESH_MINUTES = 60
/** How long a client may reuse a fetched feed (Cache-Control); a revoked feed may be seen this long by one that fetched it. */
export const CALENDAR_CACHE_SECONDS = 300
/** Habits one feed shows at most (the account's oldest first): a bound on its size and on the work of each fetch. */
export const CALENDAR_HABITS_MAX = 200
/** Random bytes of a feed's secret (base64url in its address). */
export const CALENDAR_SECRET_BYTES = 32

/** A multipart import's parts at most (it takes two: habits and checkmarks), and the bytes of each part's headers. */
export const IMPORT_FORM_PARTS_MAX = 8
export const IMPORT_FORM_HEADER_BYTES_MAX = 4096
