import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import Fastify, { type FastifyInstance } from 'fastify'
import { newId } from '../ids.js'
import type { Logger } from '../log.js'
import { BODY_LIMIT } from './get-body.js'
import { Metrics, type MetricsSource } from './metrics.js'
import { frameworkErrorHandler, registerProblemHandlers, sendProblem } from './problems.js'
import { RouteTable } from './route-table.js'
import { ProblemSchema } from './schemas.js'
import { rejectNulCharacters, validatorCompiler } from './validation.js'
import { serveWebApp } from './web-app.js'

export type HttpServer = FastifyInstance

export interface HttpServerOptions {
  logger: Logger | false
  title: string
  /** Named readiness checks (database, bus); /readyz answers 503 while one fails. */
  readiness: Record<string, () => Promise<void>>
  processMetrics: boolean
  /** Metrics the served contexts add to /metrics. */
  metrics?: MetricsSource[]
  /** The built web app to serve at `/` (the edge does); nothing is served when it is not built. */
  webDir?: string | undefined
}

const REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/

/** The fastify instance every Questline process serves from, with the platform's conventions. */
export async function createHttpServer(opts: HttpServerOptions): Promise<HttpServer> {
  const app = Fastify({
    ...(opts.logger ? { loggerInstance: opts.logger } : { logger: false }),
    bodyLimit: BODY_LIMIT,
    requestIdHeader: false,
    genReqId: (req) => {
      const given = req.headers['x-request-id']
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : newId()
    },
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 200 },
    frameworkErrors: frameworkErrorHandler,
  }).withTypeProvider<TypeBoxTypeProvider>()

  app.setValidatorCompiler(validatorCompiler)
  app.addHook('preValidation', rejectNulCharacters)
  const routes = new RouteTable()
  routes.track(app)
  const webApp = opts.webDir ? await serveWebApp(app, opts.webDir) : undefined
  if (opts.webDir && !webApp && opts.logger) opts.logger.warn(`The web app is not built (${opts.webDir}): run npm run build:web; serving the API only.`)
  registerProblemHandlers(app, routes, webApp?.fallback)
  app.addSchema(ProblemSchema)
  app.addHook('onSend', async (req, reply) => {
    reply.header('x-request-id', req.id)
  })

  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: opts.title,
        version: '1.0.0',
        description: 'Habit tracking that grows an RPG avatar. Every error is RFC 9457 application/problem+json.',
      },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } } },
      security: [{ bearer: [] }],
    },
    refResolver: { buildLocalReference: (json, _base, _fragment, i) => String(json.$id ?? `def-${i}`) },
  })
  await app.register(swaggerUi, { routePrefix: '/docs' })
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger())

  new Metrics(opts.processMetrics, opts.metrics).register(app)

  app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }))
  app.get('/readyz', { schema: { hide: true } }, async (req, reply) => {
    const checks: Record<string, string> = {}
    for (const [name, check] of Object.entries(opts.readiness)) {
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
