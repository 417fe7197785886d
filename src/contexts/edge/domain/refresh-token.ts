export interface RefreshTokenState {
  expiresAt: Date
  spentAt: Date | null
  revokedAt: Date | null
}

/**
 * What presenting a refresh token means. A spent one shown again is taken as theft: the
 * whole family (every token descended from that login) is revoked.
 */
type RefreshVerdict = 'rotate' | 'expired' | 'revoked' | 'reused'

export function judgeRefresh(t: RefreshTokenState, now: Date): RefreshVerdict {
  if (t.revokedAt) return 'revoked'
  if (t.spentAt) return 'reused'
  if (t.expiresAt.getTime() <= now.getTime()) return 'expired'
  return 'rotate'
}
