import FindMyWay from 'find-my-way'
import type { FastifyInstance, HTTPMethods } from 'fastify'

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const

/** What the copies of the router store for a route: the path pattern it was registered with. */
interface Pattern {
  url: string
}

/**
 * A copy of the routing table, so a request can be told which methods its path accepts (405 with
 * Allow) rather than a bare 404, or rather than reaching a route of another path.
 *
 * A path belongs to the pattern the router prefers for it whatever the method: a fixed segment
 * before a parameter (`/battles/bosses` before `/battles/:id`). Asked for a method the fixed path
 * lacks, the router falls back to the parameter beside it (`DELETE /battles/bosses` would reach
 * `DELETE /battles/:id` with the id `bosses`); such a request is misrouted, and is told its path's
 * own methods.
 */
export class RouteTable {
  /** Each method's routes, as the router holds them. */
  private readonly router = FindMyWay({ ignoreTrailingSlash: true })
  /** Every pattern once, whatever its methods: which one a path belongs to. */
  private readonly patterns = FindMyWay({ ignoreTrailingSlash: true })
  private readonly methodsOf = new Map<string, string[]>()
  /** `METHOD pattern` of the routes the router reaches on paths of another pattern; found when first needed. */
  private fallbacks: Set<string> | undefined

  track(app: FastifyInstance): void {
    app.addHook('onRoute', (route) => {
      const methods = ([] as HTTPMethods[]).concat(route.method as HTTPMethods | HTTPMethods[])
      for (const m of methods) {
        if (!(METHODS as readonly string[]).includes(m)) continue
        let registered = this.methodsOf.get(route.url)
        if (!registered) {
          registered = []
          this.methodsOf.set(route.url, registered)
          this.patterns.on('GET', route.url, () => {}, { url: route.url } satisfies Pattern)
        }
        if (registered.includes(m)) continue
        registered.push(m)
        this.router.on(m as never, route.url, () => {}, { url: route.url } satisfies Pattern)
        this.fallbacks = undefined
      }
    })
  }

  /** The methods the path's own pattern takes (none for a path no route has). */
  methodsFor(path: string): string[] {
    const own = this.patternOf(path)
    const registered = own === undefined ? [] : this.methodsOf.get(own) ?? []
    return METHODS.filter((m) => registered.includes(m))
  }

  /**
   * Whether the router took a request (`url`, with its query) to the route of `pattern` although its
   * path belongs to another pattern, which lacks the method. Only a route found to be such a
   * fallback looks the path up again.
   */
  misrouted(method: string, pattern: string | undefined, url: string): boolean {
    if (pattern === undefined || !this.fallbackRoutes().has(`${method} ${pattern}`)) return false
    const own = this.patternOf(url)
    return own !== undefined && own !== pattern
  }

  /** The pattern a path (or a URL with its query) belongs to. */
  private patternOf(path: string): string | undefined {
    return (this.patterns.find('GET', path)?.store as Pattern | undefined)?.url
  }

  /**
   * The routes the router reaches, for a method, on a path of another pattern that lacks that
   * method: found by asking, for each pattern, for the methods it lacks on a path of its own.
   */
  private fallbackRoutes(): Set<string> {
    if (this.fallbacks) return this.fallbacks
    const found = new Set<string>()
    for (const [url, registered] of this.methodsOf) {
      const path = samplePathOf(url)
      if (path === undefined) continue
      for (const m of METHODS) {
        if (registered.includes(m)) continue
        const reached = (this.router.find(m as never, path)?.store as Pattern | undefined)?.url
        if (reached !== undefined && reached !== url) found.add(`${m} ${reached}`)
      }
    }
    return (this.fallbacks = found)
  }
}

/** A path of a pattern, each parameter a value no fixed segment has; undefined for a parameter with a regex. */
function samplePathOf(url: string): string | undefined {
  if (url.includes('(')) return undefined
  return url.replace(/:[A-Za-z0-9_]+/g, '~p~').replace(/\*/g, '~p~')
}
