import type { Clock } from '../clock.js'
import { SYSTEM } from './principal.js'
import type { AccessTokens, IssuedToken } from './tokens.js'

/** Answers a live access token each time it is asked; callers send it as a bearer token. */
export type TokenSource = () => Promise<string>

/** Service tokens are short-lived: a leaked one is worth little. */
const SERVICE_TOKEN_TTL_SECONDS = 300
/** A cached token is renewed this long before it expires, so none expires in flight. */
const RENEW_BEFORE_SECONDS = 60

/**
 * Service tokens (role `service`) for one process's calls to another service's API, minted with
 * the process's own signing key and renewed before they expire. The subject is the platform's
 * own principal: the token acts for the platform, never for a player.
 */
export function serviceTokenSource(tokens: AccessTokens, clock: Clock): TokenSource {
  let current: Promise<IssuedToken> | undefined
  return async () => {
    const nowSeconds = clock.now().getTime() / 1000
    const held = current && (await current.catch(() => undefined))
    if (held && held.expiresAt - RENEW_BEFORE_SECONDS > nowSeconds) return held.token
    current = tokens.issue(SYSTEM.userId, 'service', SERVICE_TOKEN_TTL_SECONDS)
    return (await current).token
  }
}
