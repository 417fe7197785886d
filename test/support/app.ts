import { inject } from 'vitest'
import { loadConfig, type Config } from '../../src/config.js'
import { ManualClock, systemClock, type Clock } from '../../src/platform/clock.js'
import { buildPlatform } from '../../src/server.js'
import { openTestDatabase } from './backends.js'

export interface TestApp {
  inject: import('fastify').FastifyInstance['inject']
  http: import('fastify').FastifyInstance
  clock: Clock
  /** For tests that must reach under the API (fault injection). */
  database: import('../../src/platform/db/database.js').Database
  /** Publishes every pending event and lets the consumers apply them. */
  settle(): Promise<void>
  /** Runs a periodic job now (jobs do not run on timers in tests). */
  runJob(name: string): Promise<void>
  close(): Promise<void>
}

/** A whole platform on its own fresh database, driven through fastify's inject. */
export async function buildTestApp(opts: { env?: Record<string, string>; clock?: ManualClock } = {}): Promise<TestApp> {
  const config: Config = loadConfig({ LOG_LEVEL: 'silent', JOBS_ENABLED: 'false', ...opts.env })
  const testDb = await openTestDatabase(inject('templates'))
  const clock = opts.clock ?? systemClock
  try {
    const { http, relay, scheduler } = await buildPlatform({ config, logger: false, database: testDb.database, clock })
    await http.ready()
    return {
      http,
      inject: http.inject.bind(http),
      clock,
      database: testDb.database,
      settle: () => relay.drain(),
      runJob: (name) => scheduler.runNow(name),
      close: async () => {
        await http.close()
        await testDb.drop()
      },
    }
  } catch (e) {
    await testDb.drop()
    throw e
  }
}
