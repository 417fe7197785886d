import { and, asc, eq, gt, inArray, lte, sql } from 'drizzle-orm'
import type { Database, Queryable, Tx } from '../../../platform/db/database.js'
import { NotFound } from '../../../platform/errors.js'
import type { Habit, RecurrenceType } from '../domain/habit.js'
import { recurrenceFields, type LocalDate, type Recurrence, type Weekday } from '../domain/windows.js'
import { completions, habits, missedWindows } from './tables.js'

type Row = typeof habits.$inferSelect

function recurrenceOf(type: string, dayOfWeek: string | null, dayOfMonth: number | null): Recurrence {
  if ((type as RecurrenceType) === 'WEEKLY') return { type: 'WEEKLY', dayOfWeek: dayOfWeek as Weekday }
  if ((type as RecurrenceType) === 'MONTHLY') return { type: 'MONTHLY', dayOfMonth: dayOfMonth! }
  return { type: 'DAILY' }
}

function toHabit(row: Row): Habit {
  const { recurrenceType, dayOfWeek, dayOfMonth, createdAt: _createdAt, seq: _seq, ...rest } = row
  return { ...rest, recurrence: recurrenceOf(recurrenceType, dayOfWeek, dayOfMonth) }
}

function fromHabit({ recurrence, ...h }: Habit) {
  return { ...h, ...recurrenceColumns(recurrence) }
}

/** The table names the type column apart: `recurrence_type`. */
function recurrenceColumns(r: Recurrence) {
  const { type, ...days } = recurrenceFields(r)
  return { recurrenceType: type, ...days }
}

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

  /** The paging position of a habit of this avatar (cursors name the last habit of a page). */
  async positionOf(q: Queryable, avatarId: string, id: string): Promise<number | undefined> {
    const [row] = await q.select({ seq: habits.seq }).from(habits).where(and(eq(habits.id, id), eq(habits.avatarId, avatarId)))
    return row?.seq
  },

  /** Habits whose next window to judge may have ended by `horizon`, locked for this job run. */
  async claimDueForMissCheck(tx: Tx, horizon: LocalDate, limit: number): Promise<Habit[]> {
    const rows = await tx.select().from(habits).where(lte(habits.missCheckDue, horizon))
      .orderBy(asc(habits.missCheckDue)).limit(limit).for('update', { skipLocked: true })
    return rows.map(toHabit)
  },
}

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

  async insert(tx: Tx, c: { habitId: string; windowStart: LocalDate; attendedAt: string; recordedAt: Date }): Promise<void> {
    await tx.insert(completions).values(c)
  },

  async history(q: Queryable, habitId: string): Promise<string[]> {
    const rows = await q.select({ at: completions.attendedAt }).from(completions)
      .where(eq(completions.habitId, habitId)).orderBy(asc(completions.attendedAt))
    return rows.map((r) => r.at)
  },
}

export const missedRepo = {
  /** false when this (habit, window) was already recorded: its penalty went out before. */
  async record(tx: Tx, habitId: string, windowStart: LocalDate, recordedAt: Date): Promise<boolean> {
    const rows = await tx.insert(missedWindows).values({ habitId, windowStart, recordedAt }).onConflictDoNothing()
      .returning({ s: missedWindows.windowStart })
    return rows.length === 1
  },
}

/**
 * An attend in two statements, each in autocommit: the habit with the windows it has completed,
 * then the completion, the habit's new streak and the event in one write guarded by the habit's
 * version (and by the completion's key): a write that lost a race writes nothing.
 */
const loadForAttend = new WeakMap<Queryable, ReturnType<typeof prepareLoadForAttend>>()
const prepareLoadForAttend = (q: Queryable) =>
  q.select({
    habit: habits,
    completed: sql<LocalDate[]>`(select coalesce(jsonb_agg(c.window_start), '[]'::jsonb) from tracking.completions c where c.habit_id = ${habits.id})`,
  }).from(habits).where(eq(habits.id, sql.placeholder('id'))).prepare('habit_load_for_attend')

const WRITE_ATTENDANCE = `
with h as (
  update tracking.habits
     set last_attended_at = $3, last_completed_window_start = $4::date, streak = $5, best_streak = $6, version = $7
   where id = $1 and version = $2
  returning id
), c as (
  insert into tracking.completions (habit_id, window_start, attended_at, recorded_at)
  select h.id, $8::date, $9, $10::timestamptz from h
), o as (
  insert into tracking.outbox (id, type, aggregate_id, version, occurred_at, payload)
  select $11::uuid, $12, h.id, $7, $10::timestamptz, $13::jsonb from h
)
select count(*)::int as updated from h`

export interface AttendanceWrite {
  readVersion: number
  habit: Habit
  completion: { windowStart: LocalDate; attendedAt: string; recordedAt: Date }
  event: { id: string; type: string; payload: unknown }
}

export const attendanceStore = {
  async load(q: Queryable, id: string): Promise<{ habit: Habit; completed: Set<LocalDate> }> {
    let statement = loadForAttend.get(q)
    if (!statement) loadForAttend.set(q, (statement = prepareLoadForAttend(q)))
    const [row] = await statement.execute({ id })
    if (!row) throw new NotFound('Habit', id)
    return { habit: toHabit(row.habit), completed: new Set(row.completed) }
  },

  /** false when the habit moved on (or is gone) since it was read: nothing was written. */
  async write(database: Database, w: AttendanceWrite): Promise<boolean> {
    const h = w.habit
    const [row] = await database.statement('habit_write_attendance', WRITE_ATTENDANCE, [
      h.id, w.readVersion, h.lastAttendedAt, h.lastCompletedWindowStart, h.streak, h.bestStreak, h.version,
      w.completion.windowStart, w.completion.attendedAt, w.completion.recordedAt.toISOString(),
      w.event.id, w.event.type, JSON.stringify(w.event.payload),
    ])
    return row?.updated === 1
  },
}
