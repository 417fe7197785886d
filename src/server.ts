/**
 * The composition root: opens the database, wires the contexts together through their ports,
 * connects their events and jobs, and serves them from one HTTP server. The only module that
 * knows every context.
 */
import type { FastifyPluginAsync } from 'fastify'
import type { Config } from './config.js'
import { loadSigningKeys } from './platform/auth/keys.js'
import { RevocationList } from './platform/auth/revocations.js'
import { serviceTokenSource } from './platform/auth/service-token.js'
import { AccessTokens } from './platform/auth/tokens.js'
import { type Clock, SettableClock, systemClock } from './platform/clock.js'
import { Database } from './platform/db/database.js'
import { migrateDatabase } from './platform/db/migrate.js'
import type { EventBus, Subscription } from './platform/events/bus.js'
import { eventMetrics } from './platform/events/metrics.js'
import { InProcessBus } from './platform/events/in-process-bus.js'
import type { Outbox } from './platform/events/outbox.js'
import { OutboxRelay } from './platform/events/relay.js'
import { requireToken } from './platform/http/auth-guard.js'
import type { MetricsSource } from './platform/http/metrics.js'
import { createHttpServer, type HttpServer } from './platform/http/server.js'
import { registerTestControls } from './platform/http/test-control.js'
import { enableForwarding, forwardTo, UpstreamPool } from './platform/http/upstreams.js'
import { JobSlots } from './platform/jobs/job-slots.js'
import { type Job, Scheduler } from './platform/jobs/scheduler.js'
import type { Logger } from './platform/log.js'
import { httpAvatarClient } from './contexts/avatar/client.js'
import { avatarContext } from './contexts/avatar/index.js'
import { identityContext } from './contexts/identity/index.js'
import { httpGuildClient } from './contexts/guild/client.js'
import { guildContext } from './contexts/guild/index.js'
import { marketplaceContext } from './contexts/marketplace/index.js'
import { questContext } from './contexts/quest/index.js'
import { httpTrackingClient } from './contexts/tracking/client.js'
import { trackingContext } from './contexts/tracking/index.js'

export const CONTEXTS = ['edge', 'avatar', 'tracking', 'guild', 'quest', 'marketplace'] as const
export type ContextName = (typeof CONTEXTS)[number]

export interface PlatformOptions {
  config: Config
  logger: Logger | false
  /** An already-open database (tests); otherwise one is opened from the config and closed with the server. */
  database?: Database
  clock?: Clock
  /** Where the signing key lives; undefined keeps a fresh key in memory (tests). */
  keysDir?: string | undefined
  /** Serve only these contexts (a split-services process); all by default. */
  only?: ContextName[]
}

/**
 * The configured database. The embedded one is answered before it is ready (`waitReady: false`):
 * its data directory is locked, and PGlite starts while the caller goes on; `opened` settles then.
 */
export async function openDatabase(config: Config, opts: { waitReady?: boolean } = {}): Promise<Database> {
  return config.databaseUrl
    ? Database.postgres(config.databaseUrl, config.databasePoolSize)
    : Database.embedded({ dataDir: config.dataDir, waitReady: opts.waitReady ?? true })
}

export interface Platform {
  http: HttpServer
  database: Database
  relay: OutboxRelay
  bus: EventBus
  scheduler: Scheduler
  /** Signs access tokens with the process's key (tests mint service tokens with it). */
  tokens: AccessTokens
}

/** A platform wired and its routes declared, not started yet (see `assemblePlatform`). */
export interface AssembledPlatform extends Platform {
  /**
   * Opens up: waits for the database, applies missing migrations, then starts the token
   * revocation list, the bus, the relay and the jobs. Until then the server answers /healthz and
   * /readyz (503) and holds every other request. A failure closes the server's parts and rejects.
   */
  start(): Promise<void>
}

interface ServedContext {
  name: ContextName
  apiRoutes?: FastifyPluginAsync
  outbox: Outbox
  subscription?: Subscription
  jobs?: Job[]
  metrics?: MetricsSource
}

async function createBus(config: Config, logger: Logger | false): Promise<EventBus> {
  const log = logger || undefined
  if (!config.natsUrl) return new InProcessBus()
  // Loaded only for this shape (the NATS client is large).
  const { NatsBus } = await import('./platform/events/nats-bus.js')
  return new NatsBus({ url: config.natsUrl, stream: config.natsStream, prefix: config.natsSubjectPrefix, ackWaitSeconds: config.natsAckWaitSeconds }, log)
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
  const settable = config.testControl && !opts.clock ? new SettableClock() : undefined
  const clock = opts.clock ?? settable ?? systemClock
  const log = opts.logger || undefined
  const database = opts.database ?? (await openDatabase(config, { waitReady: false }))
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
    const keys = await loadSigningKeys(config.jwtPrivateKey, opts.keysDir)
    const revocations = new RevocationList(database, clock, log)
    closers.push(() => revocations.close())
    const tokens = new AccessTokens(keys, {
      issuer: config.jwtIssuer, audience: config.jwtAudience, ttlSeconds: config.accessTokenTtlSeconds, jwksUrl: config.jwksUrl,
    }, clock, revocations)

    // A context served elsewhere (UPSTREAM_<CONTEXT>) is reached over HTTP: its routes are
    // forwarded there, and the other contexts' calls go through its port's HTTP adapter.
    const isServed = (name: ContextName) => !opts.only || opts.only.includes(name)
    const pools = new Map<ContextName, UpstreamPool>()
    for (const name of CONTEXTS) {
      const urls = name === 'edge' || isServed(name) ? undefined : config.upstreams[name]
      if (urls) pools.set(name, new UpstreamPool(name, urls, log))
    }
    const serviceTokens = serviceTokenSource(tokens, clock)
    const callOptions = { timeoutMs: config.avatarTimeoutMs, retries: config.avatarRetries }
    const remote = (name: ContextName) => {
      const pool = pools.get(name)
      return pool && (() => pool.pick())
    }

    const avatar = avatarContext({ database, clock, economyMode: config.economyMode })
    const avatarBase = remote('avatar')
    const avatars = avatarBase ? httpAvatarClient(avatarBase, serviceTokens, callOptions) : avatar.client
    const tracking = trackingContext({ database, clock, avatars })
    const trackingBase = remote('tracking')
    const guild = guildContext({ database, clock, avatars })
    const guildBase = remote('guild')
    const quest = questContext({
      database, clock, avatars,
      guilds: guildBase ? httpGuildClient(guildBase, serviceTokens, callOptions) : guild.client,
      tracking: trackingBase ? httpTrackingClient(trackingBase, serviceTokens, callOptions) : tracking.client,
    })
    const identity = identityContext({ database, clock, tokens, revocations, avatars, config })
    // AVATAR_URL sends only the marketplace's saga calls over HTTP (fault tests point it at a stand-in).
    const marketplaceAvatars = config.avatarUrl ? httpAvatarClient(config.avatarUrl, serviceTokens, callOptions) : avatars
    const marketplace = marketplaceContext({ database, clock, avatars: marketplaceAvatars })
    const all: ServedContext[] = [
      { name: 'edge', outbox: identity.outbox, jobs: identity.jobs },
      { name: 'avatar', apiRoutes: avatar.routes, outbox: avatar.outbox, subscription: avatar.subscription, metrics: avatar.metrics },
      { name: 'tracking', apiRoutes: tracking.routes, outbox: tracking.outbox, subscription: tracking.subscription, jobs: tracking.jobs },
      { name: 'guild', apiRoutes: guild.routes, outbox: guild.outbox, subscription: guild.subscription, jobs: guild.jobs },
      { name: 'quest', apiRoutes: quest.routes, outbox: quest.outbox, subscription: quest.subscription, jobs: quest.jobs },
      {
        name: 'marketplace', apiRoutes: marketplace.routes, outbox: marketplace.outbox, subscription: marketplace.subscription,
        jobs: marketplace.jobs, metrics: marketplace.metrics,
      },
    ]
    const served = all.filter((c) => !opts.only || opts.only.includes(c.name))

    const bus = await createBus(config, opts.logger)
    for (const c of served) if (c.subscription) bus.subscribe(c.subscription)
    closers.push(() => bus.close())
    const relay = new OutboxRelay(served.map((c) => c.outbox), bus, database, log, { leaseSeconds: config.outboxLeaseSeconds })
    const slots = new JobSlots(database)
    const scheduler = new Scheduler(served.flatMap((c) => c.jobs ?? []), log, (job) => slots.claim(job))

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
      metrics: [eventMetrics(served.map((c) => c.outbox), bus, database), ...served.flatMap((c) => (c.metrics ? [c.metrics] : []))],
      webDir: served.some((c) => c.name === 'edge') ? config.webDir : undefined,
    })
    if (served.some((c) => c.name === 'edge')) await http.register(identity.routes)
    // Contexts served elsewhere (split services): their routes are declared here too, so this
    // process documents them and answers unknown paths itself; once the token is checked, a hook
    // forwards each request before it is parsed (the owning process validates it).
    const forwarded = all.flatMap((c) => {
      const pool = pools.get(c.name)
      return pool && c.apiRoutes ? [{ routes: c.apiRoutes, pool }] : []
    })
    if (forwarded.length > 0) await enableForwarding(http)
    await http.register(async (api) => {
      api.addHook('onRequest', requireToken(tokens))
      for (const c of served) if (c.apiRoutes) await api.register(c.apiRoutes)
      for (const f of forwarded) {
        await api.register(async (scope) => {
          scope.addHook('onRequest', forwardTo(f.pool))
          await scope.register(f.routes)
        })
      }
    }, { prefix: '/api/v1' })
    for (const pool of pools.values()) closers.push(async () => pool.stop())
    if (settable) registerTestControls(http, { clock: settable, relay, bus, scheduler })
    closers.push(() => relay.close())
    closers.push(() => scheduler.close())
    http.addHook('onClose', closeAll)

    const start = async () => {
      try {
        if (!opts.database) await migrateDatabase(database, config.databaseUrl)
        await revocations.start()
        await bus.start()
        for (const pool of pools.values()) pool.startHealthChecks()
        relay.start()
        if (config.jobsEnabled) scheduler.start()
        markStarted()
      } catch (e) {
        markFailed(e)
        await http.close()
        throw e
      }
    }
    return { http, database, relay, bus, scheduler, tokens, start }
  } catch (e) {
    await closeAll()
    throw e
  }
}
