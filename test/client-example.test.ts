/**
 * The scripting example of docs/api.md (examples/complete-today.ts), run with the client package
 * against the platform on a real port, so that neither can rot.
 */
import { ProblemError } from '@questline/client'
import { expect, test } from 'vitest'
import { completeToday } from '../examples/complete-today.js'
import { localDateTimeIn } from '../src/platform/time/index.js'
import { buildTestApp } from './support/app.js'
import { attend, newHabit } from './support/habits.js'
import { newPlayer } from './support/players.js'

test('the example script logs in and completes the habits due, leaving those done', async ({ onTestFinished }) => {
  const app = await buildTestApp()
  onTestFinished(() => app.close())
  const p = await newPlayer(app)
  const due = await newHabit(app, p, { title: 'Stretch' })
  const done = await newHabit(app, p, { title: 'Read 20 pages' })
  const habit = async (id: string) => (await app.inject({ url: `/api/v1/habits/${id}`, headers: p.auth })).json()
  const attended = await attend(app, p, done, localDateTimeIn(new Date(), (await habit(done)).timeZone))
  expect(attended.statusCode, attended.body).toBe(204)

  expect(await completeToday(await app.baseUrl(), p.email, p.password)).toEqual(['Stretch'])
  expect(await habit(due)).toMatchObject({ streak: 1, lastAttendedDate: expect.any(String) })
  // Run again, it finds nothing due.
  expect(await completeToday(await app.baseUrl(), p.email, p.password)).toEqual([])
  // A refusal is thrown as the problem the API answered.
  const refused = completeToday(await app.baseUrl(), p.email, 'not the password')
  await expect(refused).rejects.toBeInstanceOf(ProblemError)
  await expect(refused).rejects.toMatchObject({ status: 401, type: expect.stringMatching(/\/problems\/invalid-credentials$/) })
})
