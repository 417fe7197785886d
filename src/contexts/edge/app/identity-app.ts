import { hash, verify } from '@node-rs/argon2'
import type { Config } from '../../../config.js'
import type { EdgeDraft } from '../../../contracts/events/edge.js'
import type { Principal, Role } from '../../../platform/auth/principal.js'
import type { RevocationList } from '../../../platform/auth/revocations.js'
import type { AccessTokens } from '../../../platform/auth/tokens.js'
import type { Clock } from '../../../platform/clock.js'
import type { Database, Tx } from '../../../platform/db/database.js'
import { AppError } from '../../../platform/errors.js'
import type { Outbox } from '../../../platform/events/outbox.js'
import { newId, newSecret } from '../../../platform/ids.js'
import { inBatches } from '../../../platform/jobs/batches.js'
import type { AvatarClient } from '../../avatar/client.js'
import { AccountGone, AvatarUnavailable, EmailTaken, InvalidCredentials, InvalidRefreshToken, LoginThrottled, WrongPassword } from '../domain/errors.js'
import { type FailureLimit, retryAfterMs } from '../domain/login-throttle.js'
import { judgeRefresh } from '../domain/refresh-token.js'
import { canLogIn } from '../domain/registration.js'
import { ACCOUNT_DELETED_VERSION, ARGON2, normalizeEmail, REGISTRATION_LEASE_MS, REGISTRATION_RECOVERY_BATCH } from '../domain/rules.js'
import { loginFailureRepo, refreshTokenRepo, registrationRepo, userRepo } from '../store/repositories.js'

export interface IdentityDeps {
  database: Database
  outbox: Outbox<EdgeDraft>
  clock: Clock
  tokens: AccessTokens
  revocations: RevocationList
  avatars: AvatarClient
  config: Pick<Config, 'refreshTokenTtlSeconds' | 'accessTokenTtlSeconds' | 'loginMaxFailuresPerEmail' |
    'loginMaxFailuresPerAddress' | 'loginFailureWindowSeconds'>
}

interface Session {
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

  /**
   * The user and their first avatar (id = user id) are made both or neither (DESIGN §5). The user
   * is committed PENDING with its registration's log row; the avatar is provisioned after commit
   * (idempotent by its id); then the user is activated and the session answered. When
   * provisioning fails, the registration is undone: the avatar discarded (in case it was made
   * after all) and the user deleted, freeing the email. What cannot be undone now stays recorded
   * for the recovery job. Until then the email is taken (409) and the user cannot log in.
   */
  async register(input: { name: string; email: string; password: string }): Promise<Session> {
    const email = normalizeEmail(input.email)
    const name = input.name.trim()
    const passwordHash = await hash(input.password, ARGON2)
    const userId = newId()
    await this.d.database.transaction(async (tx) => {
      const now = this.d.clock.now()
      if (!(await userRepo.insert(tx, { id: userId, email, name, passwordHash, role: 'player', createdAt: now, status: 'PENDING' }))) {
        throw new EmailTaken()
      }
      await registrationRepo.begin(tx, userId, now, this.leaseFrom(now))
    })
    try {
      await this.d.avatars.provision({ avatarId: userId, ownerId: userId, name })
    } catch (e) {
      const undone = await this.turnAround(userId, describe(e))
      // A refusal settles that nothing was made: the client hears it. Anything else is the partner failing.
      throw isRefusal(e) ? e : new AvatarUnavailable(undone)
    }
    let session: Session | undefined
    try {
      session = await this.d.database.transaction(async (tx) => {
        if (!(await registrationRepo.complete(tx, userId, this.d.clock.now()))) return undefined
        await userRepo.activate(tx, userId)
        await this.d.outbox.add(tx, [{ type: 'UserRegistered', aggregateId: userId, version: 1, payload: { userId, name } }])
        return this.startSession(tx, userId, 'player', newId())
      })
    } catch (e) {
      // The avatar exists but the account could not be completed: neither is kept.
      await this.turnAround(userId, describe(e))
      throw e
    }
    // The request outlived its lease and the recovery job is undoing the registration.
    if (!session) throw new AvatarUnavailable(false)
    return session
  }

  /**
   * The recovery job: registrations whose lease ran out unfinished (their request died, or undoing
   * them failed) are undone. Answers how many were; throws when some could not be yet (they are
   * tried again once their lease runs out).
   */
  async recoverRegistrations(): Promise<number> {
    let undone = 0
    let failed = 0
    await inBatches(REGISTRATION_RECOVERY_BATCH, async () => {
      const now = this.d.clock.now()
      const claimed = await this.d.database.transaction((tx) =>
        registrationRepo.claimAbandoned(tx, now, this.leaseFrom(now), REGISTRATION_RECOVERY_BATCH))
      for (const userId of claimed) {
        if (await this.undo(userId)) undone++
        else failed++
      }
      return claimed.length
    })
    if (failed > 0) throw new Error(`${failed} of ${undone + failed} abandoned registrations could not be undone yet; they stay recorded and are tried again.`)
    return undone
  }

  /** Turns the registration around and undoes it; answers whether it is undone now. */
  private async turnAround(userId: string, failure: string): Promise<boolean> {
    const now = this.d.clock.now()
    const mine = await this.d.database.transaction((tx) => registrationRepo.turnAround(tx, userId, failure, now, this.leaseFrom(now)))
    // Taken over by the recovery job (the request outlived its lease): the job undoes it.
    if (!mine) return false
    return this.undo(userId)
  }

  /**
   * The compensation of a registration in COMPENSATING, leased to the caller: the avatar is
   * discarded, then the user deleted. A discard that fails is recorded; the registration stays
   * COMPENSATING for the recovery job once the lease runs out. Answers whether it is undone.
   */
  private async undo(userId: string): Promise<boolean> {
    try {
      await this.d.avatars.discard(userId)
    } catch (e) {
      await this.d.database.transaction((tx) => registrationRepo.compensationFailed(tx, userId, describe(e), this.d.clock.now()))
      return false
    }
    await this.d.database.transaction(async (tx) => {
      await userRepo.deletePending(tx, userId)
      await registrationRepo.compensated(tx, userId, this.d.clock.now())
    })
    return true
  }

  private leaseFrom(now: Date): Date {
    return new Date(now.getTime() + REGISTRATION_LEASE_MS)
  }

  async login(input: { email: string; password: string }, clientAddress: string): Promise<Session> {
    const email = normalizeEmail(input.email)
    const now = this.d.clock.now()
    const keys = { email: emailKey(email), address: `address:${clientAddress}` }
    const earlierFailures = await this.refuseWhileThrottled([[keys.email, this.emailLimit], [keys.address, this.addressLimit]], now)

    const found = await userRepo.findByEmail(this.d.database.db, email)
    // A user whose registration is not complete has no account yet.
    const user = found && canLogIn(found.status) ? found : undefined
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

  /**
   * Deletes the account (DESIGN §9.4) once its password is proven again. The user, its sessions
   * and what the edge keeps of it go in one transaction with `AccountDeleted` (the avatar context
   * then deletes its avatars, which cascades as deleting each would), and every access token of
   * the user is refused from that commit. A wrong password counts as a failed login of the
   * account's email (not of the client's address: the token already names the one account tried),
   * so a stolen token guesses no faster than a login would. Any role may delete its own account;
   * a registration not yet complete has no token, so its saga is never cut short here.
   */
  async deleteAccount(p: Principal, password: string): Promise<void> {
    const user = await userRepo.findById(this.d.database.db, p.userId)
    if (!user || !canLogIn(user.status)) throw new AccountGone()
    const now = this.d.clock.now()
    const key = emailKey(user.email)
    await this.refuseWhileThrottled([[key, this.emailLimit]], now)
    if (!(await verify(user.passwordHash, password))) {
      await loginFailureRepo.record(this.d.database.db, [key], now, this.windowStart(now))
      throw new WrongPassword()
    }
    await this.d.database.transaction(async (tx) => {
      // A concurrent deletion of the same account got there first.
      if (!(await userRepo.deleteActive(tx, user.id))) throw new AccountGone()
      await refreshTokenRepo.deleteAllOf(tx, user.id)
      await registrationRepo.deleteSettledOf(tx, user.id)
      await loginFailureRepo.forget(tx, key)
      await this.d.outbox.add(tx, [{ type: 'AccountDeleted', aggregateId: user.id, version: ACCOUNT_DELETED_VERSION, payload: { userId: user.id } }])
      await this.d.revocations.revokeDeletedAccount(user.id, this.d.config.accessTokenTtlSeconds)
    })
    await this.d.revocations.inForceEverywhere()
  }

  /** Failures are counted in the database, so every edge process throttles alike. Answers those that count. */
  private async refuseWhileThrottled(limits: [key: string, limit: FailureLimit][], now: Date): Promise<Map<string, number[]>> {
    const failures = await loginFailureRepo.timesSince(this.d.database.db, limits.map(([key]) => key), this.windowStart(now))
    const wait = Math.max(...limits.map(([key, limit]) => retryAfterMs(failures.get(key) ?? [], limit, now.getTime())))
    if (wait > 0) throw new LoginThrottled(Math.ceil(wait / 1000))
    return failures
  }

  /** Failures at or before this fall outside the window: they do not count. */
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
      if (!user) return { error: 'for a deleted account' }
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
    await this.d.revocations.inForceEverywhere()
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

/** What failed logins (and wrong passwords) of an account's email count against. */
const emailKey = (normalizedEmail: string) => `email:${normalizedEmail}`

/** The avatar's answer settles that nothing was made (a 4xx refusal); anything else leaves it in doubt. */
const isRefusal = (e: unknown): e is AppError => e instanceof AppError && e.status >= 400 && e.status < 500
/** The log keeps this much of why a registration turned around. */
const FAILURE_TEXT_MAX = 500
const describe = (e: unknown) =>
  (e instanceof AppError ? `${e.slug}: ${e.message}` : e instanceof Error ? e.message : String(e)).slice(0, FAILURE_TEXT_MAX)
