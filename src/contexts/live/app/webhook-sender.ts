import { Counter } from 'prom-client'
import type { Clock } from '../../../platform/clock.js'
import type { Database, Tx } from '../../../platform/db/database.js'
import type { MetricsSource } from '../../../platform/http/metrics.js'
import type { Job } from '../../../platform/jobs/scheduler.js'
import { webhookDisabled, type NotificationDraft } from '../domain/notification.js'
import { WEBHOOK_ERROR_MAX_LENGTH, WEBHOOK_LEASE_MARGIN_MS, WEBHOOK_SEND_EVERY_MS, WEBHOOK_SENDS_IN_FLIGHT } from '../domain/rules.js'
import { signedHeaders } from '../domain/webhook-signature.js'
import { afterAttempt, isDelivered, isFailingTooLong } from '../domain/webhook.js'
import { accountAvatarRepo, webhookDeliveryRepo, webhookEndpointRepo, type LeasedDelivery } from '../store/webhooks.js'
import { post, type AttemptResult } from './webhook-transport.js'

/** The sender's job (`POST /_test/jobs/live.send-webhooks` in tests, where jobs do not run on timers). */
export const SEND_WEBHOOKS_JOB = 'live.send-webhooks'
const USER_AGENT = 'Questline-Webhooks/1'

interface SenderDeps {
  database: Database
  clock: Clock
  /** Cut an attempt after this long. */
  timeoutMs: number
  allowPrivate: boolean
  /** Makes notifications in the caller's transaction (the inbox). */
  notify: (tx: Tx, drafts: NotificationDraft[]) => Promise<void>
  /** An endpoint was disabled (once committed). */
  disabled: () => void
}

/**
 * Sends due webhook deliveries (DESIGN §9.4). Every process runs it (a job on every replica, and
 * at once when it makes deliveries): each look leases due deliveries with SKIP LOCKED, so one
 * delivery is attempted by one sender at a time; the attempts run side by side, at most
 * WEBHOOK_SENDS_IN_FLIGHT at once, outside any transaction, and each outcome is recorded in a
 * short one of its own. A look does not wait for its attempts: one receiver that hangs holds one
 * place until its timeout, and the rest go on.
 */
export class WebhookSender {
  readonly job: Job = { name: SEND_WEBHOOKS_JOB, everyMs: WEBHOOK_SEND_EVERY_MS, everyReplica: true, run: () => this.look() }
  private readonly inFlight = new Set<Promise<void>>()
  private looking: Promise<void> | undefined
  private lookAgain = false
  /** The last look filled every free place: more may be due once a place frees. */
  private backlog = false
  private closing = false
  /** One controller per attempt under way: each request holds a signal of its own, and closing aborts them all. */
  private readonly aborts = new Set<AbortController>()
  private readonly attempts = new Counter({
    name: 'webhook_attempts_total',
    help: 'Webhook delivery attempts made by this process, by outcome (unrecorded: the outcome could not be written; the lease runs out and the delivery is tried again)',
    labelNames: ['outcome'],
    registers: [],
  })

  readonly metrics: MetricsSource = (registry) => registry.registerMetric(this.attempts)

  constructor(private readonly d: SenderDeps) {
    for (const outcome of ['delivered', 'failed', 'unrecorded']) this.attempts.inc({ outcome }, 0)
  }

  /** Look for due deliveries soon (deliveries were made or made due here). */
  wake(): void {
    // A look that fails (the database unreachable) is made again by the next one: the job's, every second.
    this.look().catch(() => undefined)
  }

  /** Leases what is due, up to the free places, and starts the attempts; one look at a time, another right after when asked meanwhile. */
  look(): Promise<void> {
    if (this.looking) {
      this.lookAgain = true
      return this.looking
    }
    this.looking = (async () => {
      do {
        this.lookAgain = false
        await this.leaseAndStart()
      } while (this.lookAgain)
    })().finally(() => {
      this.looking = undefined
    })
    return this.looking
  }

  /** Ends the attempts under way (not recorded: their leases run out, and they are made again). */
  async close(): Promise<void> {
    this.closing = true
    for (const abort of this.aborts) abort.abort()
    await Promise.all(this.inFlight)
  }

  private async leaseAndStart(): Promise<void> {
    const room = WEBHOOK_SENDS_IN_FLIGHT - this.inFlight.size
    if (room <= 0 || this.closing) return
    const now = this.d.clock.now()
    const leased = await webhookDeliveryRepo.leaseDue(this.d.database, now, new Date(now.getTime() + this.d.timeoutMs + WEBHOOK_LEASE_MARGIN_MS), room)
    this.backlog = leased.length === room
    for (const delivery of leased) {
      const attempt = this.attempt(delivery).finally(() => {
        this.inFlight.delete(attempt)
        if (this.backlog) this.wake()
      })
      this.inFlight.add(attempt)
    }
  }

  private async attempt(delivery: LeasedDelivery): Promise<void> {
    const unixSeconds = Math.floor(this.d.clock.now().getTime() / 1000)
    const abort = new AbortController()
    this.aborts.add(abort)
    // Leased while the sender was closing: not sent.
    if (this.closing) abort.abort()
    const result = await post(delivery.url, delivery.body, {
      'content-type': 'application/json',
      'user-agent': USER_AGENT,
      ...signedHeaders(delivery, unixSeconds),
    }, { timeoutMs: this.d.timeoutMs, allowPrivate: this.d.allowPrivate, signal: abort.signal }).finally(() => this.aborts.delete(abort))
    if (this.closing) return
    await this.record(delivery, result).then(
      (delivered) => this.attempts.inc({ outcome: delivered ? 'delivered' : 'failed' }),
      () => this.attempts.inc({ outcome: 'unrecorded' }),
    )
  }

  /**
   * Records an attempt's outcome with the endpoint's health: a success ends its failing; a failure
   * starts it, and one that has lasted WEBHOOK_DISABLE_AFTER_MS disables the endpoint (once,
   * whichever replica sees it) and tells the account's avatars.
   */
  private async record(delivery: LeasedDelivery, result: AttemptResult): Promise<boolean> {
    const delivered = isDelivered(result.statusCode)
    const attempted = { ...delivery, attempts: delivery.attempts + 1 }
    const statusCode = result.statusCode ?? null
    await this.d.database.transaction(async (tx) => {
      const now = this.d.clock.now()
      // The endpoint's row first, then the delivery's (as enabling and disabling take them): no deadlock.
      if (delivered) {
        await webhookEndpointRepo.markAnswering(tx, delivery.endpointId)
        await webhookDeliveryRepo.recordAttempt(tx, attempted, { ...afterAttempt(attempted.attempts, true, now), statusCode, error: null, now })
        return
      }
      const endpoint = await webhookEndpointRepo.markFailing(tx, delivery.endpointId, now)
      if (!endpoint) return
      const disabling = endpoint.disabledAt === null && endpoint.failingSince !== null && isFailingTooLong(endpoint.failingSince, now)
      const error = (result.error ?? `answered ${result.statusCode}`).slice(0, WEBHOOK_ERROR_MAX_LENGTH)
      const outcome = afterAttempt(attempted.attempts, false, now, disabling || endpoint.disabledAt !== null)
      if (!(await webhookDeliveryRepo.recordAttempt(tx, attempted, { ...outcome, statusCode, error, now }))) return
      if (!disabling || !(await webhookEndpointRepo.disable(tx, endpoint.id, now))) return
      const avatars = await accountAvatarRepo.avatarsOf(tx, endpoint.userId)
      const failingSince = endpoint.failingSince!
      await this.d.notify(tx, avatars.map((avatarId) => webhookDisabled(avatarId, { endpointId: endpoint.id, url: endpoint.url, failingSince })))
      this.d.database.afterCommit(() => this.d.disabled())
    })
    return delivered
  }
}
