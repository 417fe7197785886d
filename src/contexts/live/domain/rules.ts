/** The live context's numbers: the player's inbox (DESIGN §9.2). */

/** Notifications are kept this long, read or not, then deleted by the retention job. */
export const NOTIFICATION_RETENTION_DAYS = 90
export const LIST_DEFAULT_LIMIT = 20
export const LIST_MAX_LIMIT = 100

/** A stream's history: a reconnect replays from at least this long ago… */
export const STREAM_HISTORY_MINUTES = 15
/** …or at least this many of the avatar's latest stream events, whichever reaches further back. */
export const STREAM_HISTORY_EVENTS = 500
/** Rows one replay or catch-up read takes at a time. */
export const STREAM_READ_PAGE = 200
/** A comment line this often keeps an idle stream open through proxies (and finds a dead client). */
export const STREAM_HEARTBEAT_MS = 15_000
/**
 * How often each process compares its open streams with the database whatever happened: the
 * backstop for a broadcast lost with no sign of it (its sender died between commit and send).
 * Gaps in a stream's numbers and losses the bus reports are caught up at once.
 */
export const STREAM_CATCH_UP_MS = 30_000
/** What a client that stops reading may leave unsent before it is dropped (bounded memory per stream). */
export const STREAM_MAX_BUFFERED_BYTES = 256 * 1024
/** A stream ticket is good for one `EventSource` opened within this long. */
export const STREAM_TICKET_TTL_SECONDS = 60
/** The reconnection delay the stream suggests to `EventSource` (its `retry:` field). */
export const STREAM_RETRY_MS = 2_000
/** How often a process renews the recording of the avatars it holds streams of (well within the history window). */
export const STREAM_WATCH_RENEW_MS = 60_000

/** Webhooks (DESIGN §9.4): endpoints one account may have. */
export const WEBHOOK_ENDPOINTS_PER_ACCOUNT_MAX = 10
/** An endpoint's secret is this many random bytes (Standard Webhooks asks for 24 to 64). */
export const WEBHOOK_SECRET_BYTES = 32
/** The longest endpoint URL taken. */
export const WEBHOOK_URL_MAX_LENGTH = 2_000
/** Attempts a delivery gets before it is FAILED: the first, then retries after 1 s, 2.8 s, 7.7 s… 1 h. */
export const WEBHOOK_MAX_ATTEMPTS = 10
/** The wait before the first retry; each further retry waits a constant factor longer… */
export const WEBHOOK_FIRST_RETRY_MS = 1_000
/**
 * …so that the last one waits this long (the factor is about 2.78): the retries span about 1.5 h,
 * enough to ride out a receiver's restart or a short outage (doubling would give up after 8.5 min).
 */
export const WEBHOOK_MAX_RETRY_MS = 3_600_000
/** An attempt the receiver has not answered (status line and headers) within this long has failed (`WEBHOOK_TIMEOUT_MS` sets it). */
export const WEBHOOK_TIMEOUT_MS = 10_000
/** An endpoint every attempt to which has failed for this long is disabled, and its account told (WEBHOOK_DISABLED). */
export const WEBHOOK_DISABLE_AFTER_MS = 24 * 3_600_000
/** Attempts one process has going at once: a receiver that hangs holds one of them until its timeout, not the others. */
export const WEBHOOK_SENDS_IN_FLIGHT = 16
/** How often every process looks for due deliveries (new ones are sent at once by the process that made them). */
export const WEBHOOK_SEND_EVERY_MS = 1_000
/** A leased delivery stays with its sender this much longer than an attempt can last (one that died lets it go then). */
export const WEBHOOK_LEASE_MARGIN_MS = 30_000
/** How long a process trusts its answer to "does any endpoint exist?" (other processes tell it of changes sooner). */
export const WEBHOOK_DIRECTORY_TTL_MS = 1_000
/** The most of an attempt's error kept to show in the delivery log. */
export const WEBHOOK_ERROR_MAX_LENGTH = 300

/** Notifications one page of a player's export reads (DESIGN §9.4). */
export const EXPORT_NOTIFICATIONS_PAGE = 1000
