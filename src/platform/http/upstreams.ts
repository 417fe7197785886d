/**
 * The processes that serve a context elsewhere (split services): a pool of base URLs per
 * context, with the ones that fail their health check left out until they pass again. A request
 * about an aggregate goes to the owner of its partition among the healthy ones (`pick(id)`,
 * ownership/partitions.ts); any other is taken in turn. Ports' HTTP adapters call through it, the
 * gateway forwards to it, and a replica watches its own context's pool to know what it owns.
 */
import { Agent, get } from 'node:http'
import { ServiceUnavailable } from '../errors.js'
import type { Logger } from '../log.js'
import { partition, rankFor } from '../ownership/partitions.js'

const HEALTH_EVERY_MS = 2_000
const HEALTH_TIMEOUT_MS = 1_000
/**
 * The checks' connections, kept alive between rounds. Plain node:http rather than fetch: a check
 * is a dozen every two seconds in every process, and fetch's streams made them most of what an
 * idle process did.
 */
const checkAgent = new Agent({ keepAlive: true })

/**
 * What `url`'s health check (GET /healthz) says: `up` (200 within HEALTH_TIMEOUT_MS), `slow` (no
 * answer in time) or `down` (refused, reset, or another status).
 */
function check(url: string): Promise<'up' | 'slow' | 'down'> {
  return new Promise((resolve) => {
    const req = get(`${url}/healthz`, { agent: checkAgent, timeout: HEALTH_TIMEOUT_MS }, (res) => {
      res.resume()
      res.once('end', () => resolve(res.statusCode === 200 ? 'up' : 'down'))
      res.once('error', () => resolve('down'))
    })
    req.once('timeout', () => {
      resolve('slow')
      req.destroy()
    })
    req.once('error', () => resolve('down'))
  })
}

export class UpstreamPool {
  private readonly up: Set<string>
  /** Upstreams that have answered a check once: only losing one of those is worth a warning. */
  private readonly seen = new Set<string>()
  private next = 0
  private timer: NodeJS.Timeout | undefined
  /** Health checks wait for the pool's first use (`checkHealthOnceUsed`). */
  private checkOnUse = false
  /** Upstreams whose last check went unanswered: a second in a row marks them down. */
  private readonly slow = new Set<string>()
  private stopped = false
  private readonly listeners: (() => void)[] = []

  constructor(
    readonly name: string,
    readonly urls: string[],
    private readonly log?: Logger,
  ) {
    // Optimistic at start: a request finds out sooner than the first health round.
    this.up = new Set(urls)
  }

  /**
   * With `key` (an aggregate id), the owner of its partition among the healthy upstreams; without,
   * the next healthy one, round-robin. When none passed its last check, any may be tried: a check
   * is up to two seconds old (processes starting together fail each other's first one), and trying
   * costs one refused connection, which answers 503 as a refusal here would.
   */
  pick(key?: string): string {
    if (key !== undefined) return this.ranked(key)[0]!
    const candidates = this.candidates()
    return candidates[this.next++ % candidates.length]!
  }

  /**
   * An upstream other than `failed`, for another attempt after it failed. About an aggregate
   * (`key`): the next in rank after `failed`, who takes its partitions over when it is found down.
   * Otherwise a healthy one if any, else any other; `failed` itself only when it is the only one.
   */
  another(failed: string, key?: string): string {
    this.used()
    const others = this.urls.filter((u) => u !== failed)
    if (others.length === 0) return this.pick(key)
    const healthy = others.filter((u) => this.up.has(u))
    const candidates = healthy.length > 0 ? healthy : others
    if (key !== undefined) return rankFor(partition(key), candidates)[0]!
    return candidates[this.next++ % candidates.length]!
  }

  /** The upstreams in the order they own `key`'s partition: the owner first, then who takes over from it. */
  ranked(key: string): string[] {
    return rankFor(partition(key), this.candidates())
  }

  /** The upstreams that passed their last check (all of them until the first round has said otherwise). */
  healthy(): string[] {
    return this.urls.filter((u) => this.up.has(u))
  }

  /** Calls `listener` whenever an upstream goes down or comes up (ownership moves then). */
  onChange(listener: () => void): void {
    this.listeners.push(listener)
  }

  private candidates(): string[] {
    this.used()
    if (this.urls.length === 0) throw new ServiceUnavailable(`No ${this.name} service is configured.`)
    const healthy = this.healthy()
    return healthy.length > 0 ? healthy : this.urls
  }

  private changed(): void {
    for (const listener of this.listeners) listener()
  }

  markDown(url: string): void {
    if (!this.up.delete(url)) return
    this.changed()
    // Peers starting together fail each other's first check: not news until one was seen up.
    if (this.seen.has(url)) this.log?.warn({ upstream: url, context: this.name }, 'upstream down')
    else this.log?.debug({ upstream: url, context: this.name }, 'upstream not up yet')
  }

  /**
   * Checks the upstreams from the pool's first pick on. A process holds a pool for every context
   * served elsewhere but calls few of them: the others never cost a check.
   */
  checkHealthOnceUsed(): void {
    this.checkOnUse = !this.stopped
  }

  private used(): void {
    if (!this.checkOnUse) return
    this.checkOnUse = false
    this.startHealthChecks()
  }

  /** Checks every upstream now and every HEALTH_EVERY_MS until stopped. */
  startHealthChecks(): void {
    const round = async () => {
      await Promise.all(this.urls.map(async (url) => {
        const answer = await check(url)
        if (this.stopped) return
        // One late answer is a busy process (a loaded machine stalls an event loop for a second),
        // not a dead one, whose connections are refused; taking its partitions over at once would
        // move them twice.
        if (answer === 'slow' && !this.slow.has(url)) return void this.slow.add(url)
        this.slow.delete(url)
        if (answer !== 'up') return this.markDown(url)
        this.seen.add(url)
        if (this.up.has(url)) return
        this.log?.info({ upstream: url, context: this.name }, 'upstream up')
        this.up.add(url)
        this.changed()
      }))
      if (this.stopped) return
      this.timer = setTimeout(() => void round(), HEALTH_EVERY_MS)
      this.timer.unref()
    }
    void round()
  }

  stop(): void {
    this.stopped = true
    this.checkOnUse = false
    clearTimeout(this.timer)
  }
}
