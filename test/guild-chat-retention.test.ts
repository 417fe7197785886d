/** Guild chat messages are kept CHAT_RETENTION_DAYS days (DESIGN §9.5), here set to 30; the retention job deletes older ones. */
import { afterAll, beforeAll, expect, test } from 'vitest'
import { ManualClock } from '../src/platform/clock.js'
import { PRUNE_JOB } from '../src/platform/jobs/retention.js'
import { buildTestApp, type TestApp } from './support/app.js'
import { guildUrl, joinGuild, newGuild } from './support/guilds.js'
import { newPlayer, signIn, type Player } from './support/players.js'

const DAY_MS = 86_400_000
const clock = new ManualClock(new Date('2026-03-02T08:00:00Z'))
let app: TestApp
beforeAll(async () => {
  app = await buildTestApp({ clock, env: { ACCESS_TOKEN_TTL_SECONDS: '86400', CHAT_RETENTION_DAYS: '30' } })
})
afterAll(() => app.close())

async function posted(p: Player, guildId: string, text: string): Promise<string> {
  const res = await app.inject({ method: 'POST', url: guildUrl(guildId, '/messages'), headers: p.auth, payload: { text } })
  expect(res.statusCode, res.body).toBe(201)
  return res.json().id
}
const ids = async (p: Player, guildId: string) =>
  (await app.inject({ url: guildUrl(guildId, '/messages'), headers: p.auth })).json().items.map((m: { id: string }) => m.id)

test('messages older than CHAT_RETENTION_DAYS go with the retention job; younger ones stay', async () => {
  const [leader, member] = await Promise.all([newPlayer(app, 'Keeper'), newPlayer(app, 'Other')])
  const id = await newGuild(app, leader)
  await joinGuild(app, id, leader, member)
  const old = await posted(member, id, 'old news')
  clock.advance(29 * DAY_MS)
  await signIn(app, leader)
  const recent = await posted(leader, id, 'recent')
  clock.advance(DAY_MS - 1000)
  await app.runJob(PRUNE_JOB)
  await signIn(app, leader)
  expect(await ids(leader, id)).toEqual([recent, old])
  clock.advance(2000)
  await app.runJob(PRUNE_JOB)
  expect(await ids(leader, id)).toEqual([recent])
})
