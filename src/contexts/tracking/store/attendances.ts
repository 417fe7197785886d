import { sql } from 'drizzle-orm'
import type { Queryable } from '../../../platform/db/database.js'
import type { LocalDate } from '../../../platform/time/index.js'
import type { Loaded } from '../../../platform/writer/writer.js'
import { defaultHistory, type SettingsEntry } from '../domain/settings.js'
import type { AttendableHabit } from './habit-aggregate.js'
import { toHabit } from './habit-rows.js'
import { habits } from './tables.js'

/**
 * Habits as attends decide on them, in one statement for every habit with attends at that moment:
 * each with the slots its completions filled and its avatar's settings history.
 */
const loadForAttends = new WeakMap<Queryable, ReturnType<typeof prepareLoadForAttends>>()
const prepareLoadForAttends = (q: Queryable) =>
  q.select({
    habit: habits,
    slots: sql<LocalDate[]>`(select coalesce(jsonb_agg(c.window_start), '[]'::jsonb) from tracking.completions c where c.habit_id = ${habits.id})`,
    // Qualified by hand: drizzle names the outer column bare, which inside the subquery is the settings row's own.
    settings: sql<SettingsEntry[] | null>`(select s.history from tracking.avatar_settings s where s.avatar_id = tracking.habits.avatar_id)`,
  }).from(habits).where(sql`${habits.id} = any(${sql.placeholder('ids')}::uuid[])`).prepare('habit_load_for_attends')

export const attendanceStore = {
  async load(q: Queryable, ids: string[]): Promise<Map<string, Loaded<AttendableHabit>>> {
    let statement = loadForAttends.get(q)
    if (!statement) loadForAttends.set(q, (statement = prepareLoadForAttends(q)))
    const rows = await statement.execute({ ids })
    return new Map(rows.map((r) => [r.habit.id, { state: { ...toHabit(r.habit), slots: r.slots, history: r.settings ?? defaultHistory() }, answers: new Map() }]))
  },
}
