import { randomUUID } from 'node:crypto'
import { expect } from 'vitest'
import type { TestApp } from './app.js'

export interface Player {
  userId: string
  avatarId: string
  token: string
  refreshToken: string
  email: string
  password: string
  auth: { authorization: string }
}

/** Registers a new player through the API; the registration avatar's id is the user id. */
export async function newPlayer(app: TestApp, name = 'Hero'): Promise<Player> {
  const email = `p-${randomUUID()}@example.com`
  const password = 'correct horse battery'
  const res = await app.inject({ method: 'POST', url: '/auth/register', payload: { name, email, password } })
  expect(res.statusCode, res.body).toBe(200)
  const body = res.json()
  return {
    userId: body.userId,
    avatarId: body.userId,
    token: body.token,
    refreshToken: body.refreshToken,
    email,
    password,
    auth: { authorization: `Bearer ${body.token}` },
  }
}

/** Logs the player in again (after moving a manual clock past their token's expiry). */
export async function signIn(app: TestApp, p: Player): Promise<void> {
  const res = await app.inject({ method: 'POST', url: '/auth/login', payload: { email: p.email, password: p.password } })
  expect(res.statusCode, res.body).toBe(200)
  p.token = res.json().token
  p.auth = { authorization: `Bearer ${p.token}` }
}
