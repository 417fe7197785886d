/**
 * Which aggregate a request is about, for routing it to the replica that owns it (partitions.ts).
 * One rule for every context: the path segment after `avatars/` or `battles/` names the avatar or
 * the battle (`/api/v1/avatars/:id/money/earn`, `/api/v1/battles/:id/damage`, an export part's
 * `/exports/tracking/avatars/:id/habits`). A request that names none goes to any replica.
 */

/** Collections whose members have one owner each: their writes batch per aggregate. */
const OWNED_COLLECTIONS = new Set(['avatars', 'battles'])

/** The aggregate id in a concrete path (`/api/v1/avatars/a1/profile?keys=…` → `a1`), if it names one. */
export function ownerKeyOfPath(path: string): string | undefined {
  const segments = path.split('?', 1)[0]!.split('/')
  for (let i = 0; i < segments.length - 1; i++) {
    if (OWNED_COLLECTIONS.has(segments[i]!) && segments[i + 1] !== '') return decoded(segments[i + 1]!)
  }
  return undefined
}

/**
 * The name of the route parameter that holds the aggregate id in a route pattern
 * (`/api/v1/avatars/:id/stream` → `id`); undefined for a pattern with a fixed segment there
 * (`/api/v1/avatars/search`) or none.
 */
export function ownerParamOfRoute(pattern: string): string | undefined {
  const segments = pattern.split('/')
  for (let i = 0; i < segments.length - 1; i++) {
    if (OWNED_COLLECTIONS.has(segments[i]!)) return segments[i + 1]!.startsWith(':') ? segments[i + 1]!.slice(1) : undefined
  }
  return undefined
}

function decoded(segment: string): string {
  try {
    return decodeURIComponent(segment)
  } catch {
    return segment // not percent-encoded as it should be: the raw text is still one key per id
  }
}
