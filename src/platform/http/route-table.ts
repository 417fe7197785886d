import FindMyWay from 'find-my-way'
import type { FastifyInstance, HTTPMethods } from 'fastify'

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const

/**
 * A copy of the routing table, so an unmatched request can be told which methods its path
 * does accept (405 with Allow) rather than a bare 404.
 */
export class RouteTable {
  private readonly router = FindMyWay({ ignoreTrailingSlash: true })

  track(app: FastifyInstance): void {
    app.addHook('onRoute', (route) => {
      const methods = ([] as HTTPMethods[]).concat(route.method as HTTPMethods | HTTPMethods[])
      for (const m of methods) {
        if (!(METHODS as readonly string[]).includes(m)) continue
        if (this.router.hasRoute(m as never, route.url)) continue
        this.router.on(m as never, route.url, () => {})
      }
    })
  }

  methodsFor(path: string): string[] {
    return METHODS.filter((m) => this.router.find(m as never, path) !== null)
  }
}
