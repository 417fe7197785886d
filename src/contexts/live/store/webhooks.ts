import { and, asc, count, desc, eq, inArray, isNotNull, isNull, lt, lte, or, sql } from 'drizzle-orm'
import { deleteSome } from '../../../platform/db/bounded-delete.js'
import type { Database, Queryable, Tx } from '../../../platform/db/database.js'
import type { AttemptOutcome, DeliveryStatus } from '../domain/webhook.js'
import { accountAvatars, webhookDeliveries as deliveries, webhookEndpoints as endpoints } from './tables.js'

export type EndpointRow = typeof endpoints.$inferSelect
export type DeliveryRow = typeof deliveries.$inferSelect
export type NewDelivery = Omit<typeof deliveries.$inferInsert, 'seq'>

/** A delivery leased to a sender, with where it goes. */
export interface LeasedDelivery {
  id: string
  endpointId: string
  eventId: string
  body: string
  attempts: number
  /** The lease, also its token: only the holder of this lease records the attempt. */
  leasedUntil: Date
  url: string
  secret: string
}

/** An enabled endpoint one of these avatars' accounts has. */
interface AvatarEndpoint {
  avatarId: string
  endpointId: string
  events: string[]
}

/** Which account each avatar belongs to, as the live context follows it (AvatarCreated, AvatarDeleted). */
export const accountAvatarRepo = {
  async map(q: Queryable, rows: { avatarId: string; userId: string }[]): Promise<void> {
    if (rows.length === 0) return
    await q.insert(accountAvatars).values(rows).onConflictDoUpdate({ target: accountAvatars.avatarId, set: { userId: sql`excluded.user_id` } })
  },

  async unmap(q: Queryable, avatarIds: string[]): Promise<void> {
    if (avatarIds.length > 0) await q.delete(accountAvatars).where(inArray(accountAvatars.avatarId, avatarIds))
  },

  async avatarsOf(q: Queryable, userId: string): Promise<string[]> {
    const rows = await q.select({ avatarId: accountAvatars.avatarId }).from(accountAvatars).where(eq(accountAvatars.userId, userId))
    return rows.map((r) => r.avatarId)
  },
}

export const webhookEndpointRepo = {
  /**
   * How many endpoints the account has, counted after taking a lock on its endpoint creations that
   * holds until the transaction ends: two creations at once are counted one after the other.
   */
  async countOfLocked(tx: Tx, userId: string): Promise<number> {
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`live.webhooks:${userId}`}))`)
    const [row] = await tx.select({ n: count() }).from(endpoints).where(eq(endpoints.userId, userId))
    return row?.n ?? 0
  },

  async insert(q: Queryable, row: Omit<EndpointRow, 'seq'>): Promise<EndpointRow> {
    const [inserted] = await q.insert(endpoints).values(row).returning()
    return inserted!
  },

  /** The account's endpoints, oldest first. */
  async listOf(q: Queryable, userId: string): Promise<EndpointRow[]> {
    return q.select().from(endpoints).where(eq(endpoints.userId, userId)).orderBy(asc(endpoints.seq))
  },

  async getOf(q: Queryable, userId: string, id: string): Promise<EndpointRow | undefined> {
    const [row] = await q.select().from(endpoints).where(and(eq(endpoints.id, id), eq(endpoints.userId, userId)))
    return row
  },

  /** Deletes the account's endpoint and its delivery log; false when it has no such endpoint. */
  async delete(tx: Tx, userId: string, id: string): Promise<boolean> {
    const deleted = await tx.delete(endpoints).where(and(eq(endpoints.id, id), eq(endpoints.userId, userId))).returning({ id: endpoints.id })
    if (deleted.length === 0) return false
    await tx.delete(deliveries).where(eq(deliveries.endpointId, id))
    return true
  },

  /** Everything of the account: its endpoints, their deliveries, which avatars are its. */
  async forgetAccount(tx: Tx, userId: string): Promise<void> {
    const gone = await tx.delete(endpoints).where(eq(endpoints.userId, userId)).returning({ id: endpoints.id })
    if (gone.length > 0) await tx.delete(deliveries).where(inArray(deliveries.endpointId, gone.map((e) => e.id)))
    await tx.delete(accountAvatars).where(eq(accountAvatars.userId, userId))
  },

  /** Enables the account's endpoint again, its failures forgotten, and resumes its paused deliveries now; undefined when it has no such endpoint. */
  async enable(tx: Tx, userId: string, id: string, now: Date): Promise<EndpointRow | undefined> {
    const [row] = await tx.update(endpoints).set({ disabledAt: null, failingSince: null })
      .where(and(eq(endpoints.id, id), eq(endpoints.userId, userId))).returning()
    if (!row) return undefined
    await tx.update(deliveries).set({ nextAttemptAt: now, updatedAt: now })
      .where(and(eq(deliveries.endpointId, id), eq(deliveries.status, 'PENDING'), isNull(deliveries.nextAttemptAt)))
    return row
  },

  /** Whether any enabled endpoint exists at all (most events then need no further look). */
  async anyEnabled(q: Queryable): Promise<boolean> {
    const rows = await q.select({ id: endpoints.id }).from(endpoints).where(isNull(endpoints.disabledAt)).limit(1)
    return rows.length > 0
  },

  /** The enabled endpoints of these avatars' accounts, one row per (avatar, endpoint). */
  async enabledOfAvatars(q: Queryable, avatarIds: string[]): Promise<AvatarEndpoint[]> {
    if (avatarIds.length === 0) return []
    return q.select({ avatarId: accountAvatars.avatarId, endpointId: endpoints.id, events: endpoints.events })
      .from(accountAvatars).innerJoin(endpoints, eq(endpoints.userId, accountAvatars.userId))
      .where(and(inArray(accountAvatars.avatarId, [...new Set(avatarIds)]), isNull(endpoints.disabledAt))).orderBy(asc(endpoints.seq))
  },

  /** A successful attempt: the endpoint is not failing (written only when it was). */
  async markAnswering(tx: Tx, id: string): Promise<void> {
    await tx.update(endpoints).set({ failingSince: null }).where(and(eq(endpoints.id, id), isNotNull(endpoints.failingSince)))
  },

  /**
   * A failed attempt: failing since now unless already failing; answers the endpoint (undefined if
   * gone). Its row stays locked until the transaction ends: the attempts of one endpoint are recorded
   * one after the other, and each sees whether another disabled it.
   */
  async markFailing(tx: Tx, id: string, now: Date): Promise<EndpointRow | undefined> {
    const [row] = await tx.update(endpoints).set({ failingSince: sql`coalesce(${endpoints.failingSince}, ${now.toISOString()}::timestamptz)` })
      .where(eq(endpoints.id, id)).returning()
    return row
  },

  /** Disables the endpoint and pauses its pending deliveries; false when it was disabled already (by another replica). */
  async disable(tx: Tx, id: string, now: Date): Promise<boolean> {
    const rows = await tx.update(endpoints).set({ disabledAt: now }).where(and(eq(endpoints.id, id), isNull(endpoints.disabledAt))).returning({ id: endpoints.id })
    if (rows.length === 0) return false
    await tx.update(deliveries).set({ nextAttemptAt: null, updatedAt: now }).where(and(eq(deliveries.endpointId, id), eq(deliveries.status, 'PENDING')))
    return true
  },
}

export const webhookDeliveryRepo = {
  /** One row per (endpoint, event): a redelivered event makes none again. */
  async insert(tx: Tx, rows: NewDelivery[]): Promise<void> {
    if (rows.length > 0) await tx.insert(deliveries).values(rows).onConflictDoNothing()
  },

  /** A page of the endpoint's deliveries, newest first, those older than `beforeSeq` when given. */
  async page(q: Queryable, endpointId: string, limit: number, beforeSeq?: number): Promise<DeliveryRow[]> {
    return q.select().from(deliveries)
      .where(and(eq(deliveries.endpointId, endpointId), beforeSeq === undefined ? undefined : lt(deliveries.seq, beforeSeq)))
      .orderBy(desc(deliveries.seq)).limit(limit)
  },

  async positionOf(q: Queryable, endpointId: string, id: string): Promise<number | undefined> {
    const [row] = await q.select({ seq: deliveries.seq }).from(deliveries).where(and(eq(deliveries.id, id), eq(deliveries.endpointId, endpointId)))
    return row?.seq
  },

  /** Makes the delivery due now, whatever its state; undefined when the endpoint has no such delivery. */
  async redeliver(q: Queryable, endpointId: string, id: string, now: Date): Promise<DeliveryRow | undefined> {
    const [row] = await q.update(deliveries).set({ status: 'PENDING' satisfies DeliveryStatus, nextAttemptAt: now, updatedAt: now })
      .where(and(eq(deliveries.id, id), eq(deliveries.endpointId, endpointId))).returning()
    return row
  },

  /**
   * Leases up to `limit` due deliveries of enabled endpoints to the caller until `until`: the rows
   * are picked with SKIP LOCKED, so replicas take different ones, and a lease not yet run out
   * keeps a delivery from every other sender.
   */
  async leaseDue(database: Database, now: Date, until: Date, limit: number): Promise<LeasedDelivery[]> {
    return database.transaction(async (tx) => {
      // Only the deliveries' rows are locked (no join: FOR UPDATE would lock the endpoints too).
      const enabled = tx.select({ id: endpoints.id }).from(endpoints).where(isNull(endpoints.disabledAt))
      const due = await tx.select({ id: deliveries.id }).from(deliveries)
        .where(and(
          eq(deliveries.status, 'PENDING'), lte(deliveries.nextAttemptAt, now),
          or(isNull(deliveries.leasedUntil), lt(deliveries.leasedUntil, now)), inArray(deliveries.endpointId, enabled),
        ))
        .orderBy(asc(deliveries.nextAttemptAt), asc(deliveries.seq)).limit(limit).for('update', { skipLocked: true })
      if (due.length === 0) return []
      const leased = await tx.update(deliveries).set({ leasedUntil: until }).where(inArray(deliveries.id, due.map((d) => d.id)))
        .returning({ id: deliveries.id, endpointId: deliveries.endpointId, eventId: deliveries.eventId, body: deliveries.body, attempts: deliveries.attempts })
      const targets = await tx.select({ id: endpoints.id, url: endpoints.url, secret: endpoints.secret }).from(endpoints)
        .where(inArray(endpoints.id, [...new Set(leased.map((d) => d.endpointId))]))
      const target = new Map(targets.map((e) => [e.id, e]))
      return leased.flatMap((d) => {
        const t = target.get(d.endpointId)
        return t ? [{ ...d, leasedUntil: until, url: t.url, secret: t.secret }] : []
      })
    })
  },

  /** Records an attempt made under the lease `leasedUntil`; false when the delivery is gone or its lease passed to another sender. */
  async recordAttempt(tx: Tx, d: { id: string; leasedUntil: Date; attempts: number }, outcome: AttemptOutcome & {
    statusCode: number | null; error: string | null; now: Date
  }): Promise<boolean> {
    const rows = await tx.update(deliveries).set({
      attempts: d.attempts, status: outcome.status, nextAttemptAt: outcome.nextAttemptAt, lastStatusCode: outcome.statusCode, lastError: outcome.error,
      leasedUntil: null, updatedAt: outcome.now,
    }).where(and(eq(deliveries.id, d.id), eq(deliveries.leasedUntil, d.leasedUntil))).returning({ id: deliveries.id })
    return rows.length > 0
  },

  pruneSome(database: Database, before: Date, limit: number): Promise<number> {
    return deleteSome(database.db, deliveries, deliveries.id, lt(deliveries.createdAt, before), limit)
  },
}
