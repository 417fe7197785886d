/** Quests through the API: making one, joining it, reading a participant's progress and copies. */
import { expect } from 'vitest'
import type { TestApp } from './app.js'
import type { Player } from './players.js'

export const questUrl = (id: string, rest = '') => `/api/v1/quests/${id}${rest}`

export const READ = { habitId: 'read', title: 'Read 20 pages', description: 'before bed', tags: ['mind'], recurrence: { type: 'DAILY' } }
const RUN = { habitId: 'run', title: 'Run 5 km', recurrence: { type: 'WEEKLY', dayOfWeek: 'MONDAY', dayOfMonth: null } }
export const GYM = { habitId: 'gym', title: 'Gym', recurrence: { type: 'TIMES_PER_WEEK', timesPerWeek: 2 } }
export const CALL = { habitId: 'call', title: 'Call home', recurrence: { type: 'EVERY_N_DAYS', everyNDays: 3, timesPerWeek: null } }

/** A quest named 'Spring training' with READ and RUN unless `extra` says otherwise; answers its id. */
export async function createQuest(a: TestApp, p: Player, extra: Record<string, unknown> = {}): Promise<string> {
  const res = await a.inject({ method: 'POST', url: '/api/v1/quests', headers: p.auth, payload: { name: 'Spring training', habits: [READ, RUN], ...extra } })
  expect(res.statusCode, res.body).toBe(200)
  return res.json().id
}

export const join = (a: TestApp, p: Player, questId: string, avatarId = p.avatarId) =>
  a.inject({ method: 'POST', url: questUrl(questId, '/participants'), headers: p.auth, payload: { avatarId } })

export async function progress(a: TestApp, p: Player, questId: string, avatarId = p.avatarId) {
  const res = await a.inject({ url: questUrl(questId, `/participants/${avatarId}`), headers: p.auth })
  expect(res.statusCode, res.body).toBe(200)
  return res.json()
}

interface HabitView { id: string; title: string; associatedQuestId: string | null; recurrence: { type: string }; tags: string[]; description: string }

/** The avatar's habits (its copies of quest habits among them, linked by `associatedQuestId`). */
export async function habitsOf(a: TestApp, p: Player): Promise<HabitView[]> {
  const res = await a.inject({ url: `/api/v1/habits?avatarId=${p.avatarId}&limit=200`, headers: p.auth })
  expect(res.statusCode, res.body).toBe(200)
  return res.json().items
}

/** The id of the avatar's copy of a quest habit, from a participation's view. */
export const copyOf = (view: { habits: { habitId: string; copyHabitId: string }[] }, habitId: string) =>
  view.habits.find((h) => h.habitId === habitId)!.copyHabitId
