import { inArray, type SQL } from 'drizzle-orm'
import { getTableConfig, type PgColumn, type PgTable } from 'drizzle-orm/pg-core'
import type { Queryable } from './database.js'

/** `schema.table`, as metrics and logs name a table. */
export function qualifiedName(table: PgTable): string {
  const { schema, name } = getTableConfig(table)
  return `${schema ?? 'public'}.${name}`
}

/**
 * Deletes at most `limit` rows of `table` that match `where`, in one statement (its own short
 * transaction when `q` is the pool), and answers how many. The rows are picked and locked with
 * SKIP LOCKED: two replicas deleting at once take different rows, and neither waits on the other
 * or on a writer holding one of them. `key` is the table's primary key.
 */
export async function deleteSome(q: Queryable, table: PgTable, key: PgColumn, where: SQL | undefined, limit: number): Promise<number> {
  const picked = q.select({ key }).from(table).where(where).limit(limit).for('update', { skipLocked: true })
  const deleted = await q.delete(table).where(inArray(key, picked)).returning({ key })
  return deleted.length
}
