import { isTrusted, type Principal } from '../../../platform/auth/principal.js'
import type { AvatarClient } from '../../avatar/client.js'
import { NotOwner } from '../domain/errors.js'

/** An acting-avatar field must name an avatar the caller owns (DESIGN §5), before any role check. */
export async function requireOwnedAvatar(avatars: AvatarClient, p: Principal, avatarId: string): Promise<void> {
  if (isTrusted(p) || (await avatars.isOwner(avatarId, p.userId))) return
  throw new NotOwner(`Avatar '${avatarId}' is not one of your avatars.`)
}

/** Does the caller own any of these avatars? Asked all at once: each may be a call to another service. */
export async function ownsAnyOf(avatars: AvatarClient, p: Principal, avatarIds: string[]): Promise<boolean> {
  if (isTrusted(p)) return true
  return (await Promise.all(avatarIds.map((id) => avatars.isOwner(id, p.userId)))).some(Boolean)
}
