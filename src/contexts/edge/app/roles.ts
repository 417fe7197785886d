import type { RevocationList } from '../../../platform/auth/revocations.js'
import type { Clock } from '../../../platform/clock.js'
import type { Database } from '../../../platform/db/database.js'
import { NotFound } from '../../../platform/errors.js'
import { normalizeEmail } from '../domain/rules.js'
import { refreshTokenRepo, userRepo } from '../store/repositories.js'

interface RoleDeps {
  database: Database
  clock: Clock
  revocations: RevocationList
  /** How long an access token issued before a demotion could still live. */
  accessTokenTtlSeconds: number
}

export type OperatorRole = 'admin' | 'player'

/**
 * Operators make and unmake admins (`questline admin grant|revoke EMAIL`). A grant takes effect at
 * the user's next login or refresh. A revoke takes effect at once: every session of the user ends
 * and every access token issued before it is refused, in every process once the command answers.
 */
export async function changeRole(d: RoleDeps, email: string, role: OperatorRole): Promise<{ userId: string; email: string; role: OperatorRole }> {
  const address = normalizeEmail(email)
  const changed = await d.database.transaction(async (tx) => {
    const userId = await userRepo.setRole(tx, address, role)
    if (!userId) throw new NotFound('User with email', address)
    if (role === 'player') {
      await refreshTokenRepo.revokeAllOf(tx, userId, d.clock.now())
      await d.revocations.revokeAllOf(userId, d.accessTokenTtlSeconds)
    }
    return { userId, email: address, role }
  })
  if (role === 'player') await d.revocations.inForceEverywhere()
  return changed
}
