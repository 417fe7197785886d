/**
 * Access-token ids refused until they expire (logout). Kept in memory for speed on every
 * request; the identity context persists them and reloads them at start.
 */
export class RevocationList {
  private readonly revoked = new Map<string, number>()

  revoke(tokenId: string, expiresAt: number, nowSeconds: number): void {
    this.revoked.set(tokenId, expiresAt)
    for (const [id, exp] of this.revoked) if (exp <= nowSeconds) this.revoked.delete(id)
  }

  isRevoked(tokenId: string): boolean {
    return this.revoked.has(tokenId)
  }
}
