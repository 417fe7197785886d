import { inArray, lt, sql } from 'drizzle-orm'
import type { Queryable } from '../../../platform/db/database.js'
import { deleteSome } from '../../../platform/db/bounded-delete.js'
import type { LocalDate } from '../../../platform/time/index.js'
import type { Answer, Loaded } from '../../../platform/writer/writer.js'
import { defaultHistory, type SettingsEntry } from '../domain/settings.js'
import type { AttendableHabit } from './habit-aggregate.js'
import { toHabit } from './habit-rows.js'
import { attendAnswers, habits } from './tables.js'

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

/** A keyed attend's first result as kept: what its key answers again. */
export interface StoredAttendAnswer extends Answer {
  key: string
}

export const attendanceStore = {
  /** The habits asked for, each with the answers its keyed attends were given before (a second statement only when keys were asked). */
  async load(q: Queryable, asked: { id: string; keys: string[] }[]): Promise<Map<string, Loaded<AttendableHabit>>> {
    let statement = loadForAttends.get(q)
    if (!statement) loadForAttends.set(q, (statement = prepareLoadForAttends(q)))
    const keys = asked.flatMap((a) => a.keys)
    const [rows, answers] = await Promise.all([statement.execute({ ids: asked.map((a) => a.id) }), keys.length ? this.answersOf(q, keys) : []])
    const loaded = new Map(rows.map((r) => [r.habit.id, { state: { ...toHabit(r.habit), slots: r.slots, history: r.settings ?? defaultHistory() }, answers: new Map<string, Answer>() }]))
    for (const { key, ...answer } of answers) loaded.get(answer.of)?.answers.set(key, answer)
    return loaded
  },

  /** The answers kept for these keys. */
  async answersOf(q: Queryable, keys: string[]): Promise<StoredAttendAnswer[]> {
    if (keys.length === 0) return []
    const rows = await q.select().from(attendAnswers).where(inArray(attendAnswers.key, keys))
    return rows.map((r) => ({ key: r.key, of: r.habitId, operation: r.operation, result: r.result }))
  },

  /** Keeps a refusal as its key's first result, unless the key has one already: answers the one kept. */
  async keepRefusal(q: Queryable, answer: StoredAttendAnswer, at: Date): Promise<StoredAttendAnswer> {
    const inserted = await q.insert(attendAnswers).values({ key: answer.key, habitId: answer.of, operation: answer.operation, result: answer.result, answeredAt: at })
      .onConflictDoNothing().returning({ key: attendAnswers.key })
    if (inserted.length > 0) return answer
    const [kept] = await this.answersOf(q, [answer.key])
    return kept ?? answer
  },

  /** Answers kept since before `before`, at most `limit` of them: past their use. */
  pruneAnswers(q: Queryable, before: Date, limit: number): Promise<number> {
    return deleteSome(q, attendAnswers, attendAnswers.key, lt(attendAnswers.answeredAt, before), limit)
  },
}
