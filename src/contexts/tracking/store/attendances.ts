import { sql } from 'drizzle-orm'
import type { Database, Queryable } from '../../../platform/db/database.js'
import type { LocalDate } from '../../../platform/time/index.js'
import type { Habit } from '../domain/habit.js'
import { defaultHistory, type SettingsEntry } from '../domain/settings.js'
import { toHabit } from './habit-rows.js'
import { habits } from './tables.js'

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
