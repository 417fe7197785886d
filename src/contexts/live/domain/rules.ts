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
/** How often each process compares its open streams with the database (a missed broadcast costs at most this). */
export const STREAM_CATCH_UP_MS = 1_000
/** What a client that stops reading may leave unsent before it is dropped (bounded memory per stream). */
export const STREAM_MAX_BUFFERED_BYTES = 256 * 1024
/** A stream ticket is good for one `EventSource` opened within this long. */
export const STREAM_TICKET_TTL_SECONDS = 60
/** The reconnection delay the stream suggests to `EventSource` (its `retry:` field). */
export const STREAM_RETRY_MS = 2_000
/** How often a process renews the recording of the avatars it holds streams of (well within the history window). */
export const STREAM_WATCH_RENEW_MS = 60_000
