import { and, asc, count, eq, gt, gte, inArray, isNotNull, lt, lte, sql } from 'drizzle-orm'
import type { Database, Queryable, Tx } from '../../../platform/db/database.js'
import { NotFound } from '../../../platform/errors.js'
import { recurrenceFields, type LocalDate, type Recurrence, type RecurrenceType, type Weekday } from '../../../platform/time/index.js'
import type { Habit } from '../domain/habit.js'
import { defaultHistory, type SettingsEntry } from '../domain/settings.js'
import { avatarSettings, completions, habits, missedWindows, remindersSent } from './tables.js'

type Row = typeof habits.$inferSelect

type RecurrenceColumns = Pick<Row, 'recurrenceType' | 'dayOfWeek' | 'dayOfMonth' | 'timesPerWeek' | 'everyNDays' | 'recurrenceAnchor'>

function recurrenceOf(r: RecurrenceColumns): Recurrence {
  switch (r.recurrenceType as RecurrenceType) {
    case 'WEEKLY': return { type: 'WEEKLY', dayOfWeek: r.dayOfWeek as Weekday }
    case 'MONTHLY': return { type: 'MONTHLY', dayOfMonth: r.dayOfMonth! }
    case 'TIMES_PER_WEEK': return { type: 'TIMES_PER_WEEK', timesPerWeek: r.timesPerWeek! }
    case 'EVERY_N_DAYS': return { type: 'EVERY_N_DAYS', everyNDays: r.everyNDays!, anchor: r.recurrenceAnchor! }
    default: return { type: 'DAILY' }
  }
}

function toHabit(row: Row): Habit {
  const {
    recurrenceType, dayOfWeek, dayOfMonth, timesPerWeek, everyNDays, recurrenceAnchor, timeZone, restDays, previousRestDays,
    createdAt: _createdAt, seq: _seq, ...rest
  } = row
  return {
    ...rest,
    recurrence: recurrenceOf({ recurrenceType, dayOfWeek, dayOfMonth, timesPerWeek, everyNDays, recurrenceAnchor }),
    ownTimeZone: timeZone,
    restDays: restDays as Weekday[],
    previousRestDays: previousRestDays as Weekday[],
  }
}

function fromHabit({ recurrence, ownTimeZone, ...h }: Habit) {
  return { ...h, timeZone: ownTimeZone, ...recurrenceColumns(recurrence) }
}

/** The table names the type column apart (`recurrence_type`) and keeps an EVERY_N_DAYS anchor. */
function recurrenceColumns(r: Recurrence): RecurrenceColumns {
  const { type, ...fields } = recurrenceFields(r)
  return { recurrenceType: type, ...fields, recurrenceAnchor: r.type === 'EVERY_N_DAYS' ? r.anchor : null }
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

  /** The habit locked for a change, or undefined when it is gone (an event about it arrives late). */
  async findForUpdate(tx: Tx, id: string): Promise<Habit | undefined> {
    const [row] = await tx.select().from(habits).where(eq(habits.id, id)).for('update')
    return row ? toHabit(row) : undefined
  },

  /** The avatar's habits that have a reminder time, locked: their reminder instants move with the avatar's days. */
  async withReminderOfAvatar(tx: Tx, avatarId: string): Promise<Habit[]> {
    const rows = await tx.select().from(habits).where(and(eq(habits.avatarId, avatarId), isNotNull(habits.reminderTime))).for('update')
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

  /** Habits whose next window to judge may have ended by `horizon`, locked for this job run. */
  async claimDueForMissCheck(tx: Tx, horizon: LocalDate, limit: number): Promise<Habit[]> {
    const rows = await tx.select().from(habits).where(lte(habits.missCheckDue, horizon))
      .orderBy(asc(habits.missCheckDue)).limit(limit).for('update', { skipLocked: true })
    return rows.map(toHabit)
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

export const settingsRepo = {
  /** The avatar's settings history; the defaults when it never changed them. */
  async history(q: Queryable, avatarId: string): Promise<SettingsEntry[]> {
    const [row] = await q.select({ history: avatarSettings.history }).from(avatarSettings).where(eq(avatarSettings.avatarId, avatarId))
    return (row?.history as SettingsEntry[] | undefined) ?? defaultHistory()
  },

  /** The same, locked for a change (no row yet: none to lock; the upsert settles two first changes). */
  async historyForUpdate(tx: Tx, avatarId: string): Promise<{ history: SettingsEntry[]; version: number }> {
    const [row] = await tx.select().from(avatarSettings).where(eq(avatarSettings.avatarId, avatarId)).for('update')
    return row ? { history: row.history as SettingsEntry[], version: row.version } : { history: defaultHistory(), version: 0 }
  },

  /** false when another change was written since `version` was read (first changes race on the insert). */
  async save(tx: Tx, avatarId: string, history: SettingsEntry[], version: number, at: Date): Promise<boolean> {
    if (version === 0) {
      const rows = await tx.insert(avatarSettings).values({ avatarId, history, version: 1, updatedAt: at }).onConflictDoNothing().returning({ v: avatarSettings.version })
      return rows.length === 1
    }
    const rows = await tx.update(avatarSettings).set({ history, version: version + 1, updatedAt: at })
      .where(and(eq(avatarSettings.avatarId, avatarId), eq(avatarSettings.version, version))).returning({ v: avatarSettings.version })
    return rows.length === 1
  },

  /** Each avatar's history, for a job run over many habits. */
  async historiesOf(q: Queryable, avatarIds: string[]): Promise<Map<string, SettingsEntry[]>> {
    const ids = [...new Set(avatarIds)]
    const rows = ids.length === 0 ? [] : await q.select().from(avatarSettings).where(inArray(avatarSettings.avatarId, ids))
    const found = new Map(rows.map((r) => [r.avatarId, r.history as SettingsEntry[]]))
    return new Map(ids.map((id) => [id, found.get(id) ?? defaultHistory()]))
  },

  async delete(tx: Tx, avatarId: string): Promise<void> {
    await tx.delete(avatarSettings).where(eq(avatarSettings.avatarId, avatarId))
  },
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

/**
 * A batch of attends in two statements, each in autocommit: the habits with the windows they have
 * completed, then every changed habit, its completions and its events in one write, each habit
 * guarded by its version (and each completion by its key): a habit that moved on since it was
 * read writes nothing, and its attends are decided again.
 */
const loadForAttends = new WeakMap<Queryable, ReturnType<typeof prepareLoadForAttends>>()
const prepareLoadForAttends = (q: Queryable) =>
  q.select({
    habit: habits,
    slots: sql<LocalDate[]>`(select coalesce(jsonb_agg(c.window_start), '[]'::jsonb) from tracking.completions c where c.habit_id = ${habits.id})`,
    // Qualified by hand: drizzle names the outer column bare, which inside the subquery is the settings row's own.
    settings: sql<SettingsEntry[] | null>`(select s.history from tracking.avatar_settings s where s.avatar_id = tracking.habits.avatar_id)`,
  }).from(habits).where(sql`${habits.id} = any(${sql.placeholder('ids')}::uuid[])`).prepare('habit_load_for_attends')

const WRITE_ATTENDANCES = `
with input as (
  select * from jsonb_to_recordset($1::jsonb) as x(
    id uuid, read_version int, last_attended_at text, last_completed_window_start date, streak int, best_streak int, version int)
), h as (
  update tracking.habits t
     set last_attended_at = i.last_attended_at, last_completed_window_start = i.last_completed_window_start,
         streak = i.streak, best_streak = i.best_streak, version = i.version
    from input i
   where t.id = i.id and t.version = i.read_version
  returning t.id
), c as (
  insert into tracking.completions (habit_id, window_start, attended_at, recorded_at)
  select x.habit_id, x.window_start, x.attended_at, $3::timestamptz
    from jsonb_to_recordset($2::jsonb) as x(habit_id uuid, window_start date, attended_at text) join h on h.id = x.habit_id
), o as (
  insert into tracking.outbox (id, type, aggregate_id, version, occurred_at, payload)
  select x.id, x.type, x.aggregate_id, x.version, $3::timestamptz, x.payload
    from jsonb_to_recordset($4::jsonb) as x(id uuid, type text, aggregate_id text, version int, payload jsonb)
    join h on h.id::text = x.aggregate_id
)
select id::text from h`

export interface LoadedHabit {
  habit: Habit
  /** The slots its completions filled (see `slotOf`). */
  slots: LocalDate[]
  /** Its avatar's settings history. */
  history: SettingsEntry[]
}

/** One habit's attends of a batch: its state after them, their completions and their events. */
export interface AttendanceWrite {
  readVersion: number
  habit: Habit
  completions: { windowStart: LocalDate; attendedAt: string }[]
  events: { id: string; type: string; version: number; payload: unknown }[]
}

export const attendanceStore = {
  async load(q: Queryable, ids: string[]): Promise<Map<string, LoadedHabit>> {
    let statement = loadForAttends.get(q)
    if (!statement) loadForAttends.set(q, (statement = prepareLoadForAttends(q)))
    const rows = await statement.execute({ ids })
    return new Map(rows.map((r) => [r.habit.id, { habit: toHabit(r.habit), slots: r.slots, history: r.settings ?? defaultHistory() }]))
  },

  /** The ids of the habits written; a habit missing moved on (or is gone) since it was read. */
  async write(database: Database, writes: AttendanceWrite[], recordedAt: Date): Promise<Set<string>> {
    const habitRows = writes.map(({ readVersion, habit: h }) => ({
      id: h.id, read_version: readVersion, last_attended_at: h.lastAttendedAt, last_completed_window_start: h.lastCompletedWindowStart,
      streak: h.streak, best_streak: h.bestStreak, version: h.version,
    }))
    const completionRows = writes.flatMap((w) => w.completions.map((c) => ({ habit_id: w.habit.id, window_start: c.windowStart, attended_at: c.attendedAt })))
    const eventRows = writes.flatMap((w) => w.events.map((e) => ({ ...e, aggregate_id: w.habit.id })))
    const rows = await database.statement('habit_write_attendances', WRITE_ATTENDANCES, [
      JSON.stringify(habitRows), JSON.stringify(completionRows), recordedAt.toISOString(), JSON.stringify(eventRows),
    ])
    return new Set(rows.map((r) => r.id as string))
  },
}
