import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { AppError, type FieldError } from '../errors.js'
import { toFieldErrors } from './validation.js'
import type { RouteTable } from './route-table.js'
import type { PageFallback } from './web-app.js'

export const PROBLEM_CONTENT_TYPE = 'application/problem+json'

interface Problem {
  type: string
  title: string
  status: number
  detail: string
  instance?: string
  errors?: FieldError[]
}

export function sendProblem(reply: FastifyReply, problem: Problem): FastifyReply {
  return reply.code(problem.status).type(PROBLEM_CONTENT_TYPE).serializer(JSON.stringify).send(problem)
}

function problem(req: FastifyRequest, status: number, slug: string, title: string, detail: string, errors?: FieldError[]): Problem {
  return { type: `/problems/${slug}`, title, status, detail, instance: req.url, ...(errors ? { errors } : {}) }
}

/** Fastify's own client errors, by code: status, slug, title. */
const FRAMEWORK_ERRORS: Record<string, [number, string, string]> = {
  FST_ERR_CTP_BODY_TOO_LARGE: [413, 'payload-too-large', 'Payload too large'],
  FST_ERR_CTP_INVALID_MEDIA_TYPE: [415, 'unsupported-media-type', 'Unsupported media type'],
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: [400, 'malformed-request', 'Malformed request'],
  FST_ERR_CTP_EMPTY_JSON_BODY: [400, 'malformed-json', 'Malformed JSON'],
  FST_ERR_CTP_INVALID_JSON_BODY: [400, 'malformed-json', 'Malformed JSON'],
  FST_ERR_CTP_EMPTY_TYPE: [400, 'malformed-request', 'Malformed request'],
  FST_ERR_CTP_INVALID_TYPE: [400, 'malformed-request', 'Malformed request'],
  FST_ERR_BAD_URL: [400, 'malformed-request', 'Malformed request'],
  FST_ERR_MAX_PARAM_LENGTH: [414, 'uri-too-long', 'URI too long'],
  FST_ERR_ASYNC_CONSTRAINT: [400, 'malformed-request', 'Malformed request'],
}

function toProblem(err: FastifyError | AppError | Error, req: FastifyRequest): Problem {
  if (err instanceof AppError) return problem(req, err.status, err.slug, err.title, err.message, err.errors)
  const fe = err as FastifyError
  if (fe.validation) {
    const errors = toFieldErrors(fe.validationContext ?? 'body', fe.validation as never)
    const detail = errors.map((e) => `${e.path} ${e.message}`).join('; ')
    return problem(req, 400, 'validation', 'Invalid request', detail, errors)
  }
  const known = fe.code ? FRAMEWORK_ERRORS[fe.code] : undefined
  if (known) return problem(req, known[0], known[1], known[2], fe.message)
  if (err instanceof SyntaxError || fe.statusCode === 400) {
    return problem(req, 400, 'malformed-request', 'Malformed request', err.message)
  }
  if (fe.statusCode && fe.statusCode >= 400 && fe.statusCode < 500) {
    return problem(req, fe.statusCode, 'client-error', 'Client error', err.message)
  }
  return problem(req, 500, 'internal', 'Internal server error', 'The server failed to handle the request; it has been logged.')
}

/** Errors the router raises before any route runs (a bad escape, an over-long parameter). */
export function frameworkErrorHandler(err: FastifyError, req: FastifyRequest, reply: FastifyReply): void {
  void sendProblem(reply, toProblem(err, req))
}

/**
 * The only place that turns errors into response bodies. An unmatched browser navigation gets the
 * web app's page from `pageFallback`, when the app is served.
 */
export function registerProblemHandlers(app: FastifyInstance, routes: RouteTable, pageFallback?: PageFallback): void {
  app.setErrorHandler((err: FastifyError, req, reply) => {
    const p = toProblem(err, req)
    if (p.status >= 500) req.log.error({ err }, 'request failed')
    if (err instanceof AppError && 'retryAfterSeconds' in err) {
      reply.header('retry-after', String((err as { retryAfterSeconds: number }).retryAfterSeconds))
    }
    return sendProblem(reply, p)
  })

  // A wrong method on a known path is answered before its body is read: the body was never meant
  // for any route, so neither its size nor its syntax is judged (405, not 400 or 413). Every
  // request the not-found handler below gets has passed here, so it answers only 404s.
  app.addHook('onRequest', async (req, reply) => {
    if (req.is404 && methodNotAllowed(routes, req, reply)) return reply
  })

  app.setNotFoundHandler((req, reply) => {
    if (pageFallback?.(req, reply)) return reply
    const path = req.url.split('?')[0] ?? req.url
    return sendProblem(reply, problem(req, 404, 'not-found', 'Not found', `No route ${req.method} ${path}.`))
  })
}

/** Answers 405 with Allow when the path is known for other methods; false otherwise. */
function methodNotAllowed(routes: RouteTable, req: FastifyRequest, reply: FastifyReply): boolean {
  const path = req.url.split('?')[0] ?? req.url
  const allowed = routes.methodsFor(path)
  // A route of this method that found nothing (a static file gone) is a 404, not a 405.
  if (allowed.length === 0 || allowed.includes(req.method)) return false
  reply.header('allow', allowed.join(', '))
  void sendProblem(reply, problem(req, 405, 'method-not-allowed', 'Method not allowed',
    `${req.method} is not allowed on ${path}; allowed: ${allowed.join(', ')}.`))
  return true
}
