/**
 * The composition root: opens the database, wires the contexts together through their ports
 * and serves them from one HTTP server. The only module that knows every context.
 */
import type { FastifyPluginAsync } from 'fastify'
import type { Config } from './config.js'
import { loadSigningKeys } from './platform/auth/keys.js'
import { RevocationList } from './platform/auth/revocations.js'
import { AccessTokens } from './platform/auth/tokens.js'
import { type Clock, systemClock } from './platform/clock.js'
import { Database } from './platform/db/database.js'
import { migrateDatabase } from './platform/db/migrate.js'
import { requireToken } from './platform/http/auth-guard.js'
import { createHttpServer, type HttpServer } from './platform/http/server.js'
import type { Logger } from './platform/log.js'
import { avatarContext } from './contexts/avatar/index.js'
import { identityContext } from './contexts/identity/index.js'

export const CONTEXTS = ['edge', 'avatar'] as const
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
}

export async function buildPlatform(opts: PlatformOptions): Promise<Platform> {
  const { config } = opts
  const clock = opts.clock ?? systemClock
  const database = opts.database ?? (await openDatabase(config))
  try {
    if (!opts.database) await migrateDatabase(database, config.databaseUrl)

    const keys = await loadSigningKeys(config.jwtPrivateKey, opts.keysDir)
    const revocations = new RevocationList()
    const tokens = new AccessTokens(keys, { issuer: config.jwtIssuer, audience: config.jwtAudience, ttlSeconds: config.accessTokenTtlSeconds }, clock, revocations)

    const avatar = avatarContext({ database, clock, economyMode: config.economyMode })
    const identity = identityContext({ database, clock, tokens, revocations, avatars: avatar.client, config })

    const serves = (name: ContextName) => !opts.only || opts.only.includes(name)
    const apiRoutes: FastifyPluginAsync[] = []
    if (serves('avatar')) apiRoutes.push(avatar.routes)

    const http = await createHttpServer({
      logger: opts.logger,
      title: 'Questline API',
      readiness: { database: () => database.ping() },
      processMetrics: !!opts.logger,
    })
    if (serves('edge')) await http.register(identity.routes)
    await http.register(async (api) => {
      api.addHook('onRequest', requireToken(tokens))
      for (const routes of apiRoutes) await api.register(routes)
    }, { prefix: '/api/v1' })

    if (serves('edge')) await identity.start()
    if (!opts.database) http.addHook('onClose', async () => database.close())
    return { http, database }
  } catch (e) {
    if (!opts.database) await database.close()
    throw e
  }
}
