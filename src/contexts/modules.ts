/**
 * Every bounded context of the platform: the one list. The composition root builds them in this
 * order (a context after those whose ports it calls), `questline serve --only` accepts their
 * names, and the split launcher starts a process for each (the edge last, as the gateway).
 */
import type { Config } from '../config.js'
import type { RevocationList } from '../platform/auth/revocations.js'
import type { TokenSource } from '../platform/auth/service-token.js'
import type { AccessTokens } from '../platform/auth/tokens.js'
import type { Clock } from '../platform/clock.js'
import type { Database } from '../platform/db/database.js'
import type { Broadcast } from '../platform/events/broadcast.js'
import type { ServiceClientOptions } from '../platform/http/service-client.js'
import type { ContextModule } from '../platform/module.js'
import { avatarModule } from './avatar/index.js'
import { edgeModule } from './edge/index.js'
import { guildModule } from './guild/index.js'
import { liveModule } from './live/index.js'
import { marketplaceModule } from './marketplace/index.js'
import { questModule } from './quest/index.js'
import { trackingModule } from './tracking/index.js'

export const MODULES = [avatarModule, trackingModule, guildModule, questModule, marketplaceModule, liveModule, edgeModule] as const

export type ContextName = (typeof MODULES)[number]['name']
export const CONTEXT_NAMES: readonly ContextName[] = MODULES.map((m) => m.name)

type PortOf<M> = M extends ContextModule<string, never, infer P, never, readonly string[]> ? P : never

/** The ports the contexts offer each other, by the offering context's name (those with none: undefined). */
export type Ports = { [M in (typeof MODULES)[number] as M['name']]: PortOf<M> }

/** Everything a context may ask for when it is built. */
export interface ContextDeps {
  database: Database
  clock: Clock
  config: Config
  tokens: AccessTokens
  revocations: RevocationList
  /** Service tokens and call settings for ports reached over HTTP. */
  serviceTokens: TokenSource
  serviceCalls: Partial<ServiceClientOptions>
  /** Each read resolves to the context's port in this process, or its HTTP adapter when it is served elsewhere. */
  ports: Ports
  /** Unstored messages to every process (the live stream's news of appended events). */
  broadcast: Broadcast
}

// Every module can be built from the same deps: a module asking for something no deps offer does not compile.
MODULES satisfies readonly ContextModule<string, ContextDeps, unknown, unknown>[]

/** The ports a module's `build` asks for. */
type PortsAsked<M> = M extends { build: (deps: infer D) => unknown } ? (D extends { ports: infer P } ? keyof P : never) : never
/** Per module, the ports it asks for that its `calls` does not list (none, for each). */
type UnlistedCalls = { [M in (typeof MODULES)[number] as M['name']]: Exclude<PortsAsked<M>, M['calls'][number]> }
// A module asking for a port it does not list in `calls` does not compile: a process could start without it.
export type EveryCallListed = UnlistedCalls[ContextName] extends never ? true : UnlistedCalls
true satisfies EveryCallListed
