/**
 * The platform as separate processes (split services) behind its gateway, driven over HTTP with
 * the same TestApp surface as the in-process one. The cluster is lent by the run's broker
 * (split-clusters.ts) and shared with every test app asking for the same settings; requests go
 * to the gateway; the clock, event delivery and jobs reach every process through its test
 * controls (TEST_CONTROL=true).
 */
import { request as httpRequest } from 'node:http'
import { inject } from 'vitest'
import { loadConfig } from '../../src/config.js'
import { loadSigningKeys } from '../../src/platform/auth/keys.js'
import { RevocationList } from '../../src/platform/auth/revocations.js'
import { AccessTokens } from '../../src/platform/auth/tokens.js'
import { systemClock, type ManualClock } from '../../src/platform/clock.js'
import { Database } from '../../src/platform/db/database.js'
import type { TestApp } from './app.js'
import type { ClusterLease } from './split-clusters.js'

declare module 'vitest' {
  export interface ProvidedContext {
    /** The split-cluster broker's URL (project api-split only). */
    splitBroker: string
  }
}

type LeasedProcess = ClusterLease['processes'][number]

export interface SplitTestApp extends TestApp {
  cluster: { gateway: LeasedProcess; of(context: string): LeasedProcess[] }
}

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

async function control(p: LeasedProcess, path: string, body: unknown = {}): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await fetch(`${p.url}/_test/${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
  return { status: res.status, json: (await res.json()) as Record<string, unknown> }
}

/**
 * The instant each lent cluster's clocks were last set to by this worker (null: the system
 * clock). Test apps sharing a cluster each want their own clock, so before every request an
 * app sets the cluster's clocks to its own time when they show something else.
 */
const clusterClocks = new Map<string, string | null>()
const clockSettings = new Map<string, Promise<void>>()

async function setClusterClock(lease: ClusterLease, want: string | null): Promise<void> {
  while (clusterClocks.get(lease.gateway) !== want) {
    const under = clockSettings.get(lease.gateway)
    if (under) {
      await under
      continue
    }
    const setting = Promise.all(lease.processes.map((p) => control(p, 'clock', { now: want })))
      .then(() => void clusterClocks.set(lease.gateway, want))
      .finally(() => clockSettings.delete(lease.gateway))
    clockSettings.set(lease.gateway, setting)
    await setting
  }
}

async function borrowCluster(env: Record<string, string>): Promise<ClusterLease> {
  const res = await fetch(`${inject('splitBroker')}/clusters`, { method: 'POST', body: JSON.stringify({ env }) })
  if (!res.ok) throw new Error(`No split cluster: ${await res.text()}`)
  return (await res.json()) as ClusterLease
}

export async function buildSplitApp(opts: { env?: Record<string, string>; clock?: ManualClock }): Promise<SplitTestApp> {
  const lease = await borrowCluster(opts.env ?? {})
  const config = loadConfig({ ...opts.env })
  const tokens = new AccessTokens(await loadSigningKeys(lease.jwk, undefined),
    { issuer: config.jwtIssuer, audience: config.jwtAudience, ttlSeconds: config.accessTokenTtlSeconds }, opts.clock ?? systemClock, new RevocationList())
  const database = Database.postgres(lease.databaseUrl, 4)
  const processes = lease.processes
  const ofContext = (context: string) => processes.filter((p) => p.context === context)
  const syncClock = () => setClusterClock(lease, opts.clock ? opts.clock.now().toISOString() : null)

  const settle = async () => {
    await syncClock()
    const deadline = Date.now() + 30_000
    for (let quiet = 0; quiet < 2;) {
      const answers = await Promise.all(processes.map((p) => control(p, 'settle')))
      const pending = answers.reduce((n, a) => n + Number(a.json.pending ?? 0), 0)
      quiet = pending === 0 ? quiet + 1 : 0
      if (Date.now() > deadline) throw new Error(`events still pending after 30 s: ${pending}`)
      if (quiet < 2) await new Promise((r) => setTimeout(r, pending === 0 ? 20 : 50))
    }
  }

  return {
    cluster: { gateway: { name: 'gateway', context: 'edge', url: lease.gateway }, of: ofContext },
    http: undefined as never,
    inject: (async (o: InjectOptions | string) => {
      await syncClock()
      return send(lease.gateway, o)
    }) as unknown as TestApp['inject'],
    clock: opts.clock ?? systemClock,
    database,
    settle,
    metricsOf: async (context) => {
      const p = ofContext(context)[0]
      if (!p) throw new Error(`No process serves ${context}`)
      return (await fetch(`${p.url}/metrics`)).text()
    },
    issueToken: async (userId, role) => (await tokens.issue(userId, role)).token,
    runJob: async (name) => {
      await syncClock()
      for (const p of processes) {
        if ((await control(p, `jobs/${encodeURIComponent(name)}`)).status === 200) return
      }
      throw new Error(`No process runs a job named ${name}`)
    },
    close: () => database.close(),
  }
}
