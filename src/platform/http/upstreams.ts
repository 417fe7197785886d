/**
 * The processes that serve a context elsewhere (split services): a pool of base URLs per
 * context, taken in turn, with the ones that fail their health check left out until they pass
 * again. Ports' HTTP adapters call through it, and the gateway forwards to it.
 */
import { ServiceUnavailable } from '../errors.js'
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

  /**
   * An upstream other than `failed`, for a second attempt after it failed: a healthy one if any,
   * else any other; `failed` itself only when it is the only one.
   */
  another(failed: string): string {
    const others = this.urls.filter((u) => u !== failed)
    if (others.length === 0) return this.pick()
    const healthy = others.filter((u) => this.up.has(u))
    const candidates = healthy.length > 0 ? healthy : others
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
