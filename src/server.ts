/**
 * The composition root: opens the database, wires the contexts together through their ports,
 * connects their events and jobs, and serves them from one HTTP server. The only module that
 * knows every context.
 */
import { getTableConfig } from 'drizzle-orm/pg-core'
import { ConfigError, type Config } from './config.js'
import { CONTEXT_NAMES, MODULES, type ContextDeps, type ContextName, type Ports } from './contexts/modules.js'
import { forwardApis } from './contexts/edge/gateway.js'
import { KeyRing } from './platform/auth/key-ring.js'
import { databaseKeyStore } from './platform/auth/key-store.js'
import { RevocationList } from './platform/auth/revocations.js'
import { serviceTokenSource } from './platform/auth/service-token.js'
import { AccessTokens } from './platform/auth/tokens.js'
import { type Clock, SettableClock, systemClock } from './platform/clock.js'
import { Database } from './platform/db/database.js'
import { migrateDatabase } from './platform/db/migrate.js'
import { platformSchema } from './platform/db/tables.js'
import { tableSizeMetrics } from './platform/db/table-sizes.js'
import type { EventBus } from './platform/events/bus.js'
import { subscriptionOf } from './platform/events/consumers.js'
import { DeadLetters } from './platform/events/dead-letters.js'
import { eventMetrics } from './platform/events/metrics.js'
import { InProcessBus } from './platform/events/in-process-bus.js'
import { OutboxRelay } from './platform/events/relay.js'
import { oldestUnpublished, outboxPruning } from './platform/events/retention.js'
import { RequestActivity } from './platform/http/activity.js'
import { requireToken, requireTrustedCaller } from './platform/http/auth-guard.js'
import { listenForMetrics } from './platform/http/metrics-listener.js'
import type { MetricsSource } from './platform/http/metrics.js'
import { MetricsSampler } from './platform/http/metrics-sampler.js'
import { mergeProblemCatalogs, PLATFORM_PROBLEMS } from './platform/http/problem-types.js'
import { createHttpServer, INTERNAL_PREFIX, type HttpServer } from './platform/http/server.js'
import { registerTestControls } from './platform/http/test-control.js'
import { UpstreamPool } from './platform/http/upstreams.js'
import { peerOwnership } from './platform/ownership/ownership.js'
import { JobSlots } from './platform/jobs/job-slots.js'
import { Retention } from './platform/jobs/retention.js'
import { Vacuum } from './platform/jobs/vacuum.js'
import { Scheduler } from './platform/jobs/scheduler.js'
import type { Logger } from './platform/log.js'
import { allSettledOrFirstFailure, phaseTimer } from './platform/start-steps.js'
import { servedElsewhere, type ContextModule, type ContextParts } from './platform/module.js'

export { CONTEXT_NAMES, type ContextName }

/** Every module, as the composition root handles them: alike, whatever each one's handlers and port. */
const modules: readonly ContextModule<ContextName, ContextDeps, unknown, unknown>[] = MODULES
type Built = ContextParts<unknown, unknown>

/** Every problem type the platform's refusals carry: each process documents and titles all of them (the gateway answers for every context). */
export const PROBLEM_TYPES = mergeProblemCatalogs([PLATFORM_PROBLEMS, ...MODULES.map((m) => m.problemTypes)])

interface PlatformOptions {
  config: Config
  logger: Logger | false
  /** An already-open database (tests); otherwise one is opened from the config and closed with the server. */
  database?: Database
  clock?: Clock
  /** A data directory whose key (from before keys lived in the database) is imported when the database has none. */
  keysDir?: string | undefined
  /** Serve only these contexts (a split-services process); all by default. */
  only?: ContextName[]
  /** The /_test routes (clock, settle, jobs) for black-box tests: `serve --test-controls` only. */
  testControls?: boolean
  /** Metrics of the process's own beyond the platform's (scheduled backups). */
  metrics?: MetricsSource[]
}

/** How long after the start the metrics sampler first reads (then every METRICS_SAMPLE_SECONDS). */
const FIRST_METRICS_SAMPLE_AFTER_MS = 2_000

/** Beyond the previous process's drain: closing its database and exiting. */
const PREVIOUS_PROCESS_EXIT_MARGIN_MS = 10_000

/**
 * The configured database. The embedded one is answered before it is ready (`waitReady: false`):
 * its data directory is locked, and PGlite starts while the caller goes on; `opened` settles then.
 * A previous process still stopping on the data directory is waited for: its drain
 * (DRAIN_TIMEOUT_MS) and a margin.
 */
export async function openDatabase(config: Config, opts: { waitReady?: boolean; log?: Logger | undefined } = {}): Promise<Database> {
  if (config.databaseUrl) return Database.postgres(config.databaseUrl, config.databasePoolSize)
  const waitForStoppingMs = config.drainTimeoutMs + PREVIOUS_PROCESS_EXIT_MARGIN_MS
  const onWaiting = (pid: number, waitMs: number) =>
    opts.log?.warn({ pid, waitMs }, `the data directory is held by the previous process (pid ${pid}), which is stopping: waiting for it to finish (at most ${Math.ceil(waitMs / 1000)} s)`)
  return Database.embedded({ dataDir: config.dataDir, waitReady: opts.waitReady ?? true, lock: { waitForStoppingMs, onWaiting } })
}

interface Platform {
  http: HttpServer
  database: Database
  relay: OutboxRelay
  bus: EventBus
  scheduler: Scheduler
  /** Signs access tokens with the current key (tests mint service tokens with it). */
  tokens: AccessTokens
  /** The signing keys; `rotate()` makes a new current key (`questline keys rotate`). */
  keys: KeyRing
  /** Refused access tokens (logout, a revoked admin), shared by every process on the database. */
  revocations: RevocationList
  clock: Clock
  /** Reads the values of /metrics that take a query, in the background (tests sample now). */
  sampler: MetricsSampler
}

/** A platform wired and its routes declared, not started yet (see `assemblePlatform`). */
interface AssembledPlatform extends Platform {
  /**
   * Opens up: waits for the database, applies missing migrations, then starts the token
   * revocation list, the bus, the relay and the jobs. Until then the server answers /healthz and
   * /readyz (503) and holds every other request. A failure closes the server's parts and rejects.
   */
  start(): Promise<void>
  /** Milliseconds each step of `start()` took, by name (the start-up log line, the bench). */
  readonly startPhases: Readonly<Record<string, number>>
}

async function createBus(config: Config, logger: Logger | false): Promise<EventBus> {
  const log = logger || undefined
  if (!config.natsUrl) return new InProcessBus()
  // Loaded only for this shape (the NATS client is large).
  const { NatsBus } = await import('./platform/events/nats-bus.js')
  return new NatsBus({ url: config.natsUrl, stream: config.natsStream, prefix: config.natsSubjectPrefix, ackWaitSeconds: config.natsAckWaitSeconds, maxAgeSeconds: config.retentionDays * 86_400 }, log)
}

/** The platform, started: what tests and tools use (`questline serve` listens before starting). */
export async function buildPlatform(opts: PlatformOptions): Promise<Platform> {
  const platform = await assemblePlatform(opts)
  await platform.start()
  return platform
}

/**
 * Wires the contexts and declares every route without waiting for the database: the embedded
 * one starts meanwhile. So a process can listen (and answer /healthz) first, then `start()`.
 */
export async function assemblePlatform(opts: PlatformOptions): Promise<AssembledPlatform> {
  const { config } = opts
  const isServed = (name: ContextName) => !opts.only || opts.only.includes(name)
  requireReachableContexts(config, isServed)
  const settable = opts.testControls && !opts.clock ? new SettableClock() : undefined
  const clock = opts.clock ?? settable ?? systemClock
  const log = opts.logger || undefined
  const database = opts.database ?? (await openDatabase(config, { waitReady: false, log }))
  const closers: (() => Promise<void>)[] = []
  let closed: Promise<void> | undefined
  const closeAll = () => {
    closed ??= (async () => {
      for (const close of closers.reverse()) await close()
    })()
    return closed
  }
  if (!opts.database) closers.push(() => database.close())
  try {
    const revocations = new RevocationList(database, clock, log)
    closers.push(() => revocations.close())

    // A context served elsewhere (UPSTREAM_<CONTEXT>) is reached over HTTP: its API is forwarded
    // there (gateway), and the other contexts' calls go through its port's HTTP adapter.
    const pools = new Map<ContextName, UpstreamPool>()
    for (const m of modules) {
      const urls = isServed(m.name) ? undefined : config.upstreams[m.name]
      if (urls) pools.set(m.name, new UpstreamPool(m.name, urls, log))
    }
    for (const pool of pools.values()) closers.push(async () => pool.stop())
    // Only a process that issues tokens holds a private key: the edge (players' tokens), or one
    // whose contexts call a context served elsewhere (service tokens: an upstream, or the
    // marketplace's AVATAR_URL).
    const callsOut = modules.some((m) => isServed(m.name) && m.calls.some((c) => !isServed(c as ContextName)))
    const ringOptions = { canSign: isServed('edge') || callsOut || config.avatarUrl !== undefined, log }
    const keys = config.jwtPrivateKey
      ? await KeyRing.configured(config.jwtPrivateKey, config.jwtPreviousPublicKeys, ringOptions)
      : KeyRing.stored(databaseKeyStore(database, opts.keysDir), ringOptions)
    closers.push(() => keys.close())
    const tokens = new AccessTokens(keys, {
      issuer: config.jwtIssuer, audience: config.jwtAudience, ttlSeconds: config.accessTokenTtlSeconds, jwksUrl: config.jwksUrl,
    }, clock, revocations)
    const serviceTokens = serviceTokenSource(tokens, clock)
    const serviceCalls = { timeoutMs: config.serviceCallTimeoutMs, retries: config.serviceCallRetries }

    const built = new Map<ContextName, Built>()
    const ports = portsOf(built, pools, (m, pool) => m.remotePort?.((owner?: string, failed?: string) => (failed ? pool.another(failed, owner) : pool.pick(owner)), serviceTokens, serviceCalls))
    const bus = await createBus(config, opts.logger)
    closers.push(() => bus.close())
    const deps: ContextDeps = { database, clock, config, tokens, revocations, serviceTokens, serviceCalls, ports, broadcast: bus.broadcast }
    // Only the contexts served here are built: one served elsewhere is reached through its upstream.
    for (const m of modules) if (isServed(m.name)) built.set(m.name, m.build(deps))
    const served = modules.filter((m) => isServed(m.name)).map((m) => {
      const parts = built.get(m.name)!
      return { name: m.name, ...parts, ...m.routes(parts.handlers) }
    })
    const edge = served.find((c) => c.name === 'edge')

    const deadLetters = new DeadLetters(database, clock, log)
    const peers = peerOwnership(config.advertiseUrl, config.upstreams, served.map((c) => c.name), log)
    for (const pool of peers.pools) closers.push(async () => pool.stop())
    for (const c of served) if (c.consumers) bus.subscribe({ ...subscriptionOf(c.name, c.consumers, deadLetters), ownership: peers.ownership(c.name) })
    const relay = new OutboxRelay(served.map((c) => c.outbox), bus, database, log, { leaseSeconds: config.outboxLeaseSeconds })
    const slots = new JobSlots(database)
    // Rows past their use: each context says which of its own; published events of its outbox.
    const outboxes = served.map((c) => c.outbox)
    // The platform's jobs work on the tables of the contexts served here: replicas serving the same share them.
    const scope = served.map((c) => c.name).sort().join(',')
    const schemas = [platformSchema.schemaName, ...outboxes.map((o) => getTableConfig(o.table).schema!)]
    const retention = new Retention({
      clock, retentionDays: config.retentionDays, scope,
      oldestUnpublished: () => oldestUnpublished(database, outboxes),
      rules: [...outboxes.map((o) => outboxPruning(database, o)), ...served.flatMap((c) => c.prune ?? [])],
    })
    const sampler = new MetricsSampler(config.metricsSampleSeconds * 1000, log)
    closers.push(async () => sampler.stop())
    const activity = new RequestActivity()
    const vacuum = new Vacuum(database, schemas, scope, () => activity.quietMs())
    const scheduler = new Scheduler([...served.flatMap((c) => c.jobs ?? []), retention.job, vacuum.job], log, (job) => slots.claim(job))

    let markStarted!: () => void
    let markFailed!: (e: unknown) => void
    const startup = new Promise<void>((resolve, reject) => {
      markStarted = resolve
      markFailed = reject
    })
    const http = await createHttpServer({
      logger: opts.logger,
      startup,
      title: 'Questline API',
      readiness: { database: () => database.ping(), events: () => bus.ping() },
      processMetrics: !!opts.logger,
      reads: sampler,
      metricsApart: config.metricsPort === undefined ? undefined : { port: config.metricsPort, host: config.metricsHost },
      trustProxy: config.trustProxy,
      metrics: [sampler.metrics, eventMetrics(served.map((c) => c.outbox), bus, database), deadLetters.metrics, retention.metrics, vacuum.metrics, tableSizeMetrics(database, schemas),
        ...served.flatMap((c) => (c.metrics ? [c.metrics] : [])), ...opts.metrics ?? []],
      webDir: edge ? config.webDir : undefined,
      problemTypes: PROBLEM_TYPES,
    })
    activity.track(http)
    for (const c of served) if (c.preClose) http.addHook('preClose', c.preClose)
    // The routes of contexts served elsewhere, declared around stand-ins (their requests are forwarded).
    const forwarded = modules.flatMap((m) => {
      const pool = pools.get(m.name)
      return pool ? [{ pool, ...m.routes(servedElsewhere(m.name)) }] : []
    })
    const forwardedOf = (kind: 'apiRoutes' | 'rootRoutes') => forwarded.flatMap((f) => (f[kind] ? [{ routes: f[kind], pool: f.pool }] : []))
    for (const c of served) if (c.rootRoutes) await http.register(c.rootRoutes)
    // Routes outside /api/v1 of contexts served elsewhere (tracking's calendar feed) are forwarded there too.
    await forwardApis(http, http, forwardedOf('rootRoutes'))
    await http.register(async (api) => {
      api.addHook('onRequest', requireToken(tokens))
      for (const c of served) if (c.apiRoutes) await api.register(c.apiRoutes)
      await forwardApis(http, api, forwardedOf('apiRoutes'))
    }, { prefix: '/api/v1' })
    // Routes only services call: this process's own, never forwarded (the gateway answers 404 for
    // another's). The caller's role is checked before the request is read.
    await http.register(async (internal) => {
      internal.addHook('onRequest', requireToken(tokens))
      internal.addHook('onRequest', requireTrustedCaller)
      for (const c of served) if (c.internalRoutes) await internal.register(c.internalRoutes)
    }, { prefix: INTERNAL_PREFIX })
    if (settable) registerTestControls(http, { clock: settable, relay, bus, scheduler, sampler, log })
    closers.push(() => relay.close())
    closers.push(() => scheduler.close())
    http.addHook('onClose', closeAll)

    const startPhases: Record<string, number> = {}
    const start = async () => {
      const timed = phaseTimer(startPhases)
      try {
        await timed('database', () => database.opened)
        if (!opts.database) await timed('migrations', () => migrateDatabase(database, config.databaseUrl))
        // Independent of one another once the schema is there: side by side (a pool overlaps
        // their queries; the embedded engine at least their waits).
        await allSettledOrFirstFailure([
          timed('keys', () => keys.start()),
          timed('revocations', () => revocations.start()),
          // The relay hands events to the bus: the bus first.
          timed('bus', () => bus.start()).then(() => timed('relay', () => relay.start())),
        ])
        // Peers are watched at once (what this replica owns follows their health); the contexts it
        // calls or forwards to, from the first request that needs them.
        for (const pool of peers.pools) pool.startHealthChecks()
        for (const pool of pools.values()) pool.checkHealthOnceUsed()
        if (config.jobsEnabled) scheduler.start()
        // Its first reading (table sizes, backlogs: a dozen queries) waits a moment, so that it does
        // not queue ahead of the first requests on the embedded engine's one connection.
        sampler.start(Math.min(config.metricsSampleSeconds * 1000, FIRST_METRICS_SAMPLE_AFTER_MS))
        await listenForMetrics(http)
        markStarted()
      } catch (e) {
        markFailed(e)
        await http.close()
        throw e
      }
    }
    return { http, database, relay, bus, scheduler, tokens, keys, revocations, clock, sampler, start, startPhases }
  } catch (e) {
    await closeAll()
    throw e
  }
}

/**
 * The ports object every context is built with: reading `ports.avatar` answers the avatar's HTTP
 * adapter when it is served elsewhere, else its in-process port (built before: MODULES' order).
 */
function portsOf(
  built: Map<ContextName, Built>,
  pools: Map<ContextName, UpstreamPool>,
  remote: (m: (typeof modules)[number], pool: UpstreamPool) => unknown,
): Ports {
  const made = new Map<ContextName, unknown>()
  // Filled by name below; each property is typed by its module through `Ports`.
  const ports = {} as Ports
  for (const m of modules) {
    Object.defineProperty(ports, m.name, {
      enumerable: true,
      get: () => {
        if (made.has(m.name)) return made.get(m.name)
        const pool = pools.get(m.name)
        const parts = built.get(m.name)
        if (!pool && !parts) throw new Error(`Context '${m.name}' is asked for its port but is not built (yet): list it earlier in MODULES, and in the caller's \`calls\`.`)
        const port = pool ? remote(m, pool) : parts!.port
        made.set(m.name, port)
        return port
      },
    })
  }
  return ports
}

/**
 * Refuses settings that leave a served context without a context it calls: each one it calls is
 * served here too or has an upstream. And an upstream names a context.
 */
function requireReachableContexts(config: Config, isServed: (name: ContextName) => boolean): void {
  const unknownUpstreams = Object.keys(config.upstreams).filter((name) => !(CONTEXT_NAMES as readonly string[]).includes(name))
  if (unknownUpstreams.length > 0) {
    throw new ConfigError(`UPSTREAM_${unknownUpstreams[0]!.toUpperCase()} names no context; contexts: ${CONTEXT_NAMES.join(', ')}.`)
  }
  for (const m of modules.filter((m) => isServed(m.name))) {
    const unreached = m.calls.filter((c) => !isServed(c as ContextName) && !config.upstreams[c])
    if (unreached.length === 0) continue
    const settings = unreached.map((c) => `UPSTREAM_${c.toUpperCase()}`).join(', ')
    throw new ConfigError(`The ${m.name} context calls ${unreached.join(', ')}, which this process neither serves nor reaches: ` +
      `set ${settings} to where ${unreached.length > 1 ? 'they run' : 'it runs'}, or serve ${unreached.length > 1 ? 'them' : 'it'} here too (--only ${[m.name, ...unreached].join(',')}).`)
  }
}
