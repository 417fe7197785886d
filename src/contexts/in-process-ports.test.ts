import { afterAll, beforeAll, expect, test } from 'vitest'
import { Database } from '../platform/db/database.js'
import type { AvatarApp } from './avatar/app/avatar-app.js'
import type { LeagueApp } from './avatar/app/league-app.js'
import { inProcessAvatarClient } from './avatar/client.js'
import type { GuildApp } from './guild/app/guild-app.js'
import type { ChatApp } from './guild/app/chat-app.js'
import { inProcessGuildClient } from './guild/client.js'
import type { InboxApp } from './live/app/inbox-app.js'
import { inProcessLiveClient } from './live/client.js'
import type { MarketplaceApp } from './marketplace/app/marketplace-app.js'
import { inProcessMarketplaceClient } from './marketplace/client.js'
import type { QuestApp } from './quest/app/quest-app.js'
import { inProcessQuestClient } from './quest/client.js'
import type { TrackingExport } from './tracking/portability/app/export-app.js'
import type { HabitCommands } from './tracking/app/habit-commands.js'
import type { HabitQueries } from './tracking/app/habit-queries.js'
import { inProcessTrackingClient } from './tracking/client.js'

/**
 * DESIGN §9.1: no call to another context inside an open transaction. Every method of every
 * in-process port refuses one, before it reaches the other context's use cases.
 */
let database: Database
// Starting an embedded database takes seconds on a busy machine.
beforeAll(async () => {
  database = await Database.embedded({})
}, 60_000)
afterAll(() => database.close())

/** Stands in for a context's use cases: any use of it is a call that got through. */
const unreachable = <T>(): T => new Proxy({}, { get: (_t, name) => { throw new Error(`the port reached the app (${String(name)})`) } }) as T

type Port = Record<string, (...args: unknown[]) => Promise<unknown>>
const ports = () => [
  { name: 'AvatarClient', port: inProcessAvatarClient(unreachable<AvatarApp>(), unreachable<LeagueApp>(), database) as unknown as Port },
  { name: 'TrackingClient', port: inProcessTrackingClient({ commands: unreachable<HabitCommands>(), queries: unreachable<HabitQueries>(), exports: unreachable<TrackingExport>() }, database) as unknown as Port },
  { name: 'GuildClient', port: inProcessGuildClient(unreachable<GuildApp>(), unreachable<ChatApp>(), database) as unknown as Port },
  { name: 'QuestClient', port: inProcessQuestClient(unreachable<QuestApp>(), database) as unknown as Port },
  { name: 'MarketplaceClient', port: inProcessMarketplaceClient(unreachable<MarketplaceApp>(), database) as unknown as Port },
  { name: 'LiveClient', port: inProcessLiveClient(unreachable<InboxApp>(), database) as unknown as Port },
]
const callEach = (port: Port) => Object.entries(port).map(([method, call]) => ({ method, answer: call('a', 'b', 'c') }))

test('every method of every in-process port throws inside an open transaction, naming the call', async () => {
  let refused = 0
  await database.transaction(async () => {
    for (const { name, port } of ports()) {
      for (const { method, answer } of callEach(port)) {
        await expect(answer).rejects.toThrow(`${name}.${method} was called inside an open database transaction`)
        refused++
      }
    }
  })
  // 14 avatar methods, 6 tracking, 4 guild, 1 each quest, marketplace and live.
  expect(refused).toBe(27)
})

test('outside a transaction, and once it has committed, the call goes through', async () => {
  for (const { port } of ports()) {
    for (const { answer } of callEach(port)) await expect(answer).rejects.toThrow('the port reached the app')
  }
  const afterCommit: Promise<unknown>[] = []
  await database.transaction(async () => {
    database.afterCommit(() => afterCommit.push(ports()[0]!.port.ownerOf!('a')))
  })
  expect(afterCommit).toHaveLength(1)
  await expect(afterCommit[0]).rejects.toThrow('the port reached the app')
})
