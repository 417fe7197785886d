import { index, pgSchema, text, timestamp, uuid } from 'drizzle-orm/pg-core'
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
})

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
  (t) => [index('refresh_tokens_family_idx').on(t.familyId)],
)

export const outbox = outboxTable(identitySchema)
