import { hash, verify } from '@node-rs/argon2'
import type { Config } from '../../../config.js'
import type { Principal, Role } from '../../../platform/auth/principal.js'
import type { RevocationList } from '../../../platform/auth/revocations.js'
import type { AccessTokens } from '../../../platform/auth/tokens.js'
import type { Clock } from '../../../platform/clock.js'
import type { Database, Tx } from '../../../platform/db/database.js'
import type { Outbox } from '../../../platform/events/outbox.js'
import { newId, newSecret } from '../../../platform/ids.js'
import type { AvatarClient } from '../../avatar/client.js'
import { EmailTaken, InvalidCredentials, InvalidRefreshToken, LoginThrottled } from '../domain/errors.js'
import { type FailureLimit, retryAfterMs } from '../domain/login-throttle.js'
import { judgeRefresh } from '../domain/refresh-token.js'
import { ARGON2, normalizeEmail } from '../domain/rules.js'
import { loginFailureRepo, refreshTokenRepo, userRepo } from '../store/repositories.js'

export interface IdentityDeps {
  database: Database
  outbox: Outbox
  clock: Clock
  tokens: AccessTokens
  revocations: RevocationList
  avatars: AvatarClient
  config: Pick<Config, 'refreshTokenTtlSeconds' | 'accessTokenTtlSeconds' | 'loginMaxFailuresPerEmail' |
    'loginMaxFailuresPerAddress' | 'loginFailureWindowSeconds'>
}

export interface Session {
  token: string
  userId: string
  refreshToken: string
  expiresIn: number
}

/** The edge's use cases: accounts, logins and the tokens that prove them. */
export class IdentityApp {
  private readonly emailLimit: FailureLimit
  private readonly addressLimit: FailureLimit
  private readonly failureWindowMs: number
  /** Verified against when the email is unknown, so both paths take the same time. */
  private decoyHash: Promise<string> | undefined

  constructor(private readonly d: IdentityDeps) {
    const windowMs = d.config.loginFailureWindowSeconds * 1000
    this.failureWindowMs = windowMs
    this.emailLimit = { maxFailures: d.config.loginMaxFailuresPerEmail, windowMs }
    this.addressLimit = { maxFailures: d.config.loginMaxFailuresPerAddress, windowMs }
  }

  /** The user and their first avatar (id = user id) are made together or not at all. */
  async register(input: { name: string; email: string; password: string }): Promise<Session> {
    const email = normalizeEmail(input.email)
    const name = input.name.trim()
    const passwordHash = await hash(input.password, ARGON2)
    const userId = newId()
    const now = this.d.clock.now()
    let provisioned = false
    try {
      return await this.d.database.transaction(async (tx) => {
        if (!(await userRepo.insert(tx, { id: userId, email, name, passwordHash, role: 'player', createdAt: now }))) {
          throw new EmailTaken()
        }
        provisioned = true
        await this.d.avatars.provision({ avatarId: userId, ownerId: userId, name })
        await this.d.outbox.add(tx, [{ type: 'UserRegistered', aggregateId: userId, version: 1, payload: { userId, name } }])
        return this.startSession(tx, userId, 'player', newId())
      })
    } catch (e) {
      // In one process the avatar rolled back with the user; a separate avatar service may have
      // made it (even if its answer was lost): take it back, so neither exists.
      if (provisioned) await this.d.avatars.discard(userId).catch(() => undefined)
      throw e
    }
  }

  async login(input: { email: string; password: string }, clientAddress: string): Promise<Session> {
    const email = normalizeEmail(input.email)
    const now = this.d.clock.now()
    const keys = { email: `email:${email}`, address: `address:${clientAddress}` }
    const earlierFailures = await this.refuseWhileThrottled(keys, now)

    const user = await userRepo.findByEmail(this.d.database.db, email)
    const valid = user
      ? await verify(user.passwordHash, input.password)
      : (await verify(await this.decoy(), input.password), false)
    if (!user || !valid) {
      await loginFailureRepo.record(this.d.database.db, [keys.email, keys.address], now, this.windowStart(now))
      throw new InvalidCredentials()
    }
    if (earlierFailures.has(keys.email)) await loginFailureRepo.forget(this.d.database.db, keys.email)
    return this.d.database.transaction((tx) => this.startSession(tx, user.id, user.role as Role, newId()))
  }

  /** Failures are counted in the database, so every edge process throttles alike. Answers those that count. */
  private async refuseWhileThrottled(keys: { email: string; address: string }, now: Date): Promise<Map<string, number[]>> {
    const failures = await loginFailureRepo.timesSince(this.d.database.db, [keys.email, keys.address], this.windowStart(now))
    const wait = Math.max(
      retryAfterMs(failures.get(keys.email) ?? [], this.emailLimit, now.getTime()),
      retryAfterMs(failures.get(keys.address) ?? [], this.addressLimit, now.getTime()),
    )
    if (wait > 0) throw new LoginThrottled(Math.ceil(wait / 1000))
    return failures
  }

  /** Failures at or before this no longer count. */
  private windowStart(now: Date): Date {
    return new Date(now.getTime() - this.failureWindowMs)
  }

  /** Spends the refresh token for a new pair; a spent token shown again revokes its family. */
  async refresh(refreshToken: string): Promise<Session> {
    const now = this.d.clock.now()
    // The family's revocation must commit even though the answer is an error, so the verdict
    // leaves the transaction as a value and is thrown after it.
    const outcome = await this.d.database.transaction(async (tx): Promise<{ error: string } | { session: Session }> => {
      const row = await refreshTokenRepo.findForUpdate(tx, refreshToken)
      if (!row) return { error: 'unknown' }
      const verdict = judgeRefresh(row, now)
      if (verdict === 'reused') {
        await refreshTokenRepo.revokeFamily(tx, row.familyId, now)
        return { error: 'already used (its whole session has been revoked as a precaution)' }
      }
      if (verdict !== 'rotate') return { error: verdict }
      const user = await userRepo.findById(tx, row.userId)
      if (!user) return { error: 'for an account that no longer exists' }
      await refreshTokenRepo.markSpent(tx, row.id, now)
      return { session: await this.startSession(tx, user.id, user.role as Role, row.familyId) }
    })
    if ('error' in outcome) throw new InvalidRefreshToken(outcome.error)
    return outcome.session
  }

  /** Ends the session: its refresh family is revoked and the access token refused until it expires. */
  async logout(p: Principal, refreshToken: string): Promise<void> {
    const now = this.d.clock.now()
    await this.d.database.transaction(async (tx) => {
      const row = await refreshTokenRepo.findForUpdate(tx, refreshToken)
      if (row && row.userId === p.userId) await refreshTokenRepo.revokeFamily(tx, row.familyId, now)
      await this.d.revocations.revoke(p.tokenId, p.expiresAt)
    })
  }

  async validate(token: string | undefined): Promise<boolean> {
    return token !== undefined && (await this.d.tokens.verify(token)) !== null
  }

  private async startSession(tx: Tx, userId: string, role: Role, familyId: string): Promise<Session> {
    const now = this.d.clock.now()
    const access = await this.d.tokens.issue(userId, role)
    const refreshToken = newSecret()
    await refreshTokenRepo.insert(tx, {
      id: newId(),
      familyId,
      userId,
      token: refreshToken,
      expiresAt: new Date(now.getTime() + this.d.config.refreshTokenTtlSeconds * 1000),
      createdAt: now,
    })
    return { token: access.token, userId, refreshToken, expiresIn: this.d.config.accessTokenTtlSeconds }
  }

  private decoy(): Promise<string> {
    this.decoyHash ??= hash(newSecret(), ARGON2)
    return this.decoyHash
  }
}
