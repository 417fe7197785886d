import { sql } from 'drizzle-orm'
import { index, integer, pgSchema, text, timestamp, uuid } from 'drizzle-orm/pg-core'
import { outboxTable } from '../../../platform/events/outbox.js'

export const identitySchema = pgSchema('identity')

const at = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' })

export const users = identitySchema.table('users', {
  id: uuid('id').primaryKey(),
  /** Stored lower-cased; unique. */
  email: text('email').notNull().unique(),
  name: text('name').notNull(),
  passwordHash: text('password_hash').notNull(),
  role: text('role').notNull().default('player'),
  createdAt: at('created_at').notNull(),
  /** `PENDING` until its registration is complete (its avatar made): such a user cannot log in. */
  status: text('status').notNull().default('ACTIVE'),
})

/**
 * The registration saga's log: one row per registration. The user is committed `PENDING` with
 * its row, the avatar is provisioned after commit, and the row ends `DONE` (user active) or,
 * when provisioning failed, `COMPENSATING` until the avatar is discarded and the user deleted
 * (`COMPENSATED`, the email free again). Open rows whose lease ran out belong to the recovery job.
 */
export const registrations = identitySchema.table(
  'registrations',
  {
    userId: uuid('user_id').primaryKey(),
    state: text('state').notNull(),
    leaseUntil: at('lease_until').notNull(),
    /** Why the registration turned around, then why its compensation last failed. */
    failure: text('failure'),
    /** Attempts at undoing it that failed. */
    failedAttempts: integer('failed_attempts').notNull().default(0),
    createdAt: at('created_at').notNull(),
    updatedAt: at('updated_at').notNull(),
  },
  (t) => [index('registrations_open_idx').on(t.leaseUntil).where(sql`${t.state} in ('PENDING', 'COMPENSATING')`)],
)

export const refreshTokens = identitySchema.table(
  'refresh_tokens',
  {
    id: uuid('id').primaryKey(),
    familyId: uuid('family_id').notNull(),
    userId: uuid('user_id').notNull(),
    /** SHA-256 of the token: a leaked table gives no usable token. */
    tokenHash: text('token_hash').notNull().unique(),
    expiresAt: at('expires_at').notNull(),
    spentAt: at('spent_at'),
    revokedAt: at('revoked_at'),
    createdAt: at('created_at').notNull(),
  },
  (t) => [
    index('refresh_tokens_family_idx').on(t.familyId),
    index('refresh_tokens_expires_at_idx').on(t.expiresAt),
    // Every session of a user: revoked when an admin is demoted, deleted with the account.
    index('refresh_tokens_user_idx').on(t.userId),
  ],
)

/**
 * One row per failed login and per key it counts against (the email, the client address), so
 * every edge process throttles alike. Rows older than the window are deleted as failures come.
 */
export const loginFailures = identitySchema.table(
  'login_failures',
  {
    id: uuid('id').primaryKey(),
    /** SHA-256 of `email:<email>` or `address:<ip>`: the table holds no plain emails or addresses. */
    keyHash: text('key_hash').notNull(),
    failedAt: at('failed_at').notNull(),
  },
  (t) => [index('login_failures_key_idx').on(t.keyHash, t.failedAt), index('login_failures_failed_at_idx').on(t.failedAt)],
)

export const outbox = outboxTable(identitySchema)
