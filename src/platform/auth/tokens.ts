import { SignJWT, errors as joseErrors, jwtVerify } from 'jose'
import type { Clock } from '../clock.js'
import { newId } from '../ids.js'
import { SIGNING_ALG, type SigningKeys } from './keys.js'
import { ROLES, type Principal, type Role } from './principal.js'
import type { RevocationCheck } from './revocations.js'

export interface TokenSettings {
  issuer: string
  audience: string
  ttlSeconds: number
}

export interface IssuedToken {
  token: string
  tokenId: string
  expiresAt: number
}

/** Verified tokens kept to skip the signature check on the next request with the same token. */
const VERIFIED_CACHE_SIZE = 10_000

/** Signs and verifies EdDSA access tokens. Verification needs only the public key. */
export class AccessTokens {
  private readonly verified = new Map<string, Principal>()

  constructor(
    private readonly keys: SigningKeys,
    private readonly settings: TokenSettings,
    private readonly clock: Clock,
    private readonly revocations: RevocationCheck,
  ) {}

  get publicJwks() {
    return { keys: [this.keys.publicJwk] }
  }

  /** A token for the user and role; `ttlSeconds` shortens it (service tokens), else the configured lifetime. */
  async issue(userId: string, role: Role, ttlSeconds = this.settings.ttlSeconds): Promise<IssuedToken> {
    const iat = Math.floor(this.clock.now().getTime() / 1000)
    const expiresAt = iat + ttlSeconds
    const tokenId = newId()
    const token = await new SignJWT({ role })
      .setProtectedHeader({ alg: SIGNING_ALG, kid: this.keys.kid, typ: 'JWT' })
      .setSubject(userId)
      .setIssuer(this.settings.issuer)
      .setAudience(this.settings.audience)
      .setIssuedAt(iat)
      .setExpirationTime(expiresAt)
      .setJti(tokenId)
      .sign(this.keys.privateKey)
    return { token, tokenId, expiresAt }
  }

  /**
   * The principal a token proves, or null for any token that is not a valid, live access token.
   * A signature checked once is remembered (bounded); expiry and revocation are checked every time.
   */
  async verify(token: string): Promise<Principal | null> {
    const known = this.verified.get(token)
    if (known) {
      if (known.expiresAt > this.clock.now().getTime() / 1000 && !this.revocations.isRevoked(known.tokenId)) return known
      this.verified.delete(token)
      return null
    }
    const principal = await this.verifySignature(token)
    if (principal) {
      if (this.verified.size >= VERIFIED_CACHE_SIZE) this.verified.delete(this.verified.keys().next().value!)
      this.verified.set(token, principal)
    }
    return principal
  }

  private async verifySignature(token: string): Promise<Principal | null> {
    try {
      const { payload } = await jwtVerify(token, this.keys.publicKey, {
        algorithms: [SIGNING_ALG],
        issuer: this.settings.issuer,
        audience: this.settings.audience,
        currentDate: this.clock.now(),
        requiredClaims: ['sub', 'jti', 'exp', 'iat'],
      })
      const role = payload.role as Role
      if (!ROLES.includes(role) || !payload.sub || !payload.jti || payload.exp === undefined) return null
      if (this.revocations.isRevoked(payload.jti)) return null
      return { userId: payload.sub, role, tokenId: payload.jti, expiresAt: payload.exp }
    } catch (e) {
      if (e instanceof joseErrors.JOSEError || e instanceof TypeError) return null
      throw e
    }
  }
}
