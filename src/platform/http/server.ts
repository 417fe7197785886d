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
import { serveMetricsApart, type MetricsListenerOptions } from './metrics-listener.js'
import { Metrics, type MetricsSource } from './metrics.js'
import type { BackgroundReads } from './metrics-sampler.js'
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
  /** The process's sampler: values of /metrics that take a query are read there, in the background. */
  reads: BackgroundReads
  /** Set, /metrics is served on a listener of its own (see `listenForMetrics`), and this server answers it 404. */
  metricsApart?: MetricsListenerOptions | undefined
  /**
   * The proxies (addresses, CIDRs) whose `X-Forwarded-For` tells the client's address (`req.ip`,
   * the request log's `remoteAddress`), walking back hop by hop while each is trusted; empty: none.
   */
  trustProxy: string[]
  /** The built web app to serve at `/` (the edge does); nothing is served when it is not built. */
  webDir?: string | undefined
  /** Every problem type refusals carry (the platform's and every context's): titles, the document, /problems. */
  problemTypes: ProblemCatalog
}

const REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/

/** Where the routes only services call are mounted: listed in /internal/openapi.json, not in /openapi.json. */
export const INTERNAL_PREFIX = '/internal/v1'

/**
 * The documents' tags: one per context (the /me routes of several contexts under `account`), and
 * the routes only services call under `service` (the internal document's one tag). Every operation
 * carries exactly one of them.
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
  { name: 'leagues', description: 'Weekly leagues and the all-time experience board' },
  { name: 'marketplace', description: "Each avatar's marketplace: buying and selling items" },
  { name: 'inbox', description: "Notifications in an avatar's inbox" },
  { name: 'stream', description: 'A live stream of what happens to an avatar (server-sent events)' },
  { name: 'service', description: `Calls between services when they run apart, under ${INTERNAL_PREFIX}: service and admin tokens only` },
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

interface ApiDocument {
  info: { title: string; description?: string }
  paths?: Record<string, unknown>
  tags?: { name: string }[]
}

/**
 * The public document (/openapi.json) or the internal one (/internal/openapi.json), cut from the one
 * the routes make: the paths under INTERNAL_PREFIX and the `service` tag go to the internal one only.
 */
function documentPart(full: ApiDocument, internal: boolean): ApiDocument {
  const isInternal = (path: string) => path.startsWith(`${INTERNAL_PREFIX}/`)
  const part = {
    ...full,
    paths: Object.fromEntries(Object.entries(full.paths ?? {}).filter(([path]) => isInternal(path) === internal)),
    tags: full.tags?.filter((t) => (t.name === 'service') === internal),
  }
  if (!internal) return part
  return {
    ...part,
    info: {
      ...full.info,
      title: `${full.info.title}: internal routes`,
      description: `The routes the platform's services call on each other, under ${INTERNAL_PREFIX}: a service or admin token only (401 ` +
        'without a valid token, 403 `service-only` for a player\'s, before the request is read). A process answers them for the contexts ' +
        'it serves; a gateway never forwards them. ' + (full.info.description ?? ''),
    },
  }
}

/** Each server's documents, cut once from the one the routes make (after it is ready). */
const documents = new WeakMap<FastifyInstance, Map<boolean, ApiDocument>>()

/** The OpenAPI document a server answers at /openapi.json, or with `internal` at /internal/openapi.json. */
export function apiDocument(app: FastifyInstance, internal = false): ApiDocument {
  let cut = documents.get(app)
  if (!cut) documents.set(app, (cut = new Map()))
  let part = cut.get(internal)
  if (!part) cut.set(internal, (part = documentPart(app.swagger() as unknown as ApiDocument, internal)))
  return part
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
    trustProxy: opts.trustProxy.length > 0 ? opts.trustProxy : false,
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
          'fields are not what the operation takes is 400 `validation`, naming each field in `errors`; so is, on any operation, text no ' +
          'field can hold (a NUL or a UTF-16 surrogate without its pair) anywhere in its query string, path or body, in a field it takes ' +
          'or not, and a query string whose percent-escapes are not UTF-8. Other fields an operation does not take are ignored, unless ' +
          'its body schema says `additionalProperties: false`. A path parameter badly escaped is 400 ' +
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
  await app.register(swaggerUi, { routePrefix: '/docs', transformSpecification: () => apiDocument(app) })
  app.get('/openapi.json', { schema: { hide: true } }, async () => apiDocument(app))
  app.get('/internal/openapi.json', { schema: { hide: true } }, async () => apiDocument(app, true))
  await serveProblemTypes(app, opts.problemTypes)

  const metrics = new Metrics(opts.processMetrics, opts.metrics ?? [], opts.reads)
  metrics.countRequests(app)
  if (opts.metricsApart) serveMetricsApart(app, metrics, opts.metricsApart, opts.problemTypes)
  else metrics.serve(app)

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
