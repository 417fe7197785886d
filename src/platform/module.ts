/**
 * The shape every bounded context declares in its `index.ts`, so the composition root
 * (`src/server.ts`) can serve any set of them the same way: all in one process, or each in its own.
 */
import type { FastifyPluginAsync } from 'fastify'
import type { TokenSource } from './auth/service-token.js'
import type { EventHandler } from './events/contract.js'
import type { Outbox } from './events/outbox.js'
import type { MetricsSource } from './http/metrics.js'
import type { ProblemCatalog } from './http/problem-types.js'
import type { ServiceClientOptions } from './http/service-client.js'
import type { PruneRule } from './jobs/retention.js'
import type { Job } from './jobs/scheduler.js'

/** A context's routes, by where they are mounted. */
export interface ContextRoutes {
  /** Its API, mounted under /api/v1 behind the access-token check. */
  apiRoutes?: FastifyPluginAsync
  /**
   * Routes only other services call, mounted under /internal/v1 behind the access-token check and
   * the service-or-admin check: never forwarded by a gateway, not in the public API document.
   */
  internalRoutes?: FastifyPluginAsync
  /** Routes of its own at the root, checking tokens themselves (the edge's /auth). */
  rootRoutes?: FastifyPluginAsync
}

/** What a context is made of once built. */
export interface ContextParts<Port = undefined, Handlers = undefined> {
  /** What its routes call (`ContextModule.routes` is given them). */
  handlers: Handlers
  outbox: Outbox
  /** The events of other contexts it consumes (payloads checked against their contracts). */
  consumers?: EventHandler[]
  jobs?: Job[]
  /** Rows of its own tables past their use, deleted by the platform's retention job (its outbox is pruned by the platform). */
  prune?: PruneRule[]
  metrics?: MetricsSource
  /** Work it ends before the server closes its connections (open streams, attempts under way). */
  preClose?: () => Promise<void>
  /** Its port as a direct call, for the other contexts of this process. */
  port?: Port
}

/**
 * A bounded context: its name (one per context, the same in the folder, `--only`, logs and
 * metrics), the contexts it calls, how it is built from what it needs, its routes around what
 * handles them, and its port over HTTP for the processes that call it while it is served elsewhere.
 */
export interface ContextModule<Name extends string = string, Deps = never, Port = undefined, Handlers = undefined, Calls extends readonly string[] = readonly string[]> {
  name: Name
  /** The problem types its refusals carry (the platform's own are not repeated). */
  problemTypes: ProblemCatalog
  /**
   * The contexts whose ports it calls: a process serving it serves each of them too or is given
   * where it runs (`UPSTREAM_<CONTEXT>`), or refuses to start.
   */
  calls: Calls
  build: (deps: Deps) => ContextParts<Port, Handlers>
  /**
   * Its routes. A process serving the context passes its built handlers; a process forwarding them
   * elsewhere declares them around `servedElsewhere` (its requests never reach a handler).
   */
  routes(handlers: Handlers): ContextRoutes
  /**
   * `baseUrl(owner, failed)`: a replica for each attempt of a call, the owner of the aggregate when
   * the call names one; a retry names the URL that failed, for the next in rank (or another replica).
   */
  remotePort?: (baseUrl: (owner?: string, failed?: string) => string, tokens: TokenSource, options: Partial<ServiceClientOptions>) => Port
}

/** Declares a context module (typing its parts from `build`). */
export const contextModule = <Name extends string, Deps, Port = undefined, Handlers = undefined, const Calls extends readonly string[] = readonly string[]>(
  m: ContextModule<Name, Deps, Port, Handlers, Calls>,
): ContextModule<Name, Deps, Port, Handlers, Calls> => m

/**
 * Handlers of a context this process does not build, for declaring its routes: any property read
 * gives another stand-in (routes are wired without running anything), and any call throws, since a
 * forwarded request never reaches a handler here.
 */
export function servedElsewhere<H>(context: string): H {
  const standIn = (path: string): unknown => new Proxy(() => undefined, {
    get: (_target, key) => {
      // `then` unset: a stand-in is not taken for a promise when awaited or returned from an async function.
      if (key === 'then' || typeof key === 'symbol') return undefined
      // Binding a handler to its app (routes do, when they are wired) runs nothing.
      if (key === 'bind') return () => standIn(path)
      return standIn(`${path}.${key}`)
    },
    apply: () => {
      throw new Error(`${path}() ran in a process that does not build the ${context} context: its requests are forwarded, never handled here.`)
    },
    construct: () => {
      throw new Error(`${path} was constructed in a process that does not build the ${context} context.`)
    },
  })
  return standIn(`${context} handlers`) as H
}
