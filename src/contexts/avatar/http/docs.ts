/**
 * The rules that the avatar context's operations share (DESIGN §5), as their OpenAPI descriptions
 * state them: written once, so every operation states them alike.
 */

export const READABLE = 'Any signed-in player may read any avatar; an unknown one is 404 `not-found`.'

export const OWNER_ONLY = "Only the avatar's owner (or a service or admin token) may change it: 403 `not-owner` otherwise; " +
  'an unknown avatar is 404 `not-found`.'

/** The calls that mint value (DESIGN §5, economy mode). */
export const MINTS = 'It mints value: on a server with an authoritative economy (`ECONOMY_MODE=authoritative`) players get 403 ' +
  '`economy-authoritative`, and only service and admin tokens may call it.'

/** The calls that take an `Idempotency-Key` header. */
export const KEYED = 'With an `Idempotency-Key` a retry is applied once and answers as the first call did; the key reused for another ' +
  'call is 409 `idempotency-key-reused`.'
