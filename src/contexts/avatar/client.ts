/**
 * The port other contexts use to ask the avatar context for something. The adapter is picked
 * at start-up: in-process (a direct call), or HTTP to the avatar service's API when
 * contexts run as separate services.
 *
 * Every call that changes an avatar takes an idempotency key: a retried call with the same key
 * answers as the first did and changes nothing again. Business refusals arrive as the avatar
 * context's problems (platform AppErrors with their slugs), e.g. `insufficient-funds`.
 */
import type { TokenSource } from '../../platform/auth/service-token.js'
import { isTrusted, SYSTEM, type Principal } from '../../platform/auth/principal.js'
import type { Database } from '../../platform/db/database.js'
import { BadRequest, NotFound, NotOwner } from '../../platform/errors.js'
import { ServiceClient, type ServiceClientOptions } from '../../platform/http/service-client.js'
import type { AvatarApp, AvatarProfile } from './app/avatar-app.js'
import type { LeagueApp } from './app/league-app.js'
import { avatarExport, type AvatarExport } from './http/export-schemas.js'
import { leagueExport, type LeagueExport } from './http/league-schemas.js'
import { PROFILES_MAX } from './http/schemas.js'

// The avatar's parts of a player's export (DESIGN §9.4): the edge composes the document's schema from them.
export { AvatarExport } from './http/export-schemas.js'
export { LeagueExport } from './http/league-schemas.js'

export interface AvatarItem {
  type: 'WEAPON' | 'ARMOR' | 'CONSUMABLE'
  name: string
  description: string
  power: number
  effect?: 'HEALTH' | 'MANA' | 'FREEZE'
}

/** What another context may read about an avatar to judge a purchase or a fight. */
export type { AvatarProfile } from './app/avatar-app.js'

export interface AvatarClient {
  /** Makes the avatar a new user starts with; idempotent. */
  provision(input: { avatarId: string; ownerId: string; name: string }): Promise<void>
  /** Undoes a provision (a registration that failed after it): deletes the avatar if it exists. */
  discard(avatarId: string): Promise<void>
  isOwner(avatarId: string, userId: string): Promise<boolean>
  /** The user owning the avatar, or undefined when there is no such avatar. */
  ownerOf(avatarId: string): Promise<string | undefined>
  /** Throws NotFound for an unknown avatar. With `keys`, `taken` says which of those keyed calls it has taken (read with it). */
  profile(avatarId: string, keys?: string[]): Promise<AvatarProfile>
  /** The profiles of those of the avatars that exist, by id, in one read (a guild's members); `taken` empty. */
  profiles(avatarIds: readonly string[]): Promise<Map<string, AvatarProfile>>
  spend(avatarId: string, amount: number, idempotencyKey: string): Promise<void>
  earn(avatarId: string, amount: number, idempotencyKey: string): Promise<void>
  addItem(avatarId: string, item: AvatarItem, idempotencyKey: string): Promise<void>
  /** Takes one item of that name out of the inventory and answers it (`item-equipped` if only equipped). */
  takeItem(avatarId: string, name: string, idempotencyKey: string): Promise<AvatarItem>
  damage(avatarId: string, amount: number, idempotencyKey: string): Promise<{ died: boolean; health: number }>
  /** Every avatar the user owns, oldest first, as exported (DESIGN §9.4). */
  exportOwnedBy(ownerId: string): Promise<AvatarExport[]>
  /** What the weekly leagues keep of the avatar, as exported (empty lists for an unknown one). */
  exportLeague(avatarId: string): Promise<LeagueExport>
  /** What the avatar earned (experience, money) in [from, to), to the avatar's bucket of EARNINGS_BUCKET_MINUTES; nothing for an unknown avatar. */
  earnings(avatarId: string, from: Date, to: Date): Promise<{ experience: number; money: number }>
}

/**
 * The port as a direct call. Each method first checks that no transaction is open here: in one
 * process the call would join it, split it would be an HTTP call under its locks (DESIGN §9.1).
 */
export function inProcessAvatarClient(app: AvatarApp, leagues: LeagueApp, database: Database): AvatarClient {
  return database.outsideTransactions<AvatarClient>('AvatarClient', {
    provision: (input) => app.provision(input),
    discard: (avatarId) => app.delete(SYSTEM, avatarId).catch((e: unknown) => { if (!(e instanceof NotFound)) throw e }),
    isOwner: (avatarId, userId) => app.isOwner(avatarId, userId),
    ownerOf: (avatarId) => app.ownerOf(avatarId),
    profile: (avatarId, keys) => app.profile(avatarId, keys),
    profiles: (avatarIds) => app.profilesOf(avatarIds),
    spend: (avatarId, amount, key) => app.spendMoney(SYSTEM, avatarId, amount, key),
    earn: (avatarId, amount, key) => app.earnMoney(SYSTEM, avatarId, amount, key),
    addItem: (avatarId, item, key) => app.addItem(SYSTEM, avatarId, item, key),
    takeItem: (avatarId, name, key) => app.takeItem(SYSTEM, avatarId, name, key),
    damage: (avatarId, amount, key) => app.damage(SYSTEM, avatarId, amount, key),
    exportOwnedBy: async (ownerId) => (await app.ownedBy(ownerId)).map(avatarExport),
    exportLeague: async (avatarId) => leagueExport(await leagues.exportOf(avatarId)),
    earnings: (avatarId, from, to) => app.earnings(SYSTEM, avatarId, from, to),
  })
}

/**
 * The same port over HTTP, for a context running apart from the avatar service: each call goes
 * to the avatar's public API (`/api/v1/avatars/…`) or, for what only services ask, its internal
 * routes (`/internal/v1/…`), with a short-lived service token, the
 * idempotency key as the `Idempotency-Key` header, a timeout per attempt, and retries only after
 * network failures and 5xx answers. The avatar's refusals come back as the same platform errors.
 */
export function httpAvatarClient(baseUrl: string | (() => string), token: TokenSource, opts: Partial<ServiceClientOptions> = {}): AvatarClient {
  const http = new ServiceClient(baseUrl, token, opts)
  const path = (avatarId: string, rest = '') => `/api/v1/avatars/${encodeURIComponent(avatarId)}${rest}`
  const internalPath = (avatarId: string, rest = '') => `/internal/v1/avatars/${encodeURIComponent(avatarId)}${rest}`
  const ownerOf = async (avatarId: string) => (await http.callOrUndefined<{ userId: string }>({ method: 'GET', path: internalPath(avatarId, '/owner') }))?.userId
  return {
    discard: async (avatarId) => {
      await http.callOrUndefined({ method: 'DELETE', path: path(avatarId) })
    },
    provision: (input) =>
      http.call({ method: 'PUT', path: internalPath(input.avatarId), body: { ownerId: input.ownerId, name: input.name } }),
    ownerOf,
    isOwner: async (avatarId, userId) => (await ownerOf(avatarId)) === userId,
    profile: async (avatarId, keys = []) => {
      const query = keys.length === 0 ? '' : `?${new URLSearchParams(keys.map((k): [string, string] => ['keys', k])).toString()}`
      const profile = await http.callOrUndefined<AvatarProfile>({ method: 'GET', path: internalPath(avatarId, `/profile${query}`) })
      // The port's promise, as in one process: an unknown avatar is NotFound, not the remote's 404 problem.
      if (!profile) throw new NotFound('Avatar', avatarId)
      return profile
    },
    profiles: async (avatarIds) => {
      const unique = [...new Set(avatarIds)]
      const reads = []
      for (let i = 0; i < unique.length; i += PROFILES_MAX) {
        const ids = new URLSearchParams(unique.slice(i, i + PROFILES_MAX).map((id): [string, string] => ['ids', id]))
        reads.push(http.call<{ items: (AvatarProfile & { avatarId: string })[] }>({ method: 'GET', path: `/internal/v1/avatar-profiles?${ids.toString()}` }))
      }
      return new Map((await Promise.all(reads)).flatMap((r) => r.items.map(({ avatarId, ...profile }) => [avatarId, profile] as const)))
    },
    spend: (avatarId, amount, key) => http.call({ method: 'POST', path: path(avatarId, '/money/spend'), body: { amount }, idempotencyKey: key }),
    earn: (avatarId, amount, key) => http.call({ method: 'POST', path: path(avatarId, '/money/earn'), body: { amount }, idempotencyKey: key }),
    addItem: (avatarId, item, key) => http.call({ method: 'POST', path: path(avatarId, '/inventory/items'), body: item, idempotencyKey: key }),
    takeItem: (avatarId, name, key) =>
      http.call<AvatarItem>({ method: 'POST', path: path(avatarId, '/inventory/items/take'), body: { name }, idempotencyKey: key }),
    damage: (avatarId, amount, key) =>
      http.call<{ died: boolean; health: number }>({ method: 'POST', path: path(avatarId, '/health/damage'), body: { amount }, idempotencyKey: key }),
    exportOwnedBy: async (ownerId) => (await http.call<{ items: AvatarExport[] }>({ method: 'GET', path: `/internal/v1/exports/avatars?ownerId=${ownerId}` })).items,
    exportLeague: async (avatarId) =>
      (await http.call<{ league: LeagueExport }>({ method: 'GET', path: `/internal/v1/exports/avatars/${encodeURIComponent(avatarId)}/league` })).league,
    earnings: (avatarId, from, to) => {
      const span = new URLSearchParams({ from: from.toISOString(), to: to.toISOString() })
      return http.call<{ experience: number; money: number }>({ method: 'GET', path: internalPath(avatarId, `/earnings?${span.toString()}`) })
    },
  }
}

// ---- the one ownership check every context makes of an avatar a request names (DESIGN §5) ----

/** An avatar named in a request body or query that does not exist: 400, naming the field (its pointer, `/requestorId`). */
export class UnknownAvatar extends BadRequest {
  constructor(avatarId: string, field: string) {
    super(`No avatar '${avatarId}' exists.`, 'unknown-avatar', [{ path: field, message: 'must name an avatar' }])
  }
}

/** An avatar the caller acts as, or asks about what only its owner may see, is someone else's: 403. */
class NotYourAvatar extends NotOwner {
  constructor(avatarId: string) {
    super(`Avatar '${avatarId}' is not one of your avatars.`)
  }
}

/**
 * Where the request names the avatar: in a field of its body or query, by that field's pointer
 * (`/requestorId`), or as the path's own resource (`path`). A missing avatar is a bad reference
 * (400, naming the field) in the first case and a missing resource (404) in the second.
 */
type Naming = 'path' | `/${string}`

const missing = (avatarId: string, named: Naming) => (named === 'path' ? new NotFound('Avatar', avatarId) : new UnknownAvatar(avatarId, named))

/**
 * The owner of an avatar the caller acts as or asks about privately: refused when there is no such
 * avatar (see `Naming`) or when it is someone else's, unless the caller is trusted (a service or an
 * admin). One read, which may be a call to the avatar service.
 */
export async function requireOwnedAvatar(avatars: AvatarClient, p: Principal, avatarId: string, named: Naming): Promise<string> {
  const owner = await avatars.ownerOf(avatarId)
  if (owner === undefined) throw missing(avatarId, named)
  requireOwner(p, avatarId, owner)
  return owner
}

/** The same check of an avatar whose owner is known already (an avatar's owner never changes): no read. */
export function requireOwner(p: Principal, avatarId: string, ownerId: string): void {
  if (ownerId !== p.userId && !isTrusted(p)) throw new NotYourAvatar(avatarId)
}

/** The profile of an avatar the caller acts as (named by the field `field`), refused as `requireOwnedAvatar` would, in one read. */
export async function requireOwnedProfile(avatars: AvatarClient, p: Principal, avatarId: string, field: `/${string}`): Promise<AvatarProfile> {
  const profile = await avatars.profile(avatarId).catch((e: unknown) => {
    if (e instanceof NotFound) return undefined
    throw e
  })
  if (!profile) throw new UnknownAvatar(avatarId, field)
  requireOwner(p, avatarId, profile.ownerId)
  return profile
}

/** Does the caller own any of these avatars (missing ones are not theirs)? One read. */
export async function ownsAnyOf(avatars: AvatarClient, p: Principal, avatarIds: string[]): Promise<boolean> {
  if (isTrusted(p)) return true
  return [...(await avatars.profiles(avatarIds)).values()].some((profile) => profile.ownerId === p.userId)
}
