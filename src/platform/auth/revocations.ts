import { and, gt, lte, sql } from 'drizzle-orm'
import type { Clock } from '../clock.js'
import type { Database } from '../db/database.js'
import type { Logger } from '../log.js'
import { tokenRevocations } from './tables.js'

/**
 * How often a process looks for revocations made by the others (on PostgreSQL, where other
 * processes may share the database; the embedded database has one process, which learns its own
 * revocations as they commit).
 */
const REVOCATION_POLL_MS = { postgres: 250, embedded: 1000 }
/**
 * A process polls in the background only while it checks tokens: within this long of its last
 * check. An idle replica reads nothing (fourteen idle processes polling four times a second cost a
 * database and two cores real work); its next check reads first (`current`), as a late poll would.
 */
export const POLL_WHILE_CHECKED_MS = 2_000
/**
 * A process checks a token against revocations it read no longer ago than this: with an older
 * view (its polls are late: a busy machine, a slow database) it reads again before it answers.
 */
export const REVOCATIONS_FRESH_MS = 750
/**
 * A revocation answers its request after this long, so every process checks tokens against a view
 * read after it committed: it is in force everywhere once the request that made it has answered.
 */
const IN_FORCE_EVERYWHERE_MS = REVOCATIONS_FRESH_MS + 50
/** How often a process deletes the rows (and forgets the ids) of tokens that have expired. */
const PRUNE_EVERY_MS = 60_000
/** Before the first poll: every transaction id is at least this. */
const FIRST_HORIZON = '0'

/** What token verification asks: a lookup in memory, so it costs nothing per request. */
export interface RevocationCheck {
  /** Refused: this token, or every token of its user issued before a cutoff (`revokeAllOf`). */
  isRevoked(tokenId: string, holder?: { userId: string; issuedAt: number }): boolean
  /** Settles when the revocations in memory are recent enough to check against (at once, mostly). */
  current?(): Promise<void> | undefined
}

/**
 * A row refusing every token of a user issued before a time has the id `user:<id>@<seconds>`:
 * the same table, poll and pruning carry both kinds.
 */
const USER_CUTOFF = /^user:(.+)@(\d+)$/

/**
 * Access-token ids refused until they expire (logout), shared by every process on the database.
 * Each process keeps them in memory for the per-request check; a revocation is written to
 * `platform.token_revocations`, takes effect in the revoking process when its transaction
 * commits, and in the others at their next poll (every REVOCATION_POLL_MS while they check tokens). Every replica must
 * answer a request alike, so a process whose last poll began more than REVOCATIONS_FRESH_MS ago
 * polls before it checks a token (`current`), and the request that revoked waits
 * (`inForceEverywhere`) until every process's view is younger than the revocation.
 *
 * "New since the last poll" is judged by transaction id, not by a sequence or a timestamp: a
 * transaction that took its number earlier may commit later, and would be missed. Each poll
 * first notes the oldest transaction still running (its snapshot's xmin), then reads every row
 * written by a transaction at or above the previous poll's note. A transaction below a note had
 * finished before that poll read, so its row was seen then.
 */
export class RevocationList implements RevocationCheck {
  private readonly revoked = new Map<string, number>()
  /** User → tokens issued before these seconds are refused, until `expiresAt`. */
  private readonly cutoffs = new Map<string, { before: number; expiresAt: number }>()
  private horizon = FIRST_HORIZON
  private timer: NodeJS.Timeout | undefined
  private polling: Promise<void> | undefined
  private lastPruneMs = Number.NEGATIVE_INFINITY
  /** When the last poll that succeeded began (monotonic ms): its view holds all committed before. */
  private readSince = Number.NEGATIVE_INFINITY
  private catchingUp: Promise<void> | undefined
  /** When a token was last checked (monotonic ms): the background polls run only while this is recent. */
  private lastCheckedAt = Number.NEGATIVE_INFINITY

  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
    private readonly log?: Logger,
  ) {}

  isRevoked(tokenId: string, holder?: { userId: string; issuedAt: number }): boolean {
    if (this.revoked.has(tokenId)) return true
    const cutoff = holder && this.cutoffs.get(holder.userId)
    return cutoff !== undefined && holder!.issuedAt < cutoff.before
  }

  /**
   * Refuses every access token of the user issued before now (its role changed); `ttlSeconds` is
   * how long such a token could still live. Tokens issued in the same second are spared: `iat`
   * counts whole seconds, and a login right after must work.
   */
  revokeAllOf(userId: string, ttlSeconds: number): Promise<void> {
    const before = Math.floor(this.clock.now().getTime() / 1000)
    return this.revoke(`user:${userId}@${before}`, before + ttlSeconds)
  }

  /**
   * Refuses every access token of a user whose account was deleted, those of this very second and
   * any a request under way still issues (a login that checked the password just before): tokens
   * issued up to `ttlSeconds` from now are refused, until the last of them would expire. The
   * account can sign in no more, so no later token of the user is ever issued.
   */
  revokeDeletedAccount(userId: string, ttlSeconds: number): Promise<void> {
    const before = Math.floor(this.clock.now().getTime() / 1000) + ttlSeconds
    return this.revoke(`user:${userId}@${before}`, before + ttlSeconds)
  }

  /**
   * Refuses the token until `expiresAt` (seconds since the epoch) everywhere. Written in the
   * transaction open here, if any, so it commits or rolls back with the caller's work.
   */
  async revoke(tokenId: string, expiresAt: number): Promise<void> {
    await this.database.current().insert(tokenRevocations)
      .values({ tokenId, expiresAt: new Date(expiresAt * 1000) }).onConflictDoNothing()
    this.database.afterCommit(() => this.remember(tokenId, expiresAt))
  }

  /**
   * Settles at once while the last poll is recent; else once a poll begun after this call has read
   * (concurrent callers share it). Answers undefined when nothing is to wait for: the hot path
   * makes no promise. A poll that fails fails the caller: a token cannot be checked then.
   */
  current(): Promise<void> | undefined {
    const asked = performance.now()
    this.lastCheckedAt = asked
    if (!this.timer || asked - this.readSince <= REVOCATIONS_FRESH_MS) return undefined
    return this.catchUp(asked)
  }

  private async catchUp(asked: number): Promise<void> {
    while (asked - this.readSince > REVOCATIONS_FRESH_MS) {
      await (this.catchingUp ??= this.poll().finally(() => {
        this.catchingUp = undefined
      }))
    }
  }

  /**
   * Waits until a revocation committed before the call is in every process's view: a process checks
   * tokens only against a view read within REVOCATIONS_FRESH_MS. Only where other processes may
   * share the database; the embedded database has one.
   */
  async inForceEverywhere(): Promise<void> {
    if (this.database.kind === 'postgres') await new Promise((r) => setTimeout(r, IN_FORCE_EVERYWHERE_MS))
  }

  /** Loads the live revocations, then keeps learning new ones until closed. */
  async start(): Promise<void> {
    await this.poll()
    this.timer = setInterval(() => void this.pollInBackground(), REVOCATION_POLL_MS[this.database.kind])
    this.timer.unref()
  }

  async close(): Promise<void> {
    clearInterval(this.timer)
    await this.polling?.catch(() => undefined)
  }

  /** Learns the revocations committed (by any process) since the last poll. */
  async poll(): Promise<void> {
    // Joining a poll under way would miss rows committed after it read; wait, then read again.
    // The earlier poll's failure is reported to its own caller.
    while (this.polling) await this.polling.catch(() => undefined)
    this.polling = this.learnNew().finally(() => {
      this.polling = undefined
    })
    await this.polling
  }

  private async pollInBackground(): Promise<void> {
    if (this.polling || performance.now() - this.lastCheckedAt > POLL_WHILE_CHECKED_MS) return
    try {
      await this.poll()
    } catch (e) {
      // The database may be away for a moment; the next tick reads from the same horizon.
      this.log?.warn({ err: e }, 'reading token revocations failed; will retry')
    }
  }

  private async learnNew(): Promise<void> {
    const began = performance.now()
    const now = this.clock.now()
    const nextHorizon = await oldestRunningTransaction(this.database)
    const rows = await this.database.db.select({ tokenId: tokenRevocations.tokenId, expiresAt: tokenRevocations.expiresAt })
      .from(tokenRevocations)
      .where(and(sql`${tokenRevocations.txId} >= ${this.horizon}::xid8`, gt(tokenRevocations.expiresAt, now)))
    for (const r of rows) this.remember(r.tokenId, r.expiresAt.getTime() / 1000)
    this.horizon = nextHorizon
    this.readSince = began
    if (now.getTime() - this.lastPruneMs >= PRUNE_EVERY_MS) await this.prune(now)
  }

  private remember(tokenId: string, expiresAt: number): void {
    const cutoff = USER_CUTOFF.exec(tokenId)
    if (!cutoff) return void this.revoked.set(tokenId, expiresAt)
    const [, userId, before] = cutoff as unknown as [string, string, string]
    const known = this.cutoffs.get(userId)
    if (!known || known.before < Number(before)) this.cutoffs.set(userId, { before: Number(before), expiresAt })
  }

  /** Expired tokens fail verification anyway: their rows and ids are dead weight. */
  private async prune(now: Date): Promise<void> {
    this.lastPruneMs = now.getTime()
    await this.database.db.delete(tokenRevocations).where(lte(tokenRevocations.expiresAt, now))
    const nowSeconds = now.getTime() / 1000
    for (const [id, expiresAt] of this.revoked) if (expiresAt <= nowSeconds) this.revoked.delete(id)
    for (const [userId, cutoff] of this.cutoffs) if (cutoff.expiresAt <= nowSeconds) this.cutoffs.delete(userId)
  }
}

/** The snapshot's xmin: every transaction with a lower id has committed or aborted. */
async function oldestRunningTransaction(database: Database): Promise<string> {
  const result = await database.db.execute(sql`select pg_snapshot_xmin(pg_current_snapshot())::text as xmin`)
  const [row] = (result as unknown as { rows: { xmin: string }[] }).rows
  if (!row) throw new Error('pg_current_snapshot() answered no row')
  return row.xmin
}
