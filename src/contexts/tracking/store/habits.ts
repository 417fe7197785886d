import { and, asc, eq, gt, inArray, lte, sql } from 'drizzle-orm'
import type { Queryable, Tx } from '../../../platform/db/database.js'
import { NotFound } from '../../../platform/errors.js'
import type { Habit } from '../domain/habit.js'
import { fromHabit, toHabit } from './habit-rows.js'
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

  /** false when a habit with this id exists already (a copy made before, asked for again). */
  async insert(tx: Tx, h: Habit, createdAt: Date): Promise<boolean> {
    const rows = await tx.insert(habits).values({ ...fromHabit(h), createdAt }).onConflictDoNothing({ target: habits.id })
      .returning({ id: habits.id })
    return rows.length === 1
  },

  /** Clears the quest link of those of `ids` still linked to `questId`; the habits stay. */
  async unlinkFromQuest(tx: Tx, questId: string, ids: string[]): Promise<void> {
    if (ids.length === 0) return
    await tx.update(habits).set({ associatedQuestId: null, version: sql`${habits.version} + 1` })
      .where(and(inArray(habits.id, ids), eq(habits.associatedQuestId, questId)))
  },

  async save(tx: Tx, h: Habit): Promise<void> {
    const { id, ...changes } = fromHabit(h)
    await tx.update(habits).set(changes).where(eq(habits.id, id))
  },

  async delete(tx: Tx, id: string): Promise<void> {
    await tx.delete(completions).where(eq(completions.habitId, id))
    await tx.delete(missedWindows).where(eq(missedWindows.habitId, id))
    await tx.delete(remindersSent).where(eq(remindersSent.habitId, id))
    await tx.delete(habits).where(eq(habits.id, id))
  },

  async idsOfAvatar(q: Queryable, avatarId: string): Promise<string[]> {
    const rows = await q.select({ id: habits.id }).from(habits).where(eq(habits.avatarId, avatarId))
    return rows.map((r) => r.id)
  },

  /** One page of an avatar's habits, oldest first, after the habit at position `afterSeq`. */
  async listOfAvatar(q: Queryable, avatarId: string, limit: number, afterSeq?: number): Promise<Habit[]> {
    const rows = await q.select().from(habits)
      .where(and(eq(habits.avatarId, avatarId), afterSeq === undefined ? undefined : gt(habits.seq, afterSeq)))
      .orderBy(asc(habits.seq)).limit(limit)
    return rows.map(toHabit)
  },

  /** Every habit of the avatar, oldest first (a report lists them all). */
  async allOfAvatar(q: Queryable, avatarId: string): Promise<Habit[]> {
    const rows = await q.select().from(habits).where(eq(habits.avatarId, avatarId)).orderBy(asc(habits.seq))
    return rows.map(toHabit)
  },

  /** The habits of every avatar of an account, oldest first, at most `limit` (a calendar feed). */
  async ofOwner(q: Queryable, ownerId: string, limit: number): Promise<Habit[]> {
    const rows = await q.select().from(habits).where(eq(habits.ownerId, ownerId)).orderBy(asc(habits.seq)).limit(limit)
    return rows.map(toHabit)
  },

  /** The paging position of a habit of this avatar (cursors name the last habit of a page). */
  async positionOf(q: Queryable, avatarId: string, id: string): Promise<number | undefined> {
    const [row] = await q.select({ seq: habits.seq }).from(habits).where(and(eq(habits.id, id), eq(habits.avatarId, avatarId)))
    return row?.seq
  },

  /** Habits whose next window to judge had ended by `now`, those that ended first first, locked for this job run (replicas take others). */
  async claimDueForMissCheck(tx: Tx, now: Date, limit: number): Promise<Habit[]> {
    const rows = await tx.select().from(habits).where(lte(habits.missCheckAt, now))
      .orderBy(asc(habits.missCheckAt)).limit(limit).for('update', { skipLocked: true })
    return rows.map(toHabit)
  },

  /** Moves each habit's missed-window instant, in one statement (the job's bookkeeping: no new version). */
  async setMissCheckAt(tx: Tx, next: { id: string; missCheckAt: Date }[]): Promise<void> {
    if (next.length === 0) return
    const rows = JSON.stringify(next.map((n) => ({ id: n.id, at: n.missCheckAt.toISOString() })))
    await tx.execute(sql`update tracking.habits t set miss_check_at = x.at
      from jsonb_to_recordset(${rows}::jsonb) as x(id uuid, at timestamptz) where t.id = x.id`)
  },

  /** Habits whose next reminder instant has come by `now`, locked for this job run (replicas take others). */
  async claimDueForReminder(tx: Tx, now: Date, limit: number): Promise<Habit[]> {
    const rows = await tx.select().from(habits).where(lte(habits.remindAt, now))
      .orderBy(asc(habits.remindAt)).limit(limit).for('update', { skipLocked: true })
    return rows.map(toHabit)
  },

  /** Moves each habit's next reminder instant, in one statement (the reminder job's bookkeeping: no new version). */
  async setRemindAt(tx: Tx, next: { id: string; remindAt: Date | null }[]): Promise<void> {
    if (next.length === 0) return
    const rows = JSON.stringify(next.map((n) => ({ id: n.id, at: n.remindAt?.toISOString() ?? null })))
    await tx.execute(sql`update tracking.habits t set remind_at = x.at
      from jsonb_to_recordset(${rows}::jsonb) as x(id uuid, at timestamptz) where t.id = x.id`)
  },
}
