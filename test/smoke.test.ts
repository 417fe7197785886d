import { expect, test } from 'vitest'
import { buildTestApp } from './support/app.js'
import { newPlayer } from './support/players.js'

test('a registered player can read their avatar', async ({ onTestFinished }) => {
  const app = await buildTestApp()
  onTestFinished(() => app.close())
  const p = await newPlayer(app, 'Ada')
  const res = await app.inject({ url: `/api/v1/avatars/${p.avatarId}`, headers: p.auth })
  expect(res.statusCode).toBe(200)
  expect(res.json()).toMatchObject({ id: p.avatarId, name: 'Ada', money: { amount: 100 } })
})
