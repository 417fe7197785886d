/** Imports onto one avatar, one at a time: each sees the habits the one before made (so a file imported twice at once makes its habits once). */
import { sql } from 'drizzle-orm'
import type { Tx } from '../../../../platform/db/database.js'

/** Held until the transaction ends. */
export async function lockImportsOnto(tx: Tx, avatarId: string): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`tracking.import:${avatarId}`}))`)
}
