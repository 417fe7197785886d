/**
 * The platform as separate processes (split services) behind its gateway, driven over HTTP with
 * the same TestApp surface as the in-process one: requests go to the gateway; the clock, event
 * delivery and jobs reach every process through its test controls (`serve --test-controls`).
 *
 * Two ways to get the processes: a cluster lent by the run's broker (split-clusters.ts), shared
 * with every test app asking for the same settings — the black-box suites; or a cluster of the
 * test's own (`ownCluster`), which it may kill and restart processes of — the fault tests.
 */
import { request as httpRequest } from 'node:http'
import { sql, type SQL } from 'drizzle-orm'
import { inject } from 'vitest'
import { withDocumentedProblems } from './documented-problems.js'
import { loadConfig } from '../../src/config.js'
import { KeyRing } from '../../src/platform/auth/key-ring.js'
import { AccessTokens } from '../../src/platform/auth/tokens.js'
import { systemClock, type ManualClock } from '../../src/platform/clock.js'
import { Database } from '../../src/platform/db/database.js'
import type { ConsumerBacklog } from '../../src/platform/events/bus.js'
import type { Cluster, ClusterProcess } from '../../src/split/cluster.js'
import type { TestApp } from './app.js'
import type { NatsSettings } from './nats.js'
import { OWN_SHAPE, startTestCluster, type ClusterLease, type ClusterShape } from './split-clusters.js'

declare module 'vitest' {
  export interface ProvidedContext {
    /** The split-cluster broker's URL (project api-split only). */
    splitBroker: string
  }
}

const SETTLE_TIMEOUT_MS = 30_000

interface ProcessRef {
  name: string
  context: string
  url: string
}

export interface SplitTestApp extends TestApp {
  cluster: { gateway: ProcessRef; of(context: string): ProcessRef[] }
  /**
   * As TestApp's, waiting up to `timeoutMs`: after a crash, events a dead process had leased
   * (outbox rows, deliveries not acknowledged) come free only when their lease runs out.
   */
  settle(timeoutMs?: number): Promise<void>
}

/** A split app on a cluster of its own: processes may be killed and restarted. */
export interface OwnSplitTestApp extends SplitTestApp {
  cluster: Cluster
  /** Starts a stopped process again (`changes` on top of its settings); a manual clock is set on it first. */
  restart(p: ClusterProcess, changes?: Record<string, string>): Promise<ClusterProcess>
}

interface SplitAppOptions {
  env?: Record<string, string>
  clock?: ManualClock
  /** A cluster of its own: which processes it runs (OWN_SHAPE unless given). */
  shape?: ClusterShape
}

type InjectOptions = { method?: string; url: string; headers?: Record<string, string>; payload?: unknown }

interface InjectResponse {
  statusCode: number
  headers: Record<string, string>
  body: string
  payload: string
  json(): any // eslint-disable-line @typescript-eslint/no-explicit-any -- as light-my-request's
}

/** One request to a process, answered as fastify's inject answers. */
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
  const method = opts.method ?? 'GET'
  // fetch refuses a GET body (the contract's avatar search sends one); node:http does not.
  const answer = body !== undefined && (method === 'GET' || method === 'HEAD')
    ? await rawRequest(base + opts.url, method, headers, body)
    : await fetch(base + opts.url, { method, headers, ...(body !== undefined ? { body } : {}), redirect: 'manual' })
      .then(async (res) => ({ status: res.status, headers: Object.fromEntries(res.headers.entries()), text: await res.text() }))
  return {
    statusCode: answer.status,
    headers: answer.headers,
    body: answer.text,
    payload: answer.text,
    json: () => JSON.parse(answer.text),
  }
}

function rawRequest(url: string, method: string, headers: Record<string, string>, body: string | Buffer) {
  return new Promise<{ status: number; headers: Record<string, string>; text: string }>((resolve, reject) => {
    const req = httpRequest(url, { method, headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) } }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () => resolve({
        status: res.statusCode ?? 0,
        headers: Object.fromEntries(Object.entries(res.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : v ?? ''])),
        text: Buffer.concat(chunks).toString(),
      }))
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end(body)
  })
}

async function control(p: ProcessRef, path: string, body: unknown = {}): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await fetch(`${p.url}/_test/${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
  return { status: res.status, json: (await res.json()) as Record<string, unknown> }
}

/**
 * The instant each cluster's clocks were last set to by this worker (null: the system clock).
 * Test apps sharing a cluster each want their own clock, so before every request an app sets
 * the cluster's clocks to its own time when they show something else.
 */
const clusterClocks = new Map<string, string | null>()
const clockSettings = new Map<string, Promise<void>>()

async function setClusterClock(gateway: string, processes: ProcessRef[], want: string | null): Promise<void> {
  while (clusterClocks.get(gateway) !== want) {
    const under = clockSettings.get(gateway)
    if (under) {
      await under
      continue
    }
    const setting = Promise.all(processes.map((p) => control(p, 'clock', { now: want })))
      .then(() => void clusterClocks.set(gateway, want))
      .finally(() => clockSettings.delete(gateway))
    clockSettings.set(gateway, setting)
    await setting
  }
}

/** Events committed but not yet on the bus, over every context's outbox. */
async function unpublishedEvents(database: Database): Promise<() => Promise<number>> {
  type Rows = { rows: { s?: string; n?: number }[] }
  const outboxes = (await database.db.execute(sql`select table_schema as s from information_schema.tables where table_name = 'outbox'`) as unknown as Rows).rows
  const count: SQL = sql.raw(outboxes.map((o) => `select count(*)::int as n from "${o.s}".outbox where published_at is null`).join(' union all '))
  return async () => (await database.db.execute(count) as unknown as Rows).rows.reduce((n, r) => n + (r.n ?? 0), 0)
}

/**
 * A process's settle answer's durables that are behind, in words: undelivered with no pull waiting
 * is a pull lost; unacknowledged and in hand for long, a handler.
 */
function behindOf(behind: unknown): string {
  const rows = Array.isArray(behind) ? behind as ConsumerBacklog[] : []
  return rows.flatMap((b) => (b.durables ?? []).map((d) => `${d.durable}: ${d.undelivered} undelivered, ${d.unacknowledged} unacknowledged, ` +
    `${d.inHand} in hand${d.inHand > 0 ? ` (for up to ${b.longestInHandSeconds} s in ${b.consumer})` : ''}, ${d.waitingPulls} pulls waiting`)).join('; ')
}

/** The TestApp surface over a set of processes, whichever way they were started. */
async function drive(opts: SplitAppOptions, target: {
  gateway: () => string
  processes: () => ProcessRef[]
  database: Database
  jwk: string
  close(): Promise<void>
}): Promise<SplitTestApp> {
  const config = loadConfig({ ...opts.env })
  const tokens = new AccessTokens(await KeyRing.configured(target.jwk),
    { issuer: config.jwtIssuer, audience: config.jwtAudience, ttlSeconds: config.accessTokenTtlSeconds }, opts.clock ?? systemClock, { isRevoked: () => false })
  const unpublished = await unpublishedEvents(target.database)
  const ofContext = (context: string) => target.processes().filter((p) => p.context === context)
  const syncClock = () => setClusterClock(target.gateway(), target.processes(), opts.clock ? opts.clock.now().toISOString() : null)

  const settle = async (timeoutMs = SETTLE_TIMEOUT_MS) => {
    await syncClock()
    const deadline = Date.now() + timeoutMs
    for (let quiet = 0; quiet < 2;) {
      const answers = await Promise.all(target.processes().map(async (p) => ({ p, a: await control(p, 'settle') })))
      // A process that cannot settle now (its bus is down) is not quiet.
      const failed = answers.filter(({ a }) => a.status !== 200)
      const delivering = answers.filter(({ a }) => Number(a.json.pending ?? 0) > 0)
      const outboxes = await unpublished()
      quiet = delivering.length === 0 && outboxes === 0 && failed.length === 0 ? quiet + 1 : 0
      // Past the deadline, a quiet look is still confirmed by a second one.
      if (quiet === 0 && Date.now() > deadline) {
        const why = [...delivering.map(({ p, a }) => `${p.name}: ${String(a.json.pending)} events waiting or unacknowledged (${behindOf(a.json.behind)})`),
          ...(outboxes ? [`${outboxes} outbox rows unpublished`] : []),
          ...failed.map(({ p, a }) => `${p.name}: ${a.status} ${JSON.stringify(a.json)}`)]
        throw new Error(`events still pending after ${timeoutMs / 1000} s: ${why.join('; ')}`)
      }
      if (quiet < 2) await new Promise((r) => setTimeout(r, quiet > 0 ? 20 : 100))
    }
  }

  return {
    cluster: { gateway: { name: 'gateway', context: 'edge', url: target.gateway() }, of: ofContext },
    http: undefined as never,
    inject: withDocumentedProblems(async (o: InjectOptions | string) => {
      await syncClock()
      return send(target.gateway(), o)
    }) as unknown as TestApp['inject'],
    injectAt: withDocumentedProblems(async (context: string, o: InjectOptions) => {
      await syncClock()
      const p = ofContext(context)[0]
      if (!p) throw new Error(`No process serves ${context}`)
      return send(p.url, o)
    }) as unknown as TestApp['injectAt'],
    clock: opts.clock ?? systemClock,
    database: target.database,
    settle,
    metricsOf: async (context, o) => {
      const p = ofContext(context)[0]
      if (!p) throw new Error(`No process serves ${context}`)
      if (o?.sampleFirst !== false) await control(p, 'metrics-sample')
      return (await fetch(`${p.url}/metrics`)).text()
    },
    issueToken: async (userId, role) => (await tokens.issue(userId, role)).token,
    baseUrl: async () => {
      await syncClock()
      return target.gateway()
    },
    runJob: async (name) => {
      await syncClock()
      for (const p of target.processes()) {
        const ran = await control(p, `jobs/${encodeURIComponent(name)}`)
        if (ran.status === 200) return
        if (ran.status !== 404) throw new Error(`Job ${name} failed in ${p.name}: ${ran.status} ${JSON.stringify(ran.json)}`)
      }
      throw new Error(`No process runs a job named ${name}`)
    },
    close: () => target.close(),
  }
}

/** A split app on a cluster lent by the run's broker, shared with apps asking for the same settings. */
export async function buildSplitApp(opts: SplitAppOptions): Promise<SplitTestApp> {
  const env = opts.env ?? {}
  const res = await fetch(`${inject('splitBroker')}/clusters`, { method: 'POST', body: JSON.stringify({ env }) })
  if (!res.ok) throw new Error(`No split cluster: ${await res.text()}`)
  const lease = (await res.json()) as ClusterLease & { key: string }
  const release = async () => {
    await fetch(`${inject('splitBroker')}/clusters/release`, { method: 'POST', body: JSON.stringify({ key: lease.key }) })
  }
  const database = await Database.postgres(lease.databaseUrl, 4).catch(async (e: unknown) => {
    await release()
    throw e
  })
  const close = async () => {
    await database.close()
    await release()
  }
  return drive(opts, { gateway: () => lease.gateway, processes: () => lease.processes, database, jwk: lease.jwk, close }).catch(async (e: unknown) => {
    await close()
    throw e
  })
}

/**
 * A split app on a cluster of its own, on a fresh database and the given NATS settings (a
 * stream of its own, or a private server), all removed by `close`.
 */
export async function buildOwnSplitApp(opts: SplitAppOptions, nats: NatsSettings): Promise<OwnSplitTestApp> {
  const output = process.env.QL_TEST_SPLIT_LOGS ? (line: string) => console.log(line) : undefined
  const own = await startTestCluster(inject('templates'), nats, opts.env ?? {}, opts.shape ?? OWN_SHAPE, 4, output)
  const c = own.cluster
  // A cluster whose app could not be made (its database refused a connection) is stopped here: nobody else would.
  const app = await drive(opts, {
    gateway: () => c.url,
    processes: () => c.live(),
    database: own.db.database,
    jwk: own.jwk,
    close: own.stop,
  }).catch(async (e: unknown) => {
    await own.stop()
    throw e
  })
  return {
    ...app,
    cluster: c,
    restart: async (p, changes) => {
      const again = await c.restart(p, changes)
      // The new process keeps the system clock until told: have the next request set them all.
      clusterClocks.delete(c.url)
      if (opts.clock) await setClusterClock(c.url, [again], opts.clock.now().toISOString())
      clusterClocks.delete(c.url)
      return again
    },
  }
}
