/**
 * The rules that the tracking context's operations share (DESIGN §5, habits), as their OpenAPI
 * descriptions state them: written once, so every operation states them alike.
 */

/** Habits (with their history) are private to the owner of their avatar. */
export const HABIT_PRIVATE = "Habits are private: only the owner of the habit's avatar (or a service or admin token) may read or " +
  'change it, 403 `not-owner` otherwise; an unknown habit is 404 `not-found`.'

/** An avatar named by the path, which only its owner may ask about. */
export const AVATAR_OWNER_ONLY = "Only the avatar's owner (or a service or admin token): 403 `not-owner` otherwise; an unknown " +
  'avatar is 404 `not-found`.'

/** An avatar named by a field of the body or the query, which must be the caller's. */
export const ownedAvatarIn = (field: string) =>
  `\`${field}\` must name an avatar the caller owns: 400 \`unknown-avatar\` when there is none, 403 \`not-owner\` when it is another player's.`

export const SERVICES_ONLY = 'Services only: a player token is 403 `service-only`.'
