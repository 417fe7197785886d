import { isTrusted, type Principal } from '../../../platform/auth/principal.js'
import { NotFound } from '../../../platform/errors.js'
import type { AvatarClient, AvatarProfile } from '../../avatar/client.js'
import { NotOwner } from '../domain/errors.js'

/** An acting-avatar field must name an avatar the caller owns (DESIGN §5), before any role check. */
export async function requireOwnedAvatar(avatars: AvatarClient, p: Principal, avatarId: string): Promise<void> {
  if (isTrusted(p) || (await avatars.isOwner(avatarId, p.userId))) return
  throw notOwned(avatarId)
}

const notOwned = (avatarId: string) => new NotOwner(`Avatar '${avatarId}' is not one of your avatars.`)

/**
 * The profile of an avatar the caller acts as, in one read: a missing avatar, or one the caller
 * does not own, is refused as `requireOwnedAvatar` would.
 */
export async function ownedProfile(avatars: AvatarClient, p: Principal, avatarId: string): Promise<AvatarProfile> {
  const profile = await avatars.profile(avatarId).catch((e: unknown) => {
    if (e instanceof NotFound) return undefined
    throw e
  })
  if (profile && (isTrusted(p) || profile.ownerId === p.userId)) return profile
  throw notOwned(avatarId)
}

/** Does the caller own any of these avatars? Asked all at once: each may be a call to another service. */
export async function ownsAnyOf(avatars: AvatarClient, p: Principal, avatarIds: string[]): Promise<boolean> {
  if (isTrusted(p)) return true
  return (await Promise.all(avatarIds.map((id) => avatars.isOwner(id, p.userId)))).some(Boolean)
}
