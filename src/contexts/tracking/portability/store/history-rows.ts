/**
 * A habit's history in pages, for an export, and written in bulk, for an import (DESIGN §9.4).
 * Rows in, rows out: the rules of what the rows mean are in domain/import.ts.
 */
import { and, asc, eq, gt, inArray } from 'drizzle-orm'
import type { Queryable, Tx } from '../../../../platform/db/database.js'
import type { LocalDate, LocalDateTime } from '../../../../platform/time/index.js'
import { completions, missedWindows } from '../../store/tables.js'
import { IMPORT_INSERT_CHUNK } from '../domain/rules.js'

export type JudgedOutcome = 'MISSED' | 'NOT_DUE' | 'FROZEN'

const after = (column: typeof completions.windowStart | typeof missedWindows.windowStart, start: LocalDate | undefined) =>
  (start === undefined ? undefined : gt(column, start))

export const historyRows = {
  /** Up to `limit` completions of a habit after the slot `afterStart`, oldest first. */
  async completions(q: Queryable, habitId: string, afterStart: LocalDate | undefined, limit: number): Promise<{ windowStart: LocalDate; attendedAt: LocalDateTime }[]> {
    return q.select({ windowStart: completions.windowStart, attendedAt: completions.attendedAt }).from(completions)
      .where(and(eq(completions.habitId, habitId), after(completions.windowStart, afterStart)))
      .orderBy(asc(completions.windowStart)).limit(limit)
  },

  /** Up to `limit` windows of a habit judged with one of `outcomes`, after `afterStart`, oldest first. */
  async judged(q: Queryable, habitId: string, outcomes: JudgedOutcome[], afterStart: LocalDate | undefined, limit: number): Promise<{ windowStart: LocalDate; outcome: JudgedOutcome }[]> {
    const rows = await q.select({ windowStart: missedWindows.windowStart, outcome: missedWindows.outcome }).from(missedWindows)
      .where(and(eq(missedWindows.habitId, habitId), inArray(missedWindows.outcome, outcomes), after(missedWindows.windowStart, afterStart)))
      .orderBy(asc(missedWindows.windowStart)).limit(limit)
    return rows.map((r) => ({ windowStart: r.windowStart, outcome: r.outcome as JudgedOutcome }))
  },

  /** Writes completions in statements of IMPORT_INSERT_CHUNK rows. */
  async insertCompletions(tx: Tx, rows: { habitId: string; windowStart: LocalDate; attendedAt: LocalDateTime }[], recordedAt: Date): Promise<void> {
    for (let i = 0; i < rows.length; i += IMPORT_INSERT_CHUNK) {
      await tx.insert(completions).values(rows.slice(i, i + IMPORT_INSERT_CHUNK).map((r) => ({ ...r, recordedAt })))
    }
  },

  /** Writes judged windows in statements of IMPORT_INSERT_CHUNK rows. */
  async insertJudged(tx: Tx, rows: { habitId: string; windowStart: LocalDate; outcome: JudgedOutcome }[], recordedAt: Date): Promise<void> {
    for (let i = 0; i < rows.length; i += IMPORT_INSERT_CHUNK) {
      await tx.insert(missedWindows).values(rows.slice(i, i + IMPORT_INSERT_CHUNK).map((r) => ({ ...r, recordedAt })))
    }
  },
}
