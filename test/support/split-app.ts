/**
 * The platform as separate processes (split services) behind its gateway, driven over HTTP with
 * the same TestApp surface as the in-process one: requests go to the gateway; the clock, event
 * delivery and jobs reach every process through its test controls (TEST_CONTROL=true).
 */
import { inject } from 'vitest'
import { loadConfig } from '../../src/config.js'
import { generateSigningJwk, loadSigningKeys } from '../../src/platform/auth/keys.js'
import { AccessTokens } from '../../src/platform/auth/tokens.js'
import type { ManualClock } from '../../src/platform/clock.js'
import { systemClock } from '../../src/platform/clock.js'
import { Cluster, type ClusterProcess } from '../../src/split/cluster.js'
import type { TestApp } from './app.js'
import { openTestDatabase } from './backends.js'

export interface SplitTestApp extends TestApp {
  cluster: Cluster
}

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

export async function send(base: string, o: InjectOptions | string): Promise<InjectResponse> {
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
  // Every process and this harness's own token minting share one key (a test may choose it).
  const jwk = opts.env?.JWT_PRIVATE_KEY ?? JSON.stringify(await generateSigningJwk())
  const config = loadConfig({ ...opts.env })
  const tokens = new AccessTokens(await loadSigningKeys(jwk, undefined),
    { issuer: config.jwtIssuer, audience: config.jwtAudience, ttlSeconds: config.accessTokenTtlSeconds }, opts.clock ?? systemClock, { isRevoked: () => false })
  const testDb = await openTestDatabase(templates)
  let cluster: Cluster | undefined
  try {
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

  const settle = async () => {
    await clockSync
    const deadline = Date.now() + 30_000
    for (let quiet = 0; quiet < 2;) {
      const answers = await Promise.all(live().map((p) => control(p, 'settle')))
      const pending = answers.reduce((n, a) => n + Number(a.json.pending ?? 0), 0)
      quiet = pending === 0 ? quiet + 1 : 0
      if (Date.now() > deadline) throw new Error(`events still pending after 30 s: ${pending}`)
      if (quiet < 2) await new Promise((r) => setTimeout(r, pending === 0 ? 20 : 50))
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
    metricsOf: async (context) => {
      const p = c.of(context)[0]
      if (!p) throw new Error(`No live process serves ${context}`)
      return (await fetch(`${p.url}/metrics`)).text()
    },
    issueToken: async (userId, role) => (await tokens.issue(userId, role)).token,
    runJob: async (name) => {
      await clockSync
      for (const p of live()) {
        if ((await control(p, `jobs/${encodeURIComponent(name)}`)).status === 200) return
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
