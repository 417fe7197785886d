import { type CryptoKey, type FlattenedJWSInput, type JWTHeaderParameters, SignJWT, createRemoteJWKSet, errors as joseErrors, jwtVerify } from 'jose'
import type { Clock } from '../clock.js'
import { ServiceUnavailable } from '../errors.js'
import { newId } from '../ids.js'
import type { KeyRing } from './key-ring.js'
import { SIGNING_ALG } from './keys.js'
import { ROLES, type Principal, type Role } from './principal.js'
import type { RevocationCheck } from './revocations.js'
import { BoundedMap } from '../bounded-map.js'

interface TokenSettings {
  issuer: string
  audience: string
  ttlSeconds: number
  /**
   * The edge's published keys (`…/auth/jwks.json`, split services): tokens signed with a key the
   * ring does not hold (a gateway configured with another key) are verified against them.
   */
  jwksUrl?: string | undefined
}

export interface IssuedToken {
  token: string
  tokenId: string
  expiresAt: number
}

/** Verified tokens kept to skip the signature check on the next request with the same token. */
const VERIFIED_CACHE_SIZE = 10_000
/** A fetch of the edge's JWKS is abandoned after this long (the request then answers 503). */
const JWKS_TIMEOUT_MS = 2000

type RemoteKeys = ReturnType<typeof createRemoteJWKSet>

/**
 * Signs and verifies EdDSA access tokens. Verification needs only public keys: the ring's (the
 * current and previous keys), and with `jwksUrl` the edge's, fetched when first needed and cached by jose (refetched at most
 * every 30 s for a key it does not know, and after 10 minutes).
 */
export class AccessTokens {
  private readonly verified = new BoundedMap<string, Principal & { issuedAt: number }>(VERIFIED_CACHE_SIZE)
  private readonly edgeKeys: RemoteKeys | undefined

  constructor(
    private readonly keys: KeyRing,
    private readonly settings: TokenSettings,
    private readonly clock: Clock,
    private readonly revocations: RevocationCheck,
  ) {
    this.edgeKeys = settings.jwksUrl ? createRemoteJWKSet(new URL(settings.jwksUrl), { timeoutDuration: JWKS_TIMEOUT_MS }) : undefined
  }

  get publicJwks() {
    return this.keys.jwks
  }

  /** Whether this process holds a private key (it issues tokens); those that only verify do not. */
  get canSign(): boolean {
    return this.keys.canSign
  }

  /** A token for the user and role; `ttlSeconds` shortens it (service tokens), else the configured lifetime. */
  async issue(userId: string, role: Role, ttlSeconds = this.settings.ttlSeconds): Promise<IssuedToken> {
    const iat = Math.floor(this.clock.now().getTime() / 1000)
    const expiresAt = iat + ttlSeconds
    const tokenId = newId()
    const key = this.keys.signing()
    const token = await new SignJWT({ role })
      .setProtectedHeader({ alg: SIGNING_ALG, kid: key.kid, typ: 'JWT' })
      .setSubject(userId)
      .setIssuer(this.settings.issuer)
      .setAudience(this.settings.audience)
      .setIssuedAt(iat)
      .setExpirationTime(expiresAt)
      .setJti(tokenId)
      .sign(key.privateKey)
    return { token, tokenId, expiresAt }
  }

  /**
   * The principal a token proves, or null for any token that is not a valid, live access token.
   * A signature checked once is remembered (bounded); expiry and revocation are checked every time.
   */
  async verify(token: string): Promise<Principal | null> {
    const behind = this.revocations.current?.()
    if (behind) await behind
    const known = this.verified.get(token)
    if (known) {
      if (known.expiresAt > this.clock.now().getTime() / 1000 && !this.revocations.isRevoked(known.tokenId, known)) return known
      this.verified.delete(token)
      return null
    }
    const principal = await this.verifySignature(token)
    if (principal) this.verified.set(token, principal)
    return principal
  }

  private async verifySignature(token: string): Promise<(Principal & { issuedAt: number }) | null> {
    try {
      const { payload } = await jwtVerify(token, (header, jws) => this.keyFor(header, jws), {
        algorithms: [SIGNING_ALG],
        issuer: this.settings.issuer,
        audience: this.settings.audience,
        currentDate: this.clock.now(),
        requiredClaims: ['sub', 'jti', 'exp', 'iat'],
      })
      const role = payload.role as Role
      if (!ROLES.includes(role) || !payload.sub || !payload.jti || payload.exp === undefined || payload.iat === undefined) return null
      const principal = { userId: payload.sub, role, tokenId: payload.jti, expiresAt: payload.exp, issuedAt: payload.iat }
      return this.revocations.isRevoked(payload.jti, principal) ? null : principal
    } catch (e) {
      if (e instanceof joseErrors.JOSEError || e instanceof TypeError) return null
      throw e
    }
  }

  /** A key of the ring (looked up again for a kid it does not know), else the edge's. */
  private async keyFor(header: JWTHeaderParameters, jws: FlattenedJWSInput): Promise<CryptoKey> {
    const own = await this.ringKey(header.kid)
    if (own) return own
    // A kid neither the ring nor the edge knows: the token is invalid (401).
    if (!this.edgeKeys) throw new joseErrors.JWKSNoMatchingKey()
    try {
      return await this.edgeKeys(header, jws)
    } catch (e) {
      if (e instanceof joseErrors.JWKSNoMatchingKey || e instanceof joseErrors.JWKSMultipleMatchingKeys) throw e
      // The keys cannot be read: the token may well be good, so this is no 401.
      throw new ServiceUnavailable(`The edge's public keys (JWKS_URL) cannot be read: ${describe(e)}`)
    }
  }

  private async ringKey(kid: string | undefined): Promise<CryptoKey | undefined> {
    try {
      return await this.keys.verifying(kid)
    } catch (e) {
      // The stored keys cannot be read: the token may well be good, so this is no 401.
      throw new ServiceUnavailable(`The signing keys cannot be read from the database: ${describe(e)}`)
    }
  }
}

function describe(e: unknown): string {
  const cause = (e as { cause?: { code?: string } }).cause
  return cause?.code ?? (e instanceof Error ? e.message : String(e))
}
