/**
 * What the event plumbing may forget (the retention job, `platform/jobs/retention.ts`), and why
 * forgetting it never lets an event be applied twice.
 *
 * An outbox row is needed until it is published; after that only a relay that failed to mark it
 * published sends it again, within its lease. An inbox row is needed while its event may still
 * be delivered again: with the in-process bus, while the event is unpublished in one of this
 * process's outboxes (a sibling consumer failing keeps it there, and every consumer gets it
 * again), which the deliveries horizon allows for; over NATS, an event acknowledged is never
 * delivered again, and one handled but not acknowledged (a consumer that died) is delivered again
 * within the ack wait, both far shorter than the retention period (at least a day).
 */
import { and, isNull, lt, min } from 'drizzle-orm'
import { deleteSome } from '../db/bounded-delete.js'
import type { Database } from '../db/database.js'
import { pruning, type PruneRule } from '../jobs/retention.js'
import type { InboxTable } from './inbox.js'
import type { Outbox } from './outbox.js'

/**
 * Published events, once they occurred and were published before the published horizon (minutes,
 * not RETENTION_DAYS: nothing reads a published event again); never an unpublished one (a null
 * `published_at` compares as nothing). Uses the (published_at, seq) index.
 */
export function outboxPruning(database: Database, outbox: Outbox): PruneRule {
  const t = outbox.table
  return pruning(t, (h, limit) => deleteSome(database.db, t, t.seq, and(lt(t.publishedAt, h.published), lt(t.occurredAt, h.published)), limit))
}

/** The records of events handled before the deliveries horizon. */
export function inboxPruning(database: Database, inbox: InboxTable): PruneRule {
  return pruning(inbox, (h, limit) => deleteSome(database.db, inbox, inbox.eventId, lt(inbox.handledAt, h.deliveries), limit))
}

/** When the oldest event not yet published by any of these outboxes occurred; undefined when none is waiting. */
export async function oldestUnpublished(database: Database, outboxes: Outbox[]): Promise<Date | undefined> {
  let oldest: Date | undefined
  for (const { table: t } of outboxes) {
    const [row] = await database.db.select({ at: min(t.occurredAt) }).from(t).where(isNull(t.publishedAt))
    const at = row?.at ? new Date(row.at) : undefined
    if (at && (!oldest || at < oldest)) oldest = at
  }
  return oldest
}
