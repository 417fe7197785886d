import { isTrusted, type Principal } from '../../../platform/auth/principal.js'
import { Forbidden } from '../../../platform/errors.js'
import type { AvatarClient } from '../../avatar/client.js'

/** An acting-avatar field must name an avatar the caller owns (DESIGN §5), before any role check. */
export async function requireOwnedAvatar(avatars: AvatarClient, p: Principal, avatarId: string): Promise<void> {
  if (isTrusted(p) || (await avatars.isOwner(avatarId, p.userId))) return
  throw new Forbidden(`Avatar '${avatarId}' is not one of your avatars.`, 'not-owner')
}

/** Does the caller own any of these avatars? */
export async function ownsAnyOf(avatars: AvatarClient, p: Principal, avatarIds: string[]): Promise<boolean> {
  if (isTrusted(p)) return true
  for (const id of avatarIds) if (await avatars.isOwner(id, p.userId)) return true
  return false
}
