import { KeyRing } from '../../src/platform/auth/key-ring.js'
import { AccessTokens } from '../../src/platform/auth/tokens.js'
import { systemClock } from '../../src/platform/clock.js'

/** Tokens signed with the key (a private JWK, as JWT_PRIVATE_KEY holds it), or unset with a fresh one. */
export async function tokensSignedWith(jwk: string | undefined): Promise<AccessTokens> {
  return new AccessTokens(await KeyRing.configured(jwk), { issuer: 'questline', audience: 'questline', ttlSeconds: 3600 }, systemClock, { isRevoked: () => false })
}
