import { expect } from 'vitest'
import type { TestApp } from './app.js'
import type { Player } from './players.js'

export async function newHabit(app: TestApp, p: Player, extra: Record<string, unknown> = {}): Promise<string> {
  const res = await app.inject({
    method: 'POST', url: '/api/v1/habits', headers: p.auth,
    payload: { avatarId: p.avatarId, title: 'Read 20 pages', recurrenceType: 'DAILY', ...extra },
  })
  expect(res.statusCode, res.body).toBe(200)
  return res.json().id
}

export const attend = (app: TestApp, p: Player, habitId: string, date: string) =>
  app.inject({ method: 'POST', url: `/api/v1/habits/${habitId}/attend`, headers: p.auth, payload: { date } })

export async function avatarOf(app: TestApp, p: Player) {
  const res = await app.inject({ url: `/api/v1/avatars/${p.avatarId}`, headers: p.auth })
  expect(res.statusCode, res.body).toBe(200)
  return res.json()
}
