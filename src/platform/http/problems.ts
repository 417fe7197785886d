import { STATUS_CODES } from 'node:http'
import type { Duplex } from 'node:stream'
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { isDatabaseUnavailable } from '../db/unavailable.js'
import { AppError, InvalidRequest, type FieldError } from '../errors.js'
import { toFieldErrors } from './validation.js'
import { problemTypeSlug, problemTypeUri, type ProblemCatalog } from './problem-types.js'
import type { RouteTable } from './route-table.js'
import type { PageFallback } from './web-app.js'

const PROBLEM_CONTENT_TYPE = 'application/problem+json'

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
  return { type: problemTypeUri(slug), title, status, detail, instance: req.url, ...(errors ? { errors } : {}) }
}

/** The request's path, without its query. */
const pathOf = (req: FastifyRequest) => req.url.split('?')[0] ?? req.url

/** Fastify's own client errors, by code: status, slug, title, and the part of the request at fault. */
const FRAMEWORK_ERRORS: Record<string, [number, string, string, FieldError?]> = {
  FST_ERR_CTP_BODY_TOO_LARGE: [413, 'payload-too-large', 'Payload too large'],
  FST_ERR_CTP_INVALID_MEDIA_TYPE: [415, 'unsupported-media-type', 'Unsupported media type', { path: 'headers/content-type', message: 'must be application/json' }],
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: [400, 'malformed-request', 'Malformed request', { path: 'headers/content-length', message: 'must be the length of the body' }],
  FST_ERR_CTP_EMPTY_JSON_BODY: [400, 'malformed-json', 'Malformed JSON', { path: 'body', message: 'must be valid JSON' }],
  FST_ERR_CTP_INVALID_JSON_BODY: [400, 'malformed-json', 'Malformed JSON', { path: 'body', message: 'must be valid JSON' }],
  FST_ERR_CTP_EMPTY_TYPE: [400, 'malformed-request', 'Malformed request', { path: 'headers/content-type', message: 'must name a media type' }],
  FST_ERR_CTP_INVALID_TYPE: [400, 'malformed-request', 'Malformed request', { path: 'headers/content-type', message: 'must name a media type' }],
  FST_ERR_BAD_URL: [400, 'malformed-request', 'Malformed request', { path: 'params', message: 'must be percent-encoded UTF-8' }],
  FST_ERR_MAX_PARAM_LENGTH: [414, 'uri-too-long', 'URI too long', { path: 'params', message: 'is too long' }],
  FST_ERR_ASYNC_CONSTRAINT: [400, 'malformed-request', 'Malformed request', { path: 'headers', message: 'must match a route' }],
}

function toProblem(err: FastifyError | AppError | Error, req: FastifyRequest): Problem {
  if (err instanceof AppError) return problem(req, err.status, err.slug, err.title, err.message, err.errors?.map((e) => located(req, e)))
  const fe = err as FastifyError
  if (fe.validation) return toProblem(new InvalidRequest(toFieldErrors(fe.validationContext ?? 'body', fe.validation as never)), req)
  const known = fe.code ? FRAMEWORK_ERRORS[fe.code] : undefined
  if (known) return problem(req, known[0], known[1], known[2], fe.message, known[3] && [known[3]])
  if (err instanceof SyntaxError || fe.statusCode === 400) {
    return problem(req, 400, 'malformed-request', 'Malformed request', err.message, [{ path: 'body', message: 'must be well formed' }])
  }
  if (fe.statusCode && fe.statusCode >= 400 && fe.statusCode < 500) {
    return problem(req, fe.statusCode, 'client-error', 'Client error', err.message)
  }
  if (isDatabaseUnavailable(err)) {
    return problem(req, 503, 'service-unavailable', 'Service unavailable', 'The database is unavailable for the moment; try again shortly.')
  }
  return problem(req, 500, 'internal', 'Internal server error', 'The server failed to handle the request; it has been logged.')
}

/**
 * A field named by a pointer into the command (`/title`, see FieldError) shown under the part of
 * the request that carried it: the query string or the path when one of them holds that field
 * (and the body does not), else the body.
 */
function located(req: FastifyRequest, e: FieldError): FieldError {
  if (!e.path.startsWith('/')) return e
  const field = (e.path.split('/')[1] ?? '').replace(/~1/g, '/').replace(/~0/g, '~')
  const holds = (part: unknown) => part !== null && typeof part === 'object' && Object.hasOwn(part, field)
  const part = holds(req.body) ? 'body' : holds(req.query) ? 'querystring' : holds(req.params) ? 'params' : 'body'
  return { ...e, path: `${part}${e.path}` }
}

/** What Node's HTTP parser refuses before fastify sees a request, by error code: status, slug, title, detail, field. */
const PARSER_ERRORS: Record<string, [number, string, string, string, FieldError?]> = {
  HPE_HEADER_OVERFLOW: [431, 'headers-too-large', 'Request header fields too large', 'The request line and headers exceed what the server reads.',
    { path: 'headers', message: 'must be shorter, with the URL' }],
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'request-timeout', 'Request timeout', 'The request did not arrive in time.'],
}

/**
 * A request the HTTP parser refused (headers too large, not HTTP at all): answered as problem+json
 * on the socket, since no request object exists; the connection then closes.
 */
export function clientErrorHandler(err: NodeJS.ErrnoException, socket: Duplex): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return
  const [status, slug, title, detail, field] = PARSER_ERRORS[err.code ?? ''] ??
    [400, 'malformed-request', 'Malformed request', 'The request is not well-formed HTTP.', { path: 'headers', message: 'must be well-formed HTTP' }]
  const body = JSON.stringify({ type: problemTypeUri(slug), title, status, detail, ...(field ? { errors: [field] } : {}) })
  if (socket.writable) {
    socket.write(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: ${PROBLEM_CONTENT_TYPE}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`)
  }
  socket.destroy(err)
}

/** Errors the router raises before any route runs (a bad escape, an over-long parameter). */
export function frameworkErrorHandler(catalog: ProblemCatalog) {
  return (err: FastifyError, req: FastifyRequest, reply: FastifyReply): void => {
    void sendProblem(reply, titled(toProblem(err, req), catalog))
  }
}

/** Every occurrence of a type has the type's title (RFC 9457 §3.1.3); the occurrence's own words are its `detail`. */
function titled(p: Problem, catalog: ProblemCatalog): Problem {
  const type = catalog[problemTypeSlug(p.type) ?? '']
  return type ? { ...p, title: type.title } : p
}

/**
 * The only place that turns errors into response bodies. An unmatched browser navigation gets the
 * web app's page from `pageFallback`, when the app is served.
 */
export function registerProblemHandlers(app: FastifyInstance, routes: RouteTable, catalog: ProblemCatalog, pageFallback?: PageFallback): void {
  app.setErrorHandler((err: FastifyError, req, reply) => {
    const p = titled(toProblem(err, req), catalog)
    if (p.status >= 500) req.log.error({ err }, 'request failed')
    if (err instanceof AppError && 'retryAfterSeconds' in err) {
      reply.header('retry-after', String((err as { retryAfterSeconds: number }).retryAfterSeconds))
    }
    return sendProblem(reply, p)
  })

  // A wrong method on a known path is answered before its body is read: the body was never meant
  // for any route, so neither its size nor its syntax is judged (405, not 400 or 413). So is one
  // the router took to a parameter route beside the path (`DELETE /battles/bosses` to
  // `/battles/:id`). Every request the not-found handler below gets has passed here, so it answers only 404s.
  app.addHook('onRequest', async (req, reply) => {
    const misrouted = !req.is404 && routes.misrouted(req.method, req.routeOptions.url, req.url)
    if ((req.is404 || misrouted) && methodNotAllowed(routes, req, reply)) return reply
  })

  app.setNotFoundHandler((req, reply) => {
    if (pageFallback?.(req, reply)) return reply
    const path = pathOf(req)
    return sendProblem(reply, problem(req, 404, 'not-found', 'Not found', `No route ${req.method} ${path}.`))
  })
}

/** Answers 405 with Allow when the path is known for other methods; false otherwise. */
function methodNotAllowed(routes: RouteTable, req: FastifyRequest, reply: FastifyReply): boolean {
  const path = pathOf(req)
  const allowed = routes.methodsFor(path)
  // A route of this method that found nothing (a static file gone) is a 404, not a 405.
  if (allowed.length === 0 || allowed.includes(req.method)) return false
  reply.header('allow', allowed.join(', '))
  void sendProblem(reply, problem(req, 405, 'method-not-allowed', 'Method not allowed',
    `${req.method} is not allowed on ${path}; allowed: ${allowed.join(', ')}.`))
  return true
}
