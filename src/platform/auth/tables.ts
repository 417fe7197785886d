import { sql } from 'drizzle-orm'
import { customType, index, integer, jsonb, text, timestamp } from 'drizzle-orm/pg-core'
import type { JWK } from 'jose'
import { platformSchema } from '../db/tables.js'

/** A 64-bit transaction id (PostgreSQL 13+), as text: it may exceed a JS number. */
const xid8 = customType<{ data: string; driverData: string }>({ dataType: () => 'xid8' })

/** Access tokens refused before they expire (logout), for every process on the database. */
export const tokenRevocations = platformSchema.table(
  'token_revocations',
  {
    tokenId: text('token_id').primaryKey(),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
    /** The transaction that wrote the row: pollers read those that committed since their last look. */
    txId: xid8('tx_id').notNull().default(sql`pg_current_xact_id()`),
  },
  (t) => [index('token_revocations_tx_id_idx').on(t.txId), index('token_revocations_expires_at_idx').on(t.expiresAt)],
)

/**
 * The platform's signing keys when no JWT_PRIVATE_KEY is configured: one row per key, the highest
 * generation is the current one, the one below it the previous (still published, so tokens it
 * signed live until they expire). Shared by every process on the database.
 */
export const signingKeys = platformSchema.table('signing_keys', {
  generation: integer('generation').primaryKey(),
  kid: text('kid').notNull().unique(),
  publicJwk: jsonb('public_jwk').$type<JWK>().notNull(),
  privateJwk: jsonb('private_jwk').$type<JWK>().notNull(),
  createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
})
