/**
 * What this process owns of a context it serves: the partitions (partitions.ts) whose owner
 * among the context's live replicas is this process. The live replicas are its peers' pool
 * (`UPSTREAM_<context>`, health-checked every two seconds), with this process always among them:
 * it is live if it asks. Peers that disagree for a moment (one saw a replica go, another not yet)
 * may both handle a partition, or neither until their next health round; correctness never
 * depends on ownership (guarded writes, idempotent consumers), only batching does.
 */
import { UpstreamPool } from '../http/upstreams.js'
import type { Logger } from '../log.js'
import { ownedBy, PARTITIONS } from './partitions.js'

export interface Ownership {
  /** The partitions this process owns now. */
  owned(): ReadonlySet<number>
  /** Calls `listener` with the owned partitions whenever they change. */
  onChange(listener: (owned: ReadonlySet<number>) => void): void
}

const ALL = new Set(Array.from({ length: PARTITIONS }, (_, p) => p))

/** The only replica of its context (all-in-one, or a single process per context): it owns every partition. */
export const ownsAll: Ownership = { owned: () => ALL, onChange: () => undefined }

/** A replica among peers: owns its rendezvous share of the healthy peers and itself, followed as their health changes. */
export function replicaOwnership(self: string, peers: UpstreamPool): Ownership {
  const listeners: ((owned: ReadonlySet<number>) => void)[] = []
  let owned = ownedBy(self, peers.healthy())
  peers.onChange(() => {
    const now = ownedBy(self, peers.healthy())
    if (sameSet(now, owned)) return
    owned = now
    for (const listener of listeners) listener(owned)
  })
  return { owned: () => owned, onChange: (listener) => void listeners.push(listener) }
}

const sameSet = (a: ReadonlySet<number>, b: ReadonlySet<number>) => a.size === b.size && [...a].every((x) => b.has(x))

/**
 * What this process owns of each context it serves: a replica listed among its context's upstreams
 * (`UPSTREAM_<context>` holds `ADVERTISE_URL`) owns its share of the partitions, following its
 * peers' health (the answered pools: start their health checks with the process, stop them with it);
 * any other process owns them all.
 */
export function peerOwnership(
  self: string, upstreams: Record<string, string[] | undefined>, served: string[], log: Logger | undefined,
): { pools: UpstreamPool[]; ownership: (context: string) => Ownership } {
  const byContext = new Map<string, Ownership>()
  const pools: UpstreamPool[] = []
  for (const context of served) {
    const urls = upstreams[context]
    if (!urls || urls.length < 2) continue
    if (!urls.includes(self)) {
      log?.warn({ context, advertiseUrl: self }, `ADVERTISE_URL is not among UPSTREAM_${context.toUpperCase()}: this replica consumes every partition`)
      continue
    }
    const pool = new UpstreamPool(context, urls, log)
    pools.push(pool)
    byContext.set(context, replicaOwnership(self, pool))
  }
  return { pools, ownership: (context) => byContext.get(context) ?? ownsAll }
}
