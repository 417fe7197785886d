import { and, asc, eq, gt, inArray, lte, not } from 'drizzle-orm'
import type { Queryable, Tx } from '../../../platform/db/database.js'
import { NotFound } from '../../../platform/errors.js'
import type { Habit } from '../domain/habit.js'
import { toHabit } from './habit-rows.js'
import { completions, habits, missedWindows, remindersSent } from './tables.js'

export const habitRepo = {
  async get(q: Queryable, id: string): Promise<Habit> {
    const [row] = await q.select().from(habits).where(eq(habits.id, id))
    if (!row) throw new NotFound('Habit', id)
    return toHabit(row)
  },

  async getForUpdate(tx: Tx, id: string): Promise<Habit> {
    const [row] = await tx.select().from(habits).where(eq(habits.id, id)).for('update')
    if (!row) throw new NotFound('Habit', id)
    return toHabit(row)
  },

  /** The habit locked for a change, or undefined when it is gone (an event about it arrives late). */
  async findForUpdate(tx: Tx, id: string): Promise<Habit | undefined> {
    const [row] = await tx.select().from(habits).where(eq(habits.id, id)).for('update')
    return row ? toHabit(row) : undefined
  },

  /** Every habit of the avatar, locked: the instants its jobs wait for move with the avatar's days. */
  async ofAvatarForUpdate(tx: Tx, avatarId: string): Promise<Habit[]> {
    const rows = await tx.select().from(habits).where(eq(habits.avatarId, avatarId)).for('update')
    return rows.map(toHabit)
  },

  /** Those of `ids` still linked to `questId`, locked for a change. */
  async linkedToQuestForUpdate(tx: Tx, questId: string, ids: string[]): Promise<Habit[]> {
    if (ids.length === 0) return []
    const rows = await tx.select().from(habits).where(and(inArray(habits.id, ids), eq(habits.associatedQuestId, questId))).for('update')
    return rows.map(toHabit)
  },

  /** What is kept of a habit besides its row, deleted with it (the writer deletes the row). */
  async deleteRecords(tx: Tx, id: string): Promise<void> {
    await tx.delete(completions).where(eq(completions.habitId, id))
    await tx.delete(missedWindows).where(eq(missedWindows.habitId, id))
    await tx.delete(remindersSent).where(eq(remindersSent.habitId, id))
  },

  async idsOfAvatar(q: Queryable, avatarId: string): Promise<string[]> {
    const rows = await q.select({ id: habits.id }).from(habits).where(eq(habits.avatarId, avatarId))
    return rows.map((r) => r.id)
  },

  /** One page of an avatar's habits, oldest first, after the habit at position `afterSeq`; with `archived`, only those archived or not. */
  async listOfAvatar(q: Queryable, avatarId: string, limit: number, afterSeq?: number, archived?: boolean): Promise<Habit[]> {
    const rows = await q.select().from(habits)
      .where(and(
        eq(habits.avatarId, avatarId),
        afterSeq === undefined ? undefined : gt(habits.seq, afterSeq),
        archived === undefined ? undefined : eq(habits.archived, archived),
      ))
      .orderBy(asc(habits.seq)).limit(limit)
    return rows.map(toHabit)
  },

  /** Every habit of the avatar, oldest first (a report lists them all). */
  async allOfAvatar(q: Queryable, avatarId: string): Promise<Habit[]> {
    const rows = await q.select().from(habits).where(eq(habits.avatarId, avatarId)).orderBy(asc(habits.seq))
    return rows.map(toHabit)
  },

  /** The habits not archived of every avatar of an account, oldest first, at most `limit` (a calendar feed). */
  async activeOfOwner(q: Queryable, ownerId: string, limit: number): Promise<Habit[]> {
    const rows = await q.select().from(habits).where(and(eq(habits.ownerId, ownerId), not(habits.archived))).orderBy(asc(habits.seq)).limit(limit)
    return rows.map(toHabit)
  },

  /** The paging position of a habit of this avatar (cursors name the last habit of a page). */
  async positionOf(q: Queryable, avatarId: string, id: string): Promise<number | undefined> {
    const [row] = await q.select({ seq: habits.seq }).from(habits).where(and(eq(habits.id, id), eq(habits.avatarId, avatarId)))
    return row?.seq
  },

  /**
   * Habits not archived whose next window to judge had ended by `now`, those that ended first first,
   * locked for this job run (replicas take others). `not archived` is the predicate of the index it reads.
   */
  async claimDueForMissCheck(tx: Tx, now: Date, limit: number): Promise<Habit[]> {
    const rows = await tx.select().from(habits).where(and(lte(habits.missCheckAt, now), not(habits.archived)))
      .orderBy(asc(habits.missCheckAt)).limit(limit).for('update', { skipLocked: true })
    return rows.map(toHabit)
  },


  /** Habits whose next reminder instant has come by `now`, locked for this job run (replicas take others). */
  async claimDueForReminder(tx: Tx, now: Date, limit: number): Promise<Habit[]> {
    const rows = await tx.select().from(habits).where(lte(habits.remindAt, now))
      .orderBy(asc(habits.remindAt)).limit(limit).for('update', { skipLocked: true })
    return rows.map(toHabit)
  },

}
