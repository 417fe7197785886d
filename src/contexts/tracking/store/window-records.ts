/** What is recorded of a habit's windows: its completions, its judged windows and the reminders sent. */
import { and, asc, count, eq, gte, inArray, lt, sql } from 'drizzle-orm'
import type { Queryable, Tx } from '../../../platform/db/database.js'
import type { LocalDate } from '../../../platform/time/index.js'
import { completions, missedWindows, remindersSent } from './tables.js'

export const completionRepo = {
  async windowStarts(q: Queryable, habitId: string): Promise<Set<LocalDate>> {
    const rows = await q.select({ s: completions.windowStart }).from(completions).where(eq(completions.habitId, habitId))
    return new Set(rows.map((r) => r.s))
  },

  async startsAmong(q: Queryable, habitId: string, starts: LocalDate[]): Promise<Set<LocalDate>> {
    if (starts.length === 0) return new Set()
    const rows = await q.select({ s: completions.windowStart }).from(completions)
      .where(and(eq(completions.habitId, habitId), inArray(completions.windowStart, starts)))
    return new Set(rows.map((r) => r.s))
  },

  /** The filled slots of each habit within its window (the column holds slots: see `slotOf`), by habit. */
  async slotsWithin(q: Queryable, windows: { habitId: string; start: LocalDate; end: LocalDate }[]): Promise<Map<string, Set<LocalDate>>> {
    const out = new Map(windows.map((w) => [w.habitId, new Set<LocalDate>()]))
    if (windows.length === 0) return out
    const rows = await q.execute(sql`select c.habit_id::text as habit_id, c.window_start::text as slot
      from jsonb_to_recordset(${JSON.stringify(windows)}::jsonb) as w("habitId" uuid, start date, "end" date)
      join tracking.completions c on c.habit_id = w."habitId" and c.window_start >= w.start and c.window_start < w."end"`)
    for (const r of (rows as unknown as { rows: { habit_id: string; slot: string }[] }).rows) out.get(r.habit_id)?.add(r.slot)
    return out
  },

  async count(q: Queryable, habitId: string): Promise<number> {
    const [row] = await q.select({ n: count() }).from(completions).where(eq(completions.habitId, habitId))
    return row?.n ?? 0
  },

  /** The slots the completions of these habits filled in [from, to), by habit. */
  async slotsOfHabits(q: Queryable, habitIds: string[], from: LocalDate, to: LocalDate): Promise<Map<string, LocalDate[]>> {
    const out = new Map<string, LocalDate[]>()
    if (habitIds.length === 0) return out
    const rows = await q.select({ habitId: completions.habitId, slot: completions.windowStart }).from(completions)
      .where(and(inArray(completions.habitId, habitIds), gte(completions.windowStart, from), lt(completions.windowStart, to)))
    for (const r of rows) {
      const slots = out.get(r.habitId)
      if (slots) slots.push(r.slot)
      else out.set(r.habitId, [r.slot])
    }
    return out
  },

  async history(q: Queryable, habitId: string): Promise<string[]> {
    const rows = await q.select({ at: completions.attendedAt }).from(completions)
      .where(eq(completions.habitId, habitId)).orderBy(asc(completions.attendedAt))
    return rows.map((r) => r.at)
  },
}

export const missedRepo = {
  /** false when this (habit, window) was already recorded: its penalty went out before. */
  async record(tx: Tx, habitId: string, windowStart: LocalDate, outcome: 'MISSED' | 'NOT_DUE', recordedAt: Date): Promise<boolean> {
    const rows = await tx.insert(missedWindows).values({ habitId, windowStart, outcome, recordedAt }).onConflictDoNothing()
      .returning({ s: missedWindows.windowStart })
    return rows.length === 1
  },

  /** A freeze took a missed window's penalty: false when it was not recorded missed (or is frozen already). */
  async freeze(tx: Tx, habitId: string, windowStart: LocalDate): Promise<boolean> {
    const rows = await tx.update(missedWindows).set({ outcome: 'FROZEN' })
      .where(and(eq(missedWindows.habitId, habitId), eq(missedWindows.windowStart, windowStart), eq(missedWindows.outcome, 'MISSED')))
      .returning({ s: missedWindows.windowStart })
    return rows.length === 1
  },

  /** The judged windows of these habits starting in [from, to), by habit, then by start. */
  async ofHabitsBetween(q: Queryable, habitIds: string[], from: LocalDate, to: LocalDate): Promise<Map<string, Map<LocalDate, string>>> {
    const out = new Map<string, Map<LocalDate, string>>()
    if (habitIds.length === 0) return out
    const rows = await q.select({ habitId: missedWindows.habitId, s: missedWindows.windowStart, outcome: missedWindows.outcome }).from(missedWindows)
      .where(and(inArray(missedWindows.habitId, habitIds), gte(missedWindows.windowStart, from), lt(missedWindows.windowStart, to)))
    for (const r of rows) {
      const judged = out.get(r.habitId) ?? new Map<LocalDate, string>()
      out.set(r.habitId, judged.set(r.s, r.outcome))
    }
    return out
  },

  /** The judged windows of a habit starting in [from, to), by start. */
  async between(q: Queryable, habitId: string, from: LocalDate, to: LocalDate): Promise<Map<LocalDate, string>> {
    const rows = await q.select({ s: missedWindows.windowStart, outcome: missedWindows.outcome }).from(missedWindows)
      .where(and(eq(missedWindows.habitId, habitId), gte(missedWindows.windowStart, from), lt(missedWindows.windowStart, to)))
    return new Map(rows.map((r) => [r.s, r.outcome]))
  },
}

/** Completions with their slots, of a habit, in [from, to). */
export async function completionsBetween(q: Queryable, habitId: string, from: LocalDate, to: LocalDate): Promise<{ slot: LocalDate; attendedAt: string }[]> {
  return q.select({ slot: completions.windowStart, attendedAt: completions.attendedAt }).from(completions)
    .where(and(eq(completions.habitId, habitId), gte(completions.windowStart, from), lt(completions.windowStart, to)))
    .orderBy(asc(completions.windowStart))
}

export const reminderRepo = {
  /** Records the reminders of these windows; answers the habits whose window had none yet (the others were reminded before). */
  async record(tx: Tx, sent: { habitId: string; windowStart: LocalDate; windowEnd: LocalDate }[], sentAt: Date): Promise<Set<string>> {
    if (sent.length === 0) return new Set()
    const rows = await tx.insert(remindersSent).values(sent.map((r) => ({ ...r, sentAt }))).onConflictDoNothing()
      .returning({ habitId: remindersSent.habitId })
    return new Set(rows.map((r) => r.habitId))
  },

  /** Deletes at most `limit` records of windows that ended before `end` (SKIP LOCKED, as `deleteSome`); answers how many. */
  async pruneSome(q: Queryable, end: LocalDate, limit: number): Promise<number> {
    const result = await q.execute(sql`
      delete from tracking.reminders_sent where (habit_id, window_start) in (
        select habit_id, window_start from tracking.reminders_sent where window_end < ${end}::date limit ${limit} for update skip locked)
      returning 1`)
    return (result as unknown as { rows: unknown[] }).rows.length
  },
}
