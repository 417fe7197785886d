import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import { createRequire } from 'node:module'
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify'
import { newId } from '../ids.js'
import type { Logger } from '../log.js'
import { BODY_LIMIT } from './get-body.js'
import { isDraining } from './drain.js'
import { compileOnFirstUse, LazyCompiles } from './lazy-compile.js'
import { Metrics, type MetricsSource } from './metrics.js'
import { documentProblemTypes, serveProblemTypes } from './problem-docs.js'
import type { ProblemCatalog } from './problem-types.js'
import { clientErrorHandler, frameworkErrorHandler, registerProblemHandlers, sendProblem } from './problems.js'
import { RouteTable } from './route-table.js'
import { ProblemSchema } from './schemas.js'
import { defaultsOptional, rejectMalformedQuery, rejectUnstorableText, validatorCompiler } from './validation.js'
import { serveWebApp } from './web-app.js'

export type HttpServer = FastifyInstance

interface HttpServerOptions {
  logger: Logger | false
  title: string
  /**
   * Settles when the platform has started (database ready and migrated, bus connected). Until
   * then /healthz answers (the process is up), /readyz answers 503, and every other request waits.
   */
  startup?: Promise<void>
  /** Named readiness checks (database, bus); /readyz answers 503 while one fails. */
  readiness: Record<string, () => Promise<void>>
  processMetrics: boolean
  /** Metrics the served contexts add to /metrics. */
  metrics?: MetricsSource[]
  /** The built web app to serve at `/` (the edge does); nothing is served when it is not built. */
  webDir?: string | undefined
  /** Every problem type refusals carry (the platform's and every context's): titles, the document, /problems. */
  problemTypes: ProblemCatalog
}

const REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/

/**
 * The document's tags: one per context (the /me routes of several contexts under `account`, the
 * routes only services call under `service`). Every operation carries exactly one of them.
 */
const API_TAGS = [
  { name: 'auth', description: 'Registering, logging in and out, and the tokens that prove a session' },
  { name: 'account', description: "The caller's account: its export, deletion, calendar feed and webhooks" },
  { name: 'avatars', description: 'RPG avatars: wallet, experience and levels, health, mana and stats' },
  { name: 'items', description: "An avatar's inventory and equipment" },
  { name: 'habits', description: "Habits, their windows, history and stats, an avatar's day settings and reports, and imports" },
  { name: 'quests', description: 'Quests: sets of habits to complete together for a reward' },
  { name: 'guilds', description: 'Guilds: members, roles, invites, points and ranks' },
  { name: 'battles', description: 'Guild battles against bosses' },
  { name: 'marketplace', description: "Each avatar's marketplace: buying and selling items" },
  { name: 'inbox', description: "Notifications in an avatar's inbox" },
  { name: 'stream', description: 'A live stream of what happens to an avatar (server-sent events)' },
  { name: 'service', description: 'Calls between services when they run apart: service and admin tokens only' },
  { name: 'problems', description: 'The problem types refusals carry, documented at their URIs' },
] as const

/**
 * The document without what only the validator reads: a `discriminator` beside `oneOf` variants
 * written inline tells the validator which variant's refusals to report (the one the field names),
 * but an OpenAPI discriminator names schemas of `components`, which inline variants are not. Each
 * variant's field holds a single value, so `oneOf` says as much without it.
 */
function withoutValidatorHints<T>(node: T): T {
  if (Array.isArray(node)) {
    for (const item of node) withoutValidatorHints(item)
  } else if (node !== null && typeof node === 'object') {
    const o = node as Record<string, unknown>
    if (o.discriminator && Array.isArray(o.oneOf) && o.oneOf.some((v) => !(v as { $ref?: unknown }).$ref)) delete o.discriminator
    for (const value of Object.values(o)) withoutValidatorHints(value)
  }
  return node
}

type SerializerFactory = NonNullable<NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>['buildSerializer']>

/**
 * fastify's own response serializers (fast-json-stringify, through the factory fastify itself
 * depends on), each compiled on its first use instead of all when the server gets ready.
 */
function lazySerializers(pending: LazyCompiles): SerializerFactory {
  let factory: SerializerFactory | undefined
  const load = (): SerializerFactory => {
    const fromFastify = createRequire(createRequire(import.meta.url).resolve('fastify'))
    return (fromFastify('@fastify/fast-json-stringify-compiler') as () => SerializerFactory)()
  }
  return (externalSchemas, options) => {
    let compiler: ReturnType<SerializerFactory> | undefined
    return (route) => compileOnFirstUse(() => (compiler ??= (factory ??= load())(externalSchemas, options))(route), undefined, pending)
  }
}

/** Validators and serializers not compiled yet, per server (see `compileRemainingSchemas`). */
const lazyCompiles = new WeakMap<FastifyInstance, LazyCompiles>()

/**
 * Compiles the server's route validators and serializers that no request has needed yet, one
 * at a time between requests; a process calls it once it serves, so first requests stay quick.
 */
export function compileRemainingSchemas(app: FastifyInstance, onError?: (e: unknown) => void): Promise<number> {
  return lazyCompiles.get(app)?.compileAll(onError) ?? Promise.resolve(0)
}

/** The fastify instance every Questline process serves from, with the platform's conventions. */
export async function createHttpServer(opts: HttpServerOptions): Promise<HttpServer> {
  const pending = new LazyCompiles()
  const app = Fastify({
    ...(opts.logger ? { loggerInstance: opts.logger } : { logger: false }),
    bodyLimit: BODY_LIMIT,
    requestIdHeader: false,
    // A closing server (draining) serves the requests still reaching it on kept-alive connections, each answered with `connection: close`.
    return503OnClosing: false,
    genReqId: (req) => {
      const given = req.headers['x-request-id']
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : newId()
    },
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 200 },
    frameworkErrors: frameworkErrorHandler(opts.problemTypes),
    clientErrorHandler,
    schemaController: { compilersFactory: { buildSerializer: lazySerializers(pending) } },
  }).withTypeProvider<TypeBoxTypeProvider>()
  lazyCompiles.set(app, pending)

  app.setValidatorCompiler(validatorCompiler(pending))
  app.addHook('onRoute', defaultsOptional)
  // Listening comes before the platform has started: requests wait for it, but the probes.
  let started = !opts.startup
  opts.startup?.then(() => {
    started = true
  }, () => undefined)
  if (opts.startup) {
    const startup = opts.startup
    app.addHook('onRequest', async (req) => {
      if (!started && !(req.routeOptions.config as { probe?: boolean } | undefined)?.probe) await startup
    })
  }
  app.addHook('onRequest', rejectMalformedQuery)
  app.addHook('preValidation', rejectUnstorableText)
  const routes = new RouteTable()
  routes.track(app)
  const webApp = opts.webDir ? await serveWebApp(app, opts.webDir) : undefined
  if (opts.webDir && !webApp && opts.logger) opts.logger.warn(`The web app is not built (${opts.webDir}): run npm run build:web; serving the API only.`)
  registerProblemHandlers(app, routes, opts.problemTypes, webApp?.fallback)
  app.addSchema(ProblemSchema)
  app.addHook('onSend', async (req, reply) => {
    reply.header('x-request-id', req.id)
    // A request under way when the drain began: its client's next one goes elsewhere.
    if (isDraining(app)) reply.header('connection', 'close')
  })

  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: opts.title,
        version: '1.0.0',
        license: { name: 'Apache-2.0', url: 'https://www.apache.org/licenses/LICENSE-2.0' },
        description: 'Habit tracking that grows an RPG avatar. Every error is RFC 9457 application/problem+json, its `type` ' +
          'a stable `/problems/<slug>` documented at that URI, listed under each error status of each operation that answers it ' +
          'and named in the operation\'s description. Every /api/v1 operation needs a ' +
          'bearer token: 401 `unauthorized` without one, 401 `invalid-token` for one invalid, expired or revoked. A request whose ' +
          'fields are not what the operation takes is 400 `validation`, naming each field in `errors` (any operation: text no field ' +
          'can hold, NUL or percent-escapes that are not UTF-8, in its query string). A path parameter badly escaped is 400 ' +
          '`malformed-request`, one longer than 200 characters 414 `uri-too-long`. A body is read on POST, PUT, PATCH and DELETE, ' +
          'whether or not the operation takes one: one that is not JSON is 400 `malformed-json`, one over 64 KiB 413 ' +
          '`payload-too-large`, one of another media type 415 `unsupported-media-type`.',
      },
      // Relative: the document holds behind any host, port or scheme it is reached by.
      servers: [{ url: '/', description: 'This server' }],
      tags: API_TAGS.map((t) => ({ ...t })),
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } } },
      security: [{ bearer: [] }],
    },
    refResolver: { buildLocalReference: (json, _base, _fragment, i) => String(json.$id ?? `def-${i}`) },
    transformObject: (document) => 'openapiObject' in document
      ? documentProblemTypes(withoutValidatorHints(document.openapiObject) as Parameters<typeof documentProblemTypes>[0], opts.problemTypes)
      : document.swaggerObject,
  })
  await app.register(swaggerUi, { routePrefix: '/docs' })
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger())
  await serveProblemTypes(app, opts.problemTypes)

  new Metrics(opts.processMetrics, opts.metrics).register(app)

  app.get('/healthz', { schema: { hide: true }, config: { probe: true } }, async () => ({ status: 'ok' }))
  app.get('/readyz', { schema: { hide: true }, config: { probe: true } }, async (req, reply) => {
    const checks: Record<string, string> = {}
    if (!started) checks.startup = 'failing: starting'
    if (isDraining(app)) checks.draining = 'failing: shutting down'
    for (const [name, check] of Object.entries(started && !isDraining(app) ? opts.readiness : {})) {
      checks[name] = await check().then(() => 'ok', (e: Error) => `failing: ${e.message}`)
    }
    const failing = Object.entries(checks).filter(([, v]) => v !== 'ok')
    if (failing.length === 0) return { status: 'ready', checks }
    return sendProblem(reply, {
      type: '/problems/not-ready', title: 'Not ready', status: 503,
      detail: failing.map(([k, v]) => `${k}: ${v}`).join('; '), instance: req.url,
    })
  })
  return app
}
