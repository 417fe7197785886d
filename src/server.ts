/**
 * The composition root: opens the database, wires the contexts together through their ports,
 * connects their events and jobs, and serves them from one HTTP server. The only module that
 * knows every context.
 */
import type { FastifyPluginAsync } from 'fastify'
import type { Config } from './config.js'
import { loadSigningKeys } from './platform/auth/keys.js'
import { RevocationList } from './platform/auth/revocations.js'
import { AccessTokens } from './platform/auth/tokens.js'
import { type Clock, systemClock } from './platform/clock.js'
import { Database } from './platform/db/database.js'
import { migrateDatabase } from './platform/db/migrate.js'
import type { EventBus, Subscription } from './platform/events/bus.js'
import { InProcessBus } from './platform/events/in-process-bus.js'
import { NatsBus } from './platform/events/nats-bus.js'
import type { Outbox } from './platform/events/outbox.js'
import { OutboxRelay } from './platform/events/relay.js'
import { requireToken } from './platform/http/auth-guard.js'
import { createHttpServer, type HttpServer } from './platform/http/server.js'
import { type Job, Scheduler } from './platform/jobs/scheduler.js'
import type { Logger } from './platform/log.js'
import { avatarContext } from './contexts/avatar/index.js'
import { identityContext } from './contexts/identity/index.js'
import { trackingContext } from './contexts/tracking/index.js'

export const CONTEXTS = ['edge', 'avatar', 'tracking'] as const
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

export async function openDatabase(config: Config): Promise<Database> {
  return config.databaseUrl
    ? Database.postgres(config.databaseUrl, config.databasePoolSize)
    : Database.embedded({ dataDir: config.dataDir })
}

export interface Platform {
  http: HttpServer
  database: Database
  relay: OutboxRelay
  bus: EventBus
  scheduler: Scheduler
}

interface ServedContext {
  name: ContextName
  apiRoutes?: FastifyPluginAsync
  outbox: Outbox
  subscription?: Subscription
  jobs?: Job[]
}

function createBus(config: Config, logger: Logger | false): EventBus {
  const log = logger || undefined
  if (!config.natsUrl) return new InProcessBus()
  return new NatsBus({ url: config.natsUrl, stream: config.natsStream, prefix: config.natsSubjectPrefix }, log)
}

export async function buildPlatform(opts: PlatformOptions): Promise<Platform> {
  const { config } = opts
  const clock = opts.clock ?? systemClock
  const log = opts.logger || undefined
  const database = opts.database ?? (await openDatabase(config))
  const closers: (() => Promise<void>)[] = []
  const closeAll = async () => {
    for (const close of closers.reverse()) await close()
  }
  if (!opts.database) closers.push(() => database.close())
  try {
    if (!opts.database) await migrateDatabase(database, config.databaseUrl)

    const keys = await loadSigningKeys(config.jwtPrivateKey, opts.keysDir)
    const revocations = new RevocationList()
    const tokens = new AccessTokens(keys, { issuer: config.jwtIssuer, audience: config.jwtAudience, ttlSeconds: config.accessTokenTtlSeconds }, clock, revocations)

    const avatar = avatarContext({ database, clock, economyMode: config.economyMode })
    const tracking = trackingContext({ database, clock, avatars: avatar.client })
    const identity = identityContext({ database, clock, tokens, revocations, avatars: avatar.client, config })
    const all: ServedContext[] = [
      { name: 'edge', outbox: identity.outbox },
      { name: 'avatar', apiRoutes: avatar.routes, outbox: avatar.outbox, subscription: avatar.subscription },
      { name: 'tracking', apiRoutes: tracking.routes, outbox: tracking.outbox, subscription: tracking.subscription, jobs: tracking.jobs },
    ]
    const served = all.filter((c) => !opts.only || opts.only.includes(c.name))

    const bus = createBus(config, opts.logger)
    for (const c of served) if (c.subscription) bus.subscribe(c.subscription)
    await bus.start()
    closers.push(() => bus.close())
    const relay = new OutboxRelay(served.map((c) => c.outbox), bus, database, log)
    const scheduler = new Scheduler(served.flatMap((c) => c.jobs ?? []), log)

    const http = await createHttpServer({
      logger: opts.logger,
      title: 'Questline API',
      readiness: { database: () => database.ping(), events: () => bus.ping() },
      processMetrics: !!opts.logger,
    })
    if (served.some((c) => c.name === 'edge')) await http.register(identity.routes)
    await http.register(async (api) => {
      api.addHook('onRequest', requireToken(tokens))
      for (const c of served) if (c.apiRoutes) await api.register(c.apiRoutes)
    }, { prefix: '/api/v1' })

    if (served.some((c) => c.name === 'edge')) await identity.start()
    relay.start()
    closers.push(() => relay.close())
    if (config.jobsEnabled) scheduler.start()
    closers.push(() => scheduler.close())
    http.addHook('onClose', closeAll)
    return { http, database, relay, bus, scheduler }
  } catch (e) {
    await closeAll()
    throw e
  }
}
