import { randomBytes } from 'node:crypto'
import type { Principal } from '../../../platform/auth/principal.js'
import type { Clock } from '../../../platform/clock.js'
import type { Database, Tx } from '../../../platform/db/database.js'
import { NotFound } from '../../../platform/errors.js'
import { newId } from '../../../platform/ids.js'
import { readPage, type Page, type PageRequest } from '../../../platform/paging.js'
import type { AvatarClient } from '../../avatar/client.js'
import { WEBHOOK_ENDPOINTS_PER_ACCOUNT_MAX, WEBHOOK_SECRET_BYTES } from '../domain/rules.js'
import { recipients, type StreamDraft } from '../domain/stream.js'
import { webhookSecret } from '../domain/webhook-signature.js'
import { deliveryBody, TooManyWebhooks, WebhookDisabled, WebhookUrlRefused, type WebhookEventType } from '../domain/webhook.js'
import { guildMemberRepo } from '../store/guild-members.js'
import { accountAvatarRepo, webhookDeliveryRepo, webhookEndpointRepo, type DeliveryRow, type EndpointRow, type NewDelivery } from '../store/webhooks.js'
import type { EndpointDirectory } from './webhook-directory.js'
import { refusedHost } from './webhook-transport.js'

export type { DeliveryRow, EndpointRow } from '../store/webhooks.js'

interface WebhookDeps {
  database: Database
  clock: Clock
  avatars: AvatarClient
  directory: EndpointDirectory
  /** Private and loopback targets allowed (`WEBHOOK_ALLOW_PRIVATE`: tests, a home network). */
  allowPrivate: boolean
  /** Deliveries were made due (once committed): send them now rather than at the next look. */
  wake: () => void
}

/**
 * An account's webhooks (DESIGN §9.4): its endpoints and their delivery logs, and the deliveries
 * each event the live context consumes makes for the endpoints of the accounts it concerns.
 */
export class WebhookApp {
  constructor(private readonly d: WebhookDeps) {}

  /** A new endpoint; the answer carries its secret, which is never shown again. */
  async create(p: Principal, input: { url: string; events: WebhookEventType[] }): Promise<EndpointRow> {
    const refused = await refusedHost(input.url, this.d.allowPrivate)
    if (refused) throw new WebhookUrlRefused(refused)
    // Avatars made before the live context followed their owners: asked before the transaction.
    const avatarIds = (await this.d.avatars.exportOwnedBy(p.userId)).map((a) => a.id)
    const endpoint = await this.d.database.transaction(async (tx) => {
      if ((await webhookEndpointRepo.countOfLocked(tx, p.userId)) >= WEBHOOK_ENDPOINTS_PER_ACCOUNT_MAX) throw new TooManyWebhooks(WEBHOOK_ENDPOINTS_PER_ACCOUNT_MAX)
      await accountAvatarRepo.map(tx, avatarIds.map((avatarId) => ({ avatarId, userId: p.userId })))
      return webhookEndpointRepo.insert(tx, {
        id: newId(), userId: p.userId, url: new URL(input.url).href, events: [...new Set(input.events)], secret: webhookSecret(randomBytes(WEBHOOK_SECRET_BYTES)),
        failingSince: null, disabledAt: null, createdAt: this.d.clock.now(),
      })
    })
    this.d.directory.changed()
    return endpoint
  }

  list(p: Principal): Promise<EndpointRow[]> {
    return webhookEndpointRepo.listOf(this.d.database.db, p.userId)
  }

  async delete(p: Principal, id: string): Promise<void> {
    if (!(await this.d.database.transaction((tx) => webhookEndpointRepo.delete(tx, p.userId, id)))) throw new NotFound('Webhook endpoint', id)
    this.d.directory.changed()
  }

  /** Enables a disabled endpoint (an enabled one stays so): its paused deliveries are due again. */
  async enable(p: Principal, id: string): Promise<EndpointRow> {
    const endpoint = await this.d.database.transaction((tx) => webhookEndpointRepo.enable(tx, p.userId, id, this.d.clock.now()))
    if (!endpoint) throw new NotFound('Webhook endpoint', id)
    this.d.directory.changed()
    this.d.wake()
    return endpoint
  }

  async deliveries(p: Principal, id: string, asked: PageRequest): Promise<Page<DeliveryRow>> {
    const endpoint = await this.owned(p, id)
    const db = this.d.database.db
    return readPage(asked, {
      names: "a delivery of this endpoint's log",
      positionOf: (cursor) => webhookDeliveryRepo.positionOf(db, endpoint.id, cursor),
      fetch: (before, count) => webhookDeliveryRepo.page(db, endpoint.id, count, before),
      keyOf: (d) => d.id,
    })
  }

  /** One more attempt at a delivery, now, whatever became of it. */
  async redeliver(p: Principal, id: string, deliveryId: string): Promise<DeliveryRow> {
    const endpoint = await this.owned(p, id)
    if (endpoint.disabledAt) throw new WebhookDisabled(id)
    const delivery = await webhookDeliveryRepo.redeliver(this.d.database.db, id, deliveryId, this.d.clock.now())
    if (!delivery) throw new NotFound('Delivery', deliveryId)
    this.d.wake()
    return delivery
  }

  private async owned(p: Principal, id: string): Promise<EndpointRow> {
    const endpoint = await webhookEndpointRepo.getOf(this.d.database.db, p.userId, id)
    // Another account's endpoint is as unknown as one that does not exist.
    if (!endpoint) throw new NotFound('Webhook endpoint', id)
    return endpoint
  }

  // ---- the event path ----

  /**
   * The deliveries these events make, by event id: one per event and enabled endpoint subscribed
   * to its type of an account owning an avatar of its audience. Read outside any transaction; no
   * read at all while no endpoint exists anywhere.
   */
  async deliveriesFor(drafts: StreamDraft[]): Promise<Map<string, NewDelivery[]>> {
    const made = new Map<string, NewDelivery[]>()
    if (drafts.length === 0 || !(await this.d.directory.anyEnabled())) return made
    const db = this.d.database.db
    const guilds = drafts.flatMap((d) => (d.audience.guild ? [d.audience.guild] : []))
    const members = guilds.length > 0 ? await guildMemberRepo.membersOf(db, guilds) : new Map<string, string[]>()
    const audiences = drafts.map((d) => ({ draft: d, avatars: recipients(d.audience, (g) => members.get(g) ?? []) }))
    const endpoints = await webhookEndpointRepo.enabledOfAvatars(db, audiences.flatMap((a) => a.avatars))
    if (endpoints.length === 0) return made
    const now = this.d.clock.now()
    for (const { draft, avatars } of audiences) {
      const endpointIds = new Set(endpoints.filter((e) => avatars.includes(e.avatarId) && e.events.includes(draft.type)).map((e) => e.endpointId))
      if (endpointIds.size === 0) continue
      const body = deliveryBody({ id: draft.eventId, type: draft.type, occurredAt: draft.occurredAt, payload: draft.payload })
      made.set(draft.eventId, [...endpointIds].map((endpointId) => ({
        id: newId(), endpointId, eventId: draft.eventId, type: draft.type, body, status: 'PENDING', attempts: 0,
        lastStatusCode: null, lastError: null, nextAttemptAt: now, leasedUntil: null, createdAt: now, updatedAt: now,
      })))
    }
    return made
  }

  /** Records deliveries (in the consumer's transaction, with its inbox rows); sent once committed. */
  async record(tx: Tx, deliveries: NewDelivery[]): Promise<void> {
    if (deliveries.length === 0) return
    await webhookDeliveryRepo.insert(tx, deliveries)
    this.d.database.afterCommit(() => this.d.wake())
  }

  // ---- whose avatars are whose ----

  async avatarsCreated(tx: Tx, avatars: { avatarId: string; ownerId: string }[]): Promise<void> {
    await accountAvatarRepo.map(tx, avatars.map((a) => ({ avatarId: a.avatarId, userId: a.ownerId })))
  }

  async avatarsDeleted(tx: Tx, avatarIds: string[]): Promise<void> {
    await accountAvatarRepo.unmap(tx, avatarIds)
  }

  /** A deleted account: its endpoints, their deliveries and its avatars' mapping go. */
  async accountsDeleted(tx: Tx, userIds: string[]): Promise<void> {
    for (const userId of userIds) await webhookEndpointRepo.forgetAccount(tx, userId)
    this.d.database.afterCommit(() => this.d.directory.changed())
  }
}
