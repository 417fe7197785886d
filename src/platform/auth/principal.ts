import { Forbidden } from '../errors.js'

export const ROLES = ['player', 'admin', 'service'] as const
export type Role = (typeof ROLES)[number]

/** Who is calling, as proven by a verified access token. */
export interface Principal {
  userId: string
  role: Role
  /** The token's `jti`, so logout can refuse it until it expires. */
  tokenId: string
  /** Expiry, seconds since the epoch. */
  expiresAt: number
  /**
   * When the token was issued, seconds since the epoch (a token's `iat`): what an account-wide
   * revocation (a role change, the account deleted) is judged by. Absent for SYSTEM.
   */
  issuedAt?: number
}

/** Service and admin tokens act for the platform itself, not for one player. */
export const isTrusted = (p: Principal): boolean => p.role === 'service' || p.role === 'admin'

/** The platform acting on its own behalf: event consumers and jobs. Never issued as a token. */
export const SYSTEM: Principal = { userId: '00000000-0000-0000-0000-000000000000', role: 'service', tokenId: 'system', expiresAt: Number.MAX_SAFE_INTEGER }

/** Routes only other services call (split services) refuse players. */
export function requireTrusted(p: Principal, detail: string): void {
  if (!isTrusted(p)) throw new Forbidden(detail, 'service-only')
}
