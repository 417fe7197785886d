/** The live context's numbers: the player's inbox (DESIGN §9.2). */

/** Notifications are kept this long, read or not, then deleted by the retention job. */
export const NOTIFICATION_RETENTION_DAYS = 90
export const LIST_DEFAULT_LIMIT = 20
export const LIST_MAX_LIMIT = 100
