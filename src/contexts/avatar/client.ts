/**
 * The port other contexts use to ask the avatar context for something. The adapter is picked
 * at start-up: in-process here; an HTTP adapter joins it when contexts run as separate services.
 */
import type { AvatarApp } from './app/avatar-app.js'

export interface AvatarClient {
  /** Makes the avatar a new user starts with; idempotent. */
  provision(input: { avatarId: string; ownerId: string; name: string }): Promise<void>
  isOwner(avatarId: string, userId: string): Promise<boolean>
  /** The user owning the avatar, or undefined when there is no such avatar. */
  ownerOf(avatarId: string): Promise<string | undefined>
}

export const inProcessAvatarClient = (app: AvatarApp): AvatarClient => ({
  provision: (input) => app.provision(input),
  isOwner: (avatarId, userId) => app.isOwner(avatarId, userId),
  ownerOf: (avatarId) => app.ownerOf(avatarId),
})
