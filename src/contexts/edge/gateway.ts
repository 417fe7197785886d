/**
 * The gateway: the edge's front door for split services. The API of every context served by
 * another process is declared here too, so this process documents it in /openapi.json and answers
 * unknown paths itself; once the access token is checked, each request is forwarded, before it is
 * parsed, to a process of that context (which validates it). A context's routes outside /api/v1
 * (its `rootRoutes`, which check their own credentials: tracking's calendar feed) are declared and
 * forwarded alike, at the root and with no token check.
 */
import type { ServerResponse } from 'node:http'
import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import type { ValidateFunction } from 'ajv'
import { ServiceUnavailable } from '../../platform/errors.js'
import { PayloadTooLarge, readValidGetBody, type GetBodyConfig } from '../../platform/http/get-body.js'
import { IDEMPOTENCY_HEADER } from '../../platform/http/idempotency.js'
import { reconnectHint, type StreamingConfig } from '../../platform/http/streaming.js'
import type { UpstreamPool } from '../../platform/http/upstreams.js'
import { bufferedBody, noBody, streamedBody } from './forwarded-body.js'
import { failureOf, isRepeatable, maySendAgain, type AttemptFailure, type ForwardedRequest } from './second-attempt.js'
import { ownerParamOfRoute } from '../../platform/ownership/owner-key.js'

/** A context's API and where it is served. */
interface ForwardedApi {
  routes: FastifyPluginAsync
  pool: UpstreamPool
}

/**
 * Declares each API in `api` with forwarding to its pool: the /api/v1 scope (token already checked)
 * for contexts' APIs, or the server itself for their root routes.
 */
export async function forwardApis(server: FastifyInstance, api: FastifyInstance, forwarded: ForwardedApi[]): Promise<void> {
  if (forwarded.length === 0) return
  const streams = await enableForwarding(server)
  for (const f of forwarded) {
    await api.register(async (scope) => {
      scope.addHook('onRequest', forwardTo(f.pool, streams))
      await scope.register(f.routes)
    })
  }
}

/** A stream forwarded here, which the server's closing ends (with a reconnect hint). */
interface ForwardedStream {
  endWithHint(): void
}

/** The streams a server forwards, and whether it is closing (draining). */
interface Streams {
  open: Set<ForwardedStream>
  closing: boolean
}

/** The streams each server forwards, once it forwards anything. */
const forwardingServers = new WeakMap<FastifyInstance, Streams>()

/**
 * Registers the proxy machinery once on the server (undici under the hood, loaded only for this
 * shape); answers the streams it forwards.
 */
async function enableForwarding(app: FastifyInstance): Promise<Streams> {
  const known = forwardingServers.get(app)
  if (known) return known
  const streams: Streams = { open: new Set(), closing: false }
  forwardingServers.set(app, streams)
  const { default: replyFrom } = await import('@fastify/reply-from')
  await app.register(replyFrom, { undici: { connections: 128, pipelining: 1, headersTimeout: 30_000, bodyTimeout: 30_000 } })
  // Streams do not end by themselves: closing the server ends them, each telling its client to
  // reconnect (to another gateway), from where it was.
  app.addHook('preClose', async () => {
    streams.closing = true
    for (const s of streams.open) s.endWithHint()
  })
  return streams
}

/**
 * An onRequest hook that sends the request to the context's pool instead of handling it here. An
 * upstream that cannot be reached is marked down; the request goes once more to another replica of
 * the context when that is safe (second-attempt.ts), else the client gets 503 problem+json.
 */
function forwardTo(pool: UpstreamPool, streams: Streams) {
  return async (req: FastifyRequest, reply: FastifyReply): Promise<void> => {
    if ((req.routeOptions.config as StreamingConfig | undefined)?.streaming) return forwardStream(req, reply, pool, streams)
    const request: ForwardedRequest = { method: req.method, keyed: isKeyed(req) }
    const owner = ownerOf(req)
    let url = req.url
    let body = noBody
    if (req.method === 'GET' || req.method === 'HEAD') {
      // A body on GET (the contract's avatar search) does not survive HTTP intermediaries; its
      // criteria travel on as query parameters, which the route reads alike. Any other GET
      // ignores a body, as in one process.
      const getBody = (req.routeOptions.config as GetBodyConfig | undefined)?.getBody
      if (getBody) url = withCriteria(url, await readValidGetBody(req), criteriaOf(getBody))
    } else {
      // Not parsed here, held to the limit a context process keeps (that process would answer 413
      // mid-upload and close, which reads here as a failure).
      body = isRepeatable(request) ? await bufferedBody(req.raw, req.routeOptions.bodyLimit) : streamedBody(req.raw, req.routeOptions.bodyLimit)
    }
    const attempt = (base: string, last: boolean): void => {
      const again = (failure: AttemptFailure) => !last && body.whole() && maySendAgain(request, failure)
      req.body = body.take()
      void reply.from(base + url, {
        // One more attempt, to another replica, is made here; none to the same one.
        retryDelay: () => null,
        // The upstream is asked under its own host name: where the client reached the platform goes
        // along (unless a proxy in front said so already), for the addresses it answers (a calendar feed's).
        rewriteRequestHeaders: (_raw, headers) => ({
          ...(req.headers.host === undefined ? {} : { 'x-forwarded-host': req.headers.host }),
          'x-forwarded-proto': req.protocol,
          ...headers,
          ...forwardedFor(req),
        }),
        onResponse: (_req, r, res) => {
          if (res.statusCode !== 503 || !again('unavailable')) return void r.send(res.stream)
          // Draining or not ready: its answer is dropped, with the headers it set here.
          res.stream.resume()
          for (const name of Object.keys(r.getHeaders())) r.removeHeader(name)
          attempt(pool.another(base, owner), true)
        },
        onError: (r, { error }) => {
          if (body.tooLarge()) return void r.send(new PayloadTooLarge(req.routeOptions.bodyLimit))
          pool.markDown(base)
          req.log.warn({ err: error, upstream: base }, 'upstream failed')
          if (again(failureOf(error))) return attempt(pool.another(base, owner), true)
          r.send(new ServiceUnavailable(`The ${pool.name} service did not answer; try again shortly.`))
        },
      })
    }
    attempt(pool.pick(owner), false)
    return reply
  }
}

/**
 * `X-Forwarded-For` as a proxy passes it on: the addresses that came with the request, and the
 * peer this process saw appended. The upstream believes the chain as far back as its TRUST_PROXY
 * reaches, so with this process trusted there it logs the client this process resolved.
 */
function forwardedFor(req: FastifyRequest): { 'x-forwarded-for'?: string } {
  const came = req.headers['x-forwarded-for']
  const chain = [...(Array.isArray(came) ? came : [came]), req.socket.remoteAddress].filter((a) => a !== undefined && a !== '')
  return chain.length > 0 ? { 'x-forwarded-for': chain.join(', ') } : {}
}

/** The request carries an Idempotency-Key and its route honours one. */
function isKeyed(req: FastifyRequest): boolean {
  const headers = req.routeOptions.schema?.headers as { properties?: Record<string, unknown> } | undefined
  return req.headers[IDEMPOTENCY_HEADER] !== undefined && headers?.properties?.[IDEMPOTENCY_HEADER] !== undefined
}

/** Each route pattern's owner parameter, worked out once. */
const ownerParams = new Map<string, string | undefined>()

/**
 * The aggregate a request is about (owner-key.ts: the avatar or battle its route names), so it
 * goes to the replica that owns it; undefined for the others, which go to any replica.
 */
function ownerOf(req: FastifyRequest): string | undefined {
  const route = req.routeOptions.url ?? ''
  let param = ownerParams.get(route)
  if (param === undefined && !ownerParams.has(route)) ownerParams.set(route, (param = ownerParamOfRoute(route)))
  return param === undefined ? undefined : (req.params as Record<string, string | undefined>)[param]
}

/** Request headers a stream's upstream needs: who asks, and where its client left off. */
const STREAM_HEADERS = ['authorization', 'last-event-id', 'accept']

/**
 * A stream (server-sent events) forwarded on a connection of its own: the proxy's pool is for
 * requests that end, and a stream holds its connection for as long as the client stays. Each chunk
 * is passed on as it comes; a client that reads slowly holds the upstream back (which drops it once
 * too much waits there), and a client that leaves closes the upstream stream.
 */
async function forwardStream(req: FastifyRequest, reply: FastifyReply, pool: UpstreamPool, streams: Streams): Promise<void> {
  if (streams.closing) {
    startStream(reply, 'text/event-stream').end(reconnectHint())
    return
  }
  const headers: Record<string, string> = {}
  for (const name of STREAM_HEADERS) {
    const value = req.headers[name]
    if (typeof value === 'string') headers[name] = value
  }
  Object.assign(headers, forwardedFor(req))
  const aborted = new AbortController()
  const upstream = await openStream(req, pool, headers, aborted.signal)
  if (upstream.status !== 200 || !upstream.body) {
    // A refusal (problem+json): passed on as it is.
    reply.code(upstream.status).header('content-type', upstream.headers.get('content-type') ?? 'application/problem+json')
    return void reply.send(await upstream.text())
  }
  const raw = startStream(reply, upstream.headers.get('content-type') ?? 'text/event-stream')
  // Piped on in the background: the hook is done once the stream is under way.
  const stream = pipe(upstream.body, raw, aborted)
  streams.open.add(stream)
  raw.once('close', () => streams.open.delete(stream))
}

function startStream(reply: FastifyReply, contentType: string): ServerResponse {
  reply.hijack()
  const raw = reply.raw
  raw.writeHead(200, { 'content-type': contentType, 'cache-control': 'no-cache, no-transform', 'x-accel-buffering': 'no' })
  raw.flushHeaders()
  return raw
}

/** The upstream's answer to a stream's opening; a replica down or draining (503) is left for another, once. */
async function openStream(req: FastifyRequest, pool: UpstreamPool, headers: Record<string, string>, signal: AbortSignal): Promise<Response> {
  const owner = ownerOf(req)
  for (let base = pool.pick(owner), last = false; ; base = pool.another(base, owner), last = true) {
    try {
      const upstream = await fetch(base + req.url, { headers, signal })
      if (upstream.status !== 503 || last) return upstream
      await upstream.body?.cancel()
    } catch (error) {
      pool.markDown(base)
      req.log.warn({ err: error, upstream: base }, 'upstream failed')
      if (last || failureOf(error) === 'other') throw new ServiceUnavailable(`The ${pool.name} service did not answer; try again shortly.`)
    }
  }
}

/** A chunk that ends with a blank line ends an event: a hint written after it is not taken into one. */
const endsEvent = (chunk: Uint8Array) => chunk.length >= 2 && chunk[chunk.length - 1] === 0x0a && chunk[chunk.length - 2] === 0x0a

/** Passes the upstream's chunks on; ended with a hint, it stops at the end of the event under way. */
function pipe(body: ReadableStream<Uint8Array>, raw: ServerResponse, aborted: AbortController): ForwardedStream {
  let betweenEvents = true
  let ending = false
  const endWithHint = () => {
    if (!raw.writableEnded) raw.end(reconnectHint())
    aborted.abort()
  }
  const left = new Promise<void>((resolve) => raw.once('close', resolve))
  void left.then(() => aborted.abort())
  void (async () => {
    try {
      for await (const chunk of body) {
        if (!raw.write(chunk)) await Promise.race([new Promise((resolve) => raw.once('drain', resolve)), left])
        if (raw.destroyed) break
        betweenEvents = endsEvent(chunk)
        if (ending && betweenEvents) return endWithHint()
      }
    } catch {
      // The upstream ended the stream abruptly (it restarted), the client left, or the server closes: it is over.
    } finally {
      aborted.abort()
      if (!raw.writableEnded) raw.end()
    }
  })()
  return {
    endWithHint: () => {
      ending = true
      if (betweenEvents) endWithHint()
    },
  }
}

/** The criteria a route's GET body declares: the body has been checked against them, so each is a plain value. */
const criteriaOf = (validate: ValidateFunction) => Object.keys((validate.schema as { properties?: object }).properties ?? {})

/** The URL with the body's criteria as query parameters; keys the route does not declare are ignored, as the route ignores them. */
function withCriteria(url: string, body: unknown, criteria: string[]): string {
  if (body === undefined) return url
  const [path, query = ''] = url.split('?', 2) as [string, string?]
  const params = new URLSearchParams(query)
  for (const k of criteria) {
    const v = (body as Record<string, unknown>)[k]
    if (v !== undefined && v !== null) params.set(k, String(v))
  }
  return `${path}?${params.toString()}`
}
