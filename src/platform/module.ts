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

/** What a context is made of once built. */
export interface ContextParts<Port = undefined> {
  /** Its API, mounted under /api/v1 behind the access-token check. */
  apiRoutes?: FastifyPluginAsync
  /** Routes of its own at the root, checking tokens themselves (the edge's /auth). */
  rootRoutes?: FastifyPluginAsync
  outbox: Outbox
  /** The events of other contexts it consumes (payloads checked against their contracts). */
  consumers?: EventHandler[]
  jobs?: Job[]
  /** Rows of its own tables past their use, deleted by the platform's retention job (its outbox is pruned by the platform). */
  prune?: PruneRule[]
  metrics?: MetricsSource
  /** Its port as a direct call, for the other contexts of this process. */
  port?: Port
}

/**
 * A bounded context: its name (one per context, the same in the folder, `--only`, logs and
 * metrics), how it is built from what it needs, and its port over HTTP for the processes that
 * call it while it is served elsewhere.
 */
export interface ContextModule<Name extends string = string, Deps = never, Port = undefined> {
  name: Name
  /** The problem types its refusals carry (the platform's own are not repeated). */
  problemTypes: ProblemCatalog
  build: (deps: Deps) => ContextParts<Port>
  /**
   * `baseUrl(owner, attempt)`: a replica for a call, the owner of the aggregate when the call names
   * one (a retry: the next in rank, in case the owner is down and not yet known to be).
   */
  remotePort?: (baseUrl: (owner?: string, attempt?: number) => string, tokens: TokenSource, options: Partial<ServiceClientOptions>) => Port
}

/** Declares a context module (typing its parts from `build`). */
export const contextModule = <Name extends string, Deps, Port = undefined>(m: ContextModule<Name, Deps, Port>): ContextModule<Name, Deps, Port> => m
