import { inject } from 'vitest'
import { loadConfig, type Config } from '../../src/config.js'
import { ManualClock, systemClock, type Clock } from '../../src/platform/clock.js'
import { buildPlatform, type ContextName } from '../../src/server.js'
import type { EventBus } from '../../src/platform/events/bus.js'
import type { OutboxRelay } from '../../src/platform/events/relay.js'
import { openTestDatabase } from './backends.js'
import { withDocumentedProblems } from './documented-problems.js'
import { ownStream } from './nats.js'
import { buildOwnSplitApp, buildSplitApp } from './split-app.js'

/** Whether the suite drives separate processes through the gateway (project api-split). */
export const splitTarget = process.env.QL_TEST_TARGET === 'split'
/** Retries a cross-service call makes after a 5xx: 0 in one process, SERVICE_CALL_RETRIES' default over HTTP. */
export const callRetries = splitTarget ? 2 : 0

export interface TestApp {
  inject: import('fastify').FastifyInstance['inject']
  /**
   * A request to a process serving `context`, past any gateway: how services reach its
   * /internal/v1 routes, which no gateway forwards. In one process, the app itself.
   */
  injectAt(context: string, opts: import('fastify').InjectOptions): Promise<import('fastify').LightMyRequestResponse>
  http: import('fastify').FastifyInstance
  clock: Clock
  /** For tests that must reach under the API (fault injection). */
  database: import('../../src/platform/db/database.js').Database
  /** Publishes every pending event and lets the consumers apply them. */
  settle(): Promise<void>
  /**
   * The Prometheus text of the process serving `context`, its sampled values (backlogs, table
   * sizes) read just before; `{ sampleFirst: false }` scrapes what the background last read.
   */
  metricsOf(context: string, opts?: { sampleFirst?: boolean }): Promise<string>
  /** Runs a periodic job now (jobs do not run on timers in tests). */
  runJob(name: string): Promise<void>
  /** A token signed with the app's key, e.g. a service token (role `service`). */
  issueToken(userId: string, role: 'player' | 'admin' | 'service'): Promise<string>
  /** Where the API answers over a real socket (for streams, which inject cannot hold open): `http://127.0.0.1:<port>`. */
  baseUrl(): Promise<string>
  close(): Promise<void>
}

interface TestAppOptions {
  env?: Record<string, string>
  clock?: ManualClock
  /** In one process: serve only these contexts. */
  only?: ContextName[]
  /** Split services: a cluster of the test's own (it may kill and restart processes) instead of a shared one. */
  ownCluster?: boolean
}

/** A whole platform on its own fresh database (or, split, a cluster), driven through fastify's inject. */
export async function buildTestApp(opts: TestAppOptions = {}): Promise<TestApp> {
  if (splitTarget) {
    const { ownCluster, ...splitOpts } = opts
    return ownCluster || process.env.QL_TEST_OWN_CLUSTERS === 'true' ? buildOwnSplitApp(splitOpts, natsSettings()!) : buildSplitApp(splitOpts)
  }
  const nats = natsSettings()
  const config: Config = loadConfig({ LOG_LEVEL: 'silent', JOBS_ENABLED: 'false', ...nats?.env, ...opts.env })
  const testDb = await openTestDatabase(inject('templates'))
  const clock = opts.clock ?? systemClock
  try {
    const { http, relay, bus, scheduler, tokens, sampler } = await buildPlatform({ config, logger: false, database: testDb.database, clock, ...(opts.only ? { only: opts.only } : {}) })
    await http.ready()
    const inject = withDocumentedProblems(http.inject.bind(http))
    return {
      http,
      inject,
      injectAt: (_context, o) => inject(o),
      clock,
      database: testDb.database,
      settle: () => settle(relay, bus),
      runJob: (name) => scheduler.runNow(name),
      metricsOf: async (_context, o) => {
        if (o?.sampleFirst !== false) await sampler.sampleNow()
        return (await http.inject({ url: '/metrics' })).body
      },
      issueToken: async (userId, role) => (await tokens.issue(userId, role)).token,
      baseUrl: async () => {
        if (!http.server.listening) await http.listen({ port: 0, host: '127.0.0.1' })
        const address = http.server.address()
        if (!address || typeof address === 'string') throw new Error('The test app listens on no port.')
        return `http://127.0.0.1:${address.port}`
      },
      close: async () => {
        await http.close()
        await testDb.drop()
        await nats?.cleanup()
      },
    }
  } catch (e) {
    await testDb.drop()
    await nats?.cleanup()
    throw e
  }
}

/** Waits until every pending event is published and, on NATS, acknowledged by its consumer. */
async function settle(relay: OutboxRelay, bus: EventBus): Promise<void> {
  const deadline = Date.now() + 20_000
  for (let quietRounds = 0; quietRounds < 2; ) {
    await relay.drain()
    const pending = await bus.pending()
    quietRounds = pending === 0 ? quietRounds + 1 : 0
    if (Date.now() > deadline) throw new Error(`events still pending after 20 s: ${pending}`)
    if (quietRounds < 2) await new Promise((r) => setTimeout(r, pending === 0 ? 5 : 20))
  }
}

let natsApps = 0

/** With the NATS bus, each test app gets a stream and subject prefix of its own, removed afterwards. */
function natsSettings() {
  if (process.env.QL_TEST_BUS !== 'nats') return undefined
  const url = process.env.TEST_NATS_URL
  if (!url) throw new Error('The NATS test project needs TEST_NATS_URL.')
  return ownStream(url, `qltest_${process.pid}_${Date.now().toString(36)}_${++natsApps}`)
}
