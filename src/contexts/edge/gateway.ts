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
import { limitedBody, PayloadTooLarge, readValidGetBody, type GetBodyConfig } from '../../platform/http/get-body.js'
import type { StreamingConfig } from '../../platform/http/streaming.js'
import type { UpstreamPool } from '../../platform/http/upstreams.js'
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

/** The streams each server forwards, once it forwards anything. */
const forwardingServers = new WeakMap<FastifyInstance, Set<ServerResponse>>()

/**
 * Registers the proxy machinery once on the server (undici under the hood, loaded only for this
 * shape); answers the set of the streams it forwards.
 */
async function enableForwarding(app: FastifyInstance): Promise<Set<ServerResponse>> {
  const known = forwardingServers.get(app)
  if (known) return known
  const streams = new Set<ServerResponse>()
  forwardingServers.set(app, streams)
  const { default: replyFrom } = await import('@fastify/reply-from')
  await app.register(replyFrom, { undici: { connections: 128, pipelining: 1, headersTimeout: 30_000, bodyTimeout: 30_000 } })
  // Streams do not end by themselves: closing the server ends them (their clients reconnect).
  app.addHook('preClose', async () => {
    for (const raw of streams) raw.end()
  })
  return streams
}

/**
 * An onRequest hook that sends the request to the context's pool instead of handling it here.
 * The body is streamed through as it came (up to the body limit); an upstream that cannot be
 * reached is marked down and the client gets 503 problem+json.
 */
function forwardTo(pool: UpstreamPool, streams: Set<ServerResponse>) {
  return async (req: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const base = pool.pick(ownerOf(req))
    if ((req.routeOptions.config as StreamingConfig | undefined)?.streaming) return forwardStream(req, reply, base, pool, streams)
    let url = req.url
    let tooLarge = () => false
    if (req.method === 'GET' || req.method === 'HEAD') {
      // A body on GET (the contract's avatar search) does not survive HTTP intermediaries; its
      // criteria travel on as query parameters, which the route reads alike. Any other GET
      // ignores a body, as in one process.
      const getBody = (req.routeOptions.config as GetBodyConfig | undefined)?.getBody
      if (getBody) url = withCriteria(url, await readValidGetBody(req), criteriaOf(getBody))
    } else {
      // Not parsed yet: the body streams through untouched, held to the limit a context process
      // keeps (that process would answer 413 mid-upload and close, which reads here as a failure).
      const body = limitedBody(req.raw, req.routeOptions.bodyLimit)
      req.body = body.stream
      tooLarge = body.tooLarge
    }
    await reply.from(base + url, {
      // The upstream is asked under its own host name: where the client reached the platform goes
      // along (unless a proxy in front said so already), for the addresses it answers (a calendar feed's).
      rewriteRequestHeaders: (_raw, headers) => ({
        ...(req.headers.host === undefined ? {} : { 'x-forwarded-host': req.headers.host }),
        'x-forwarded-proto': req.protocol,
        ...headers,
      }),
      onError: (r, { error }) => {
        if (tooLarge()) return void r.send(new PayloadTooLarge(req.routeOptions.bodyLimit))
        pool.markDown(base)
        req.log.warn({ err: error, upstream: base }, 'upstream failed')
        r.send(new ServiceUnavailable(`The ${pool.name} service did not answer; try again shortly.`))
      },
    })
    return reply
  }
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
async function forwardStream(req: FastifyRequest, reply: FastifyReply, base: string, pool: UpstreamPool, streams: Set<ServerResponse>): Promise<void> {
  const headers: Record<string, string> = {}
  for (const name of STREAM_HEADERS) {
    const value = req.headers[name]
    if (typeof value === 'string') headers[name] = value
  }
  const aborted = new AbortController()
  let upstream: Response
  try {
    upstream = await fetch(base + req.url, { headers, signal: aborted.signal })
  } catch (error) {
    pool.markDown(base)
    req.log.warn({ err: error, upstream: base }, 'upstream failed')
    throw new ServiceUnavailable(`The ${pool.name} service did not answer; try again shortly.`)
  }
  if (upstream.status !== 200 || !upstream.body) {
    // A refusal (problem+json): passed on as it is.
    reply.code(upstream.status).header('content-type', upstream.headers.get('content-type') ?? 'application/problem+json')
    return void reply.send(await upstream.text())
  }
  reply.hijack()
  const raw = reply.raw
  raw.writeHead(200, { 'content-type': upstream.headers.get('content-type') ?? 'text/event-stream', 'cache-control': 'no-cache, no-transform', 'x-accel-buffering': 'no' })
  raw.flushHeaders()
  streams.add(raw)
  raw.once('close', () => streams.delete(raw))
  // Piped on in the background: the hook is done once the stream is under way.
  void pipe(upstream.body, raw, aborted)
}

async function pipe(body: ReadableStream<Uint8Array>, raw: ServerResponse, aborted: AbortController): Promise<void> {
  const left = new Promise<void>((resolve) => raw.once('close', resolve))
  void left.then(() => aborted.abort())
  try {
    for await (const chunk of body) {
      if (!raw.write(chunk)) await Promise.race([new Promise((resolve) => raw.once('drain', resolve)), left])
      if (raw.destroyed) break
    }
  } catch {
    // The upstream ended the stream abruptly (it restarted) or the client left: either way it is over.
  } finally {
    aborted.abort()
    if (!raw.writableEnded) raw.end()
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
