/**
 * The platform as separate processes (split services) behind its gateway, driven over HTTP with
 * the same TestApp surface as the in-process one: requests go to the gateway; the clock, event
 * delivery and jobs reach every process through its test controls (TEST_CONTROL=true).
 */
import { sql, type SQL } from 'drizzle-orm'
import { inject } from 'vitest'
import { loadConfig } from '../../src/config.js'
import { generateSigningJwk, loadSigningKeys } from '../../src/platform/auth/keys.js'
import { RevocationList } from '../../src/platform/auth/revocations.js'
import { AccessTokens } from '../../src/platform/auth/tokens.js'
import type { ManualClock } from '../../src/platform/clock.js'
import { systemClock } from '../../src/platform/clock.js'
import { Cluster, type ClusterProcess } from '../../src/split/cluster.js'
import type { TestApp } from './app.js'
import { openTestDatabase } from './backends.js'

export interface SplitTestApp extends TestApp {
  cluster: Cluster
  /**
   * As TestApp's, waiting up to `timeoutMs`: after a crash, events a dead process had leased
   * (outbox rows, deliveries not acknowledged) come free only when their lease runs out.
   */
  settle(timeoutMs?: number): Promise<void>
  /** Starts a stopped process again; with a manual clock, it is set on it before anything else. */
  restart(p: ClusterProcess): Promise<ClusterProcess>
}

const SETTLE_TIMEOUT_MS = 30_000

/** Avatar and tracking run twice, as the split-services issue asks. */
const CONTEXTS = [
  { context: 'avatar', replicas: 2 },
  { context: 'tracking', replicas: 2 },
  { context: 'guild', replicas: 1 },
  { context: 'quest', replicas: 1 },
  { context: 'marketplace', replicas: 1 },
]

type InjectOptions = { method?: string; url: string; headers?: Record<string, string>; payload?: unknown }

export interface InjectResponse {
  statusCode: number
  headers: Record<string, string>
  body: string
  payload: string
  json(): any // eslint-disable-line @typescript-eslint/no-explicit-any -- as light-my-request's
}

async function send(base: string, o: InjectOptions | string): Promise<InjectResponse> {
  const opts = typeof o === 'string' ? { url: o } : o
  const headers: Record<string, string> = { ...(opts.headers ?? {}) }
  let body: string | Buffer | undefined
  if (opts.payload !== undefined) {
    if (typeof opts.payload === 'string' || Buffer.isBuffer(opts.payload)) body = opts.payload
    else {
      body = JSON.stringify(opts.payload)
      headers['content-type'] ??= 'application/json'
    }
  }
  const res = await fetch(base + opts.url, { method: opts.method ?? 'GET', headers, ...(body !== undefined ? { body } : {}), redirect: 'manual' })
  const text = await res.text()
  return {
    statusCode: res.status,
    headers: Object.fromEntries(res.headers.entries()),
    body: text,
    payload: text,
    json: () => JSON.parse(text),
  }
}

async function control(p: ClusterProcess, path: string, body: unknown = {}): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await fetch(`${p.url}/_test/${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
  return { status: res.status, json: (await res.json()) as Record<string, unknown> }
}

export async function buildSplitApp(opts: { env?: Record<string, string>; clock?: ManualClock }, nats: { env: Record<string, string>; cleanup(): Promise<void> }): Promise<SplitTestApp> {
  const templates = inject('templates')
  const jwk = JSON.stringify(await generateSigningJwk())
  const config = loadConfig({ ...opts.env })
  const tokens = new AccessTokens(await loadSigningKeys(jwk, undefined),
    { issuer: config.jwtIssuer, audience: config.jwtAudience, ttlSeconds: config.accessTokenTtlSeconds }, opts.clock ?? systemClock, new RevocationList())
  const testDb = await openTestDatabase(templates)
  let cluster: Cluster | undefined
  let unpublishedQuery: SQL
  try {
    // Events committed but not yet on the bus, in every context's outbox: a relay that failed to
    // publish holds them back for a while, and a process killed while relaying holds their lease.
    const outboxes = (await testDb.database.db.execute(sql`select table_schema as s from information_schema.tables where table_name = 'outbox'`) as unknown as { rows: { s: string }[] }).rows
    unpublishedQuery = sql.raw(outboxes.map((o) => `select count(*)::int as n from "${o.s}".outbox where published_at is null`).join(' union all '))
    cluster = await Cluster.start({
      port: 0,
      host: '127.0.0.1',
      contexts: CONTEXTS,
      ...(templates.bundle ? { entry: [templates.bundle] } : {}),
      env: {
        DATABASE_URL: testDb.url!, ...nats.env, TEST_CONTROL: 'true', LOG_LEVEL: 'silent', JOBS_ENABLED: 'false',
        JWT_PRIVATE_KEY: jwk, ...opts.env,
      },
      ...(process.env.QL_TEST_SPLIT_LOGS ? { output: (line: string) => console.log(line) } : {}),
    })
  } catch (e) {
    await testDb.drop()
    await nats.cleanup()
    throw e
  }
  const c = cluster
  const live = () => c.processes.filter((p) => p.child.exitCode === null && p.child.signalCode === null)

  // A manual clock's every change reaches every process before the next request.
  let clockSync: Promise<unknown> = Promise.resolve()
  const pushClock = (now: Date) => {
    clockSync = clockSync.then(() => Promise.all(live().map((p) => control(p, 'clock', { now: now.toISOString() }))))
  }
  if (opts.clock) {
    pushClock(opts.clock.now())
    opts.clock.onChange(pushClock)
  }

  const unpublished = async () =>
    (await testDb.database.db.execute(unpublishedQuery) as unknown as { rows: { n: number }[] }).rows.reduce((n, r) => n + r.n, 0)

  const settle = async (timeoutMs = SETTLE_TIMEOUT_MS) => {
    await clockSync
    const deadline = Date.now() + timeoutMs
    for (let quiet = 0; quiet < 2;) {
      const answers = await Promise.all(live().map(async (p) => ({ p, a: await control(p, 'settle') })))
      // A process that cannot settle now (its bus is down) is not quiet.
      const failed = answers.filter(({ a }) => a.status !== 200)
      const pending = answers.reduce((n, { a }) => n + Number(a.json.pending ?? 0), 0) + (await unpublished())
      quiet = pending === 0 && failed.length === 0 ? quiet + 1 : 0
      if (Date.now() > deadline) {
        const why = failed.map(({ p, a }) => `${p.name}: ${a.status} ${JSON.stringify(a.json)}`).join('; ')
        throw new Error(`events still pending after ${timeoutMs / 1000} s: ${pending}${why ? `; ${why}` : ''}`)
      }
      if (quiet < 2) await new Promise((r) => setTimeout(r, pending === 0 && failed.length === 0 ? 20 : 100))
    }
  }

  return {
    cluster: c,
    http: undefined as never,
    inject: (async (o: InjectOptions | string) => {
      await clockSync
      return send(c.gateway.url, o)
    }) as unknown as TestApp['inject'],
    clock: opts.clock ?? systemClock,
    database: testDb.database,
    settle,
    restart: async (p) => {
      const again = await c.restart(p)
      if (opts.clock) {
        const now = opts.clock.now().toISOString()
        clockSync = clockSync.then(() => control(again, 'clock', { now }))
        await clockSync
      }
      return again
    },
    metricsOf: async (context) => {
      const p = c.of(context)[0]
      if (!p) throw new Error(`No live process serves ${context}`)
      return (await fetch(`${p.url}/metrics`)).text()
    },
    issueToken: async (userId, role) => (await tokens.issue(userId, role)).token,
    runJob: async (name) => {
      await clockSync
      for (const p of live()) {
        const ran = await control(p, `jobs/${encodeURIComponent(name)}`)
        if (ran.status === 200) return
        if (ran.status !== 404) throw new Error(`Job ${name} failed in ${p.name}: ${ran.status} ${JSON.stringify(ran.json)}`)
      }
      throw new Error(`No process runs a job named ${name}`)
    },
    close: async () => {
      await c.stop()
      await testDb.drop()
      await nats.cleanup()
    },
  }
}
