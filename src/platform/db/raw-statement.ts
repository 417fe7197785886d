import { sql, type SQL } from 'drizzle-orm'
import type { Queryable } from './database.js'

/**
 * A statement written with positional parameters (`$1`, `$2`, …) run through drizzle, so it runs
 * in the transaction `q` stands for (`Database.statement` runs in autocommit, outside any).
 */
export async function statementIn(q: Queryable, text: string, params: unknown[]): Promise<Record<string, unknown>[]> {
  const chunks: SQL[] = text.split(/\$(\d+)/).map((part, i) => (i % 2 === 0 ? sql.raw(part) : sql`${params[Number(part) - 1]}`))
  const result = await q.execute(sql.join(chunks))
  return (result as unknown as { rows: Record<string, unknown>[] }).rows
}
