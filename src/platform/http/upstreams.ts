/**
 * Forwarding requests to the processes that serve a context (split services): a pool of base
 * URLs per context, taken in turn, with the ones that fail their health check left out until
 * they pass again.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { BadRequest, ServiceUnavailable } from '../errors.js'
import { readValidGetBody } from './get-body.js'
import type { Logger } from '../log.js'

const HEALTH_EVERY_MS = 2_000
const HEALTH_TIMEOUT_MS = 1_000

export class UpstreamPool {
  private readonly up: Set<string>
  /** Upstreams that have answered a check once: only losing one of those is worth a warning. */
  private readonly seen = new Set<string>()
  private next = 0
  private timer: NodeJS.Timeout | undefined

  constructor(
    readonly name: string,
    readonly urls: string[],
    private readonly log?: Logger,
  ) {
    // Optimistic at start: a request finds out sooner than the first health round.
    this.up = new Set(urls)
  }

  /**
   * The next healthy upstream, round-robin. When none passed its last check, any may be tried:
   * a check is up to two seconds old (processes starting together fail each other's first one),
   * and trying costs one refused connection, which answers 503 as a refusal here would.
   */
  pick(): string {
    if (this.urls.length === 0) throw new ServiceUnavailable(`No ${this.name} service is configured.`)
    const healthy = this.urls.filter((u) => this.up.has(u))
    const candidates = healthy.length > 0 ? healthy : this.urls
    return candidates[this.next++ % candidates.length]!
  }

  markDown(url: string): void {
    if (!this.up.delete(url)) return
    // Peers starting together fail each other's first check: not news until one was seen up.
    if (this.seen.has(url)) this.log?.warn({ upstream: url, context: this.name }, 'upstream down')
    else this.log?.debug({ upstream: url, context: this.name }, 'upstream not up yet')
  }

  startHealthChecks(): void {
    const round = async () => {
      await Promise.all(this.urls.map(async (url) => {
        const ok = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(HEALTH_TIMEOUT_MS) }).then((r) => r.ok, () => false)
        if (!ok) return this.markDown(url)
        if (!this.up.has(url)) this.log?.info({ upstream: url, context: this.name }, 'upstream up')
        this.up.add(url)
        this.seen.add(url)
      }))
      this.timer = setTimeout(() => void round(), HEALTH_EVERY_MS)
      this.timer.unref()
    }
    void round()
  }

  stop(): void {
    clearTimeout(this.timer)
  }
}

/** Registers the proxy machinery once on the server (undici under the hood, loaded only for this shape). */
export async function enableForwarding(app: FastifyInstance): Promise<void> {
  const { default: replyFrom } = await import('@fastify/reply-from')
  await app.register(replyFrom, { undici: { connections: 128, pipelining: 1, headersTimeout: 30_000, bodyTimeout: 30_000 } })
}

/**
 * An onRequest hook that sends the request to the context's pool instead of handling it here.
 * The body is streamed through as it came; an upstream that cannot be reached is marked down
 * and the client gets 503 problem+json.
 */
export function forwardTo(pool: UpstreamPool) {
  return async (req: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const base = pool.pick()
    let url = req.url
    if (req.method === 'GET' || req.method === 'HEAD') {
      // A body on GET (the contract's avatar search) does not survive HTTP intermediaries; its
      // criteria travel on as query parameters, which the route reads alike.
      url = withCriteria(url, await readValidGetBody(req))
    } else {
      // Not parsed yet: the body streams through untouched.
      req.body = req.raw
    }
    await reply.from(base + url, {
      onError: (r, { error }) => {
        pool.markDown(base)
        req.log.warn({ err: error, upstream: base }, 'upstream failed')
        r.send(new ServiceUnavailable(`The ${pool.name} service did not answer; try again shortly.`))
      },
    })
    return reply
  }
}

function withCriteria(url: string, criteria: unknown): string {
  if (criteria === undefined) return url
  if (typeof criteria !== 'object' || criteria === null || Array.isArray(criteria)) {
    throw new BadRequest('A GET body must be a JSON object of criteria.', 'validation')
  }
  const [path, query = ''] = url.split('?', 2) as [string, string?]
  const params = new URLSearchParams(query)
  for (const [k, v] of Object.entries(criteria)) {
    if (v !== null && typeof v === 'object') throw new BadRequest(`Criterion '${k}' must be a plain value.`, 'validation')
    if (v !== null && v !== undefined) params.set(k, String(v))
  }
  return `${path}?${params.toString()}`
}
