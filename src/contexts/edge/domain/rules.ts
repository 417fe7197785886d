/** The identity context's numbers (DESIGN §5). */
export const PASSWORD_MIN_LENGTH = 8
/** Long enough for any passphrase, short enough that hashing stays cheap. */
export const PASSWORD_MAX_LENGTH = 256
export const EMAIL_MAX_LENGTH = 254
export const USER_NAME_MAX_LENGTH = 64

/** argon2id parameters (OWASP's second recommended set: 19 MiB, 2 passes, 1 lane). */
export const ARGON2 = { memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const

export const normalizeEmail = (email: string): string => email.trim().toLowerCase()

/**
 * A registration's lease: the request that began it has this long to finish it (longer than a
 * provisioning call with its retries); after it, an unfinished one belongs to the recovery job,
 * which also waits this long between attempts at undoing one.
 */
export const REGISTRATION_LEASE_MS = 60_000
export const REGISTRATION_RECOVERY_EVERY_MS = 30_000
export const REGISTRATION_RECOVERY_BATCH = 50

/**
 * The account's version in `AccountDeleted`: its events count the account's changes, and it has
 * two, being made (`UserRegistered`, 1) and being deleted.
 */
export const ACCOUNT_DELETED_VERSION = 2

/** A player's export (DESIGN §9.4): the document's format and version, and where its JSON Schema is published. */
export const EXPORT_FORMAT = 'questline-export'
export const EXPORT_VERSION = 1
export const EXPORT_SCHEMA_PATH = '/schemas/export-v1.json'
