/**
 * Hot aggregates have one owner. An aggregate id falls in one of `PARTITIONS` partitions (a
 * stable hash of the id, the same in every process); each partition is owned by one of a
 * context's live replicas, chosen by rendezvous (highest-random-weight) hashing of the partition
 * with each replica's base URL. Every process that sees the same live replicas picks the same
 * owner, and a replica coming or going moves only the partitions it wins or held (about 1/N).
 * Requests (the gateway, ports' HTTP adapters) and events (NATS subjects) use the same rule, so
 * one aggregate's writes meet in one replica's writer.
 */

/**
 * Partitions per context. Each is a unit of event consumption (one durable NATS consumer per
 * consuming and producing context and partition), so few enough that idle consumers cost little,
 * and enough that a handful of replicas share them evenly.
 */
export const PARTITIONS = 16

const FNV_OFFSET = 0x811c9dc5
const FNV_PRIME = 0x01000193

/** FNV-1a over the string's UTF-16 code units, then murmur3's finalizer so close inputs land far apart. */
function hash32(text: string): number {
  let h = FNV_OFFSET
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i)
    h = Math.imul(h, FNV_PRIME)
  }
  h ^= h >>> 16
  h = Math.imul(h, 0x85ebca6b)
  h ^= h >>> 13
  h = Math.imul(h, 0xc2b2ae35)
  h ^= h >>> 16
  return h >>> 0
}

/** The partition of an aggregate id (0 … PARTITIONS − 1). */
export const partition = (id: string): number => hash32(id) % PARTITIONS

/** A replica's weight for a partition: the highest weight owns it. */
const weight = (p: number, member: string): number => hash32(`${p}@${member}`)

/**
 * The members in the order they would own partition `p`: the owner first, then who takes over
 * if it goes, and so on. Ties (never in practice) fall to the URL order, so the answer is total.
 */
export function rankFor(p: number, members: readonly string[]): string[] {
  return members
    .map((m) => ({ m, w: weight(p, m) }))
    .sort((a, b) => b.w - a.w || (a.m < b.m ? -1 : a.m > b.m ? 1 : 0))
    .map((x) => x.m)
}

/** The owner of partition `p` among `members` (undefined when there are none). */
export function ownerOf(p: number, members: readonly string[]): string | undefined {
  let best: string | undefined
  let bestWeight = -1
  for (const m of members) {
    const w = weight(p, m)
    if (w > bestWeight || (w === bestWeight && best !== undefined && m < best)) {
      best = m
      bestWeight = w
    }
  }
  return best
}

/** The partitions `self` owns among `members` (`self` counted among them whether listed or not). */
export function ownedBy(self: string, members: readonly string[]): Set<number> {
  const all = members.includes(self) ? members : [...members, self]
  const owned = new Set<number>()
  for (let p = 0; p < PARTITIONS; p++) if (ownerOf(p, all) === self) owned.add(p)
  return owned
}
