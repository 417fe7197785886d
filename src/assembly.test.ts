/**
 * What a process builds: only the contexts it serves (one served elsewhere is declared, to forward
 * its routes, never built), and it refuses to start when a context it serves calls one it can
 * neither reach nor serve. Assembled, not started: nothing listens, nothing is migrated.
 */
import { afterAll, afterEach, beforeAll, expect, test, vi } from 'vitest'
import { ConfigError, loadConfig } from './config.js'
import { MODULES } from './contexts/modules.js'
import { Database } from './platform/db/database.js'
import { assemblePlatform, type ContextName } from './server.js'

let database: Database
// Starting an embedded database takes seconds on a busy machine.
beforeAll(async () => {
  database = await Database.embedded({})
}, 60_000)
afterAll(() => database.close())
afterEach(() => vi.restoreAllMocks())

/** Upstreams for these contexts, at a port nothing listens on (nothing is started here). */
const upstreamsOf = (...contexts: ContextName[]) => Object.fromEntries(contexts.map((c) => [`UPSTREAM_${c.toUpperCase()}`, 'http://127.0.0.1:9']))

/** Assembles a platform with these settings, answering which modules were built and the server's routes. */
async function assembled(env: Record<string, string>, only?: ContextName[]) {
  const builds = MODULES.map((m) => ({ name: m.name, build: vi.spyOn(m, 'build') }))
  const config = loadConfig({ LOG_LEVEL: 'silent', JOBS_ENABLED: 'false', ...env })
  const { http } = await assemblePlatform({ config, logger: false, database, ...(only ? { only } : {}) })
  await http.ready()
  expect(builds.filter((b) => b.build.mock.calls.length > 1).map((b) => b.name), 'built twice').toEqual([])
  const built = builds.filter((b) => b.build.mock.calls.length > 0).map((b) => b.name)
  return { http, built, close: () => http.close() }
}

test('a process serving one context builds that one only, and declares the routes of those it forwards, not their internal ones', async () => {
  const quest = await assembled(upstreamsOf('avatar', 'tracking', 'guild'), ['quest'])
  try {
    expect(quest.built).toEqual(['quest'])
    expect(quest.http.hasRoute({ method: 'GET', url: '/internal/v1/exports/quests/avatars/:id' })).toBe(true)
    // The avatar's API is forwarded (declared here); its internal routes are not served here, nor forwarded.
    expect(quest.http.hasRoute({ method: 'GET', url: '/api/v1/avatars/:id' })).toBe(true)
    expect(quest.http.hasRoute({ method: 'GET', url: '/internal/v1/avatars/:id/owner' })).toBe(false)
  } finally {
    await quest.close()
  }
}, 60_000)

test('in one process every context is built once', async () => {
  const all = await assembled({})
  try {
    expect(all.built.sort()).toEqual([...MODULES.map((m) => m.name)].sort())
  } finally {
    await all.close()
  }
}, 60_000)

test('a served context that calls one neither served nor given an upstream refuses to start, naming the setting and --only', async () => {
  const config = loadConfig({ LOG_LEVEL: 'silent', ...upstreamsOf('tracking', 'guild') })
  const refused = assemblePlatform({ config, logger: false, database, only: ['quest'] })
  await expect(refused).rejects.toThrow(ConfigError)
  await expect(refused).rejects.toThrow('The quest context calls avatar, which this process neither serves nor reaches: set UPSTREAM_AVATAR to where it runs, or serve it here too (--only quest,avatar).')
  // Served beside it, or given an upstream, it is reached.
  for (const [env, only] of [[{}, ['quest', 'avatar', 'tracking', 'guild']], [upstreamsOf('avatar', 'tracking', 'guild'), ['quest']]] as const) {
    const { http } = await assemblePlatform({ config: loadConfig({ LOG_LEVEL: 'silent', ...env }), logger: false, database, only: [...only] })
    await http.close()
  }
  // The edge calls every context holding a part of a player's export.
  await expect(assemblePlatform({ config: loadConfig({ LOG_LEVEL: 'silent', ...upstreamsOf('avatar', 'tracking', 'guild', 'quest', 'marketplace') }), logger: false, database, only: ['edge'] }))
    .rejects.toThrow('The edge context calls live, which this process neither serves nor reaches: set UPSTREAM_LIVE')
}, 60_000)
