import { bigint, bigserial, index, integer, jsonb, pgSchema, text, timestamp, uuid } from 'drizzle-orm/pg-core'
import { inboxTable } from '../../../platform/events/inbox.js'
import { outboxTable } from '../../../platform/events/outbox.js'
import type { Item } from '../domain/catalog.js'
import type { Step } from '../domain/saga.js'

export const marketplaceSchema = pgSchema('marketplace')

const instant = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' })

/** One marketplace per avatar; the owner is copied from the avatar's creation, to authorize reads. */
export const marketplaces = marketplaceSchema.table('marketplaces', {
  id: uuid('id').primaryKey(),
  avatarId: text('avatar_id').notNull().unique(),
  ownerId: uuid('owner_id').notNull(),
  createdAt: instant('created_at').notNull(),
})

/** Items an avatar sold, one row per sale (its saga), listed with the price paid. */
export const soldItems = marketplaceSchema.table(
  'sold_items',
  {
    sagaId: uuid('saga_id').primaryKey(),
    /** Sale order, for stable paging. */
    seq: bigserial('seq', { mode: 'number' }).notNull(),
    marketplaceId: uuid('marketplace_id').notNull().references(() => marketplaces.id, { onDelete: 'cascade' }),
    item: jsonb('item').$type<Item>().notNull(),
    name: text('name').notNull(),
    price: bigint('price', { mode: 'number' }).notNull(),
    soldAt: instant('sold_at').notNull(),
  },
  (t) => [index('sold_items_marketplace_idx').on(t.marketplaceId, t.seq), index('sold_items_name_idx').on(t.marketplaceId, t.name)],
)

/**
 * The saga log: one row per buy or sell run, with the steps applied and undone. The avatar
 * calls' idempotency keys are derived from the id and the step. No foreign key: a run must be
 * finished or undone even after its marketplace is gone.
 */
export const sagas = marketplaceSchema.table(
  'sagas',
  {
    id: uuid('id').primaryKey(),
    kind: text('kind').$type<'BUY' | 'SELL'>().notNull(),
    marketplaceId: uuid('marketplace_id').notNull(),
    avatarId: text('avatar_id').notNull(),
    itemName: text('item_name').notNull(),
    item: jsonb('item').$type<Item>(),
    price: bigint('price', { mode: 'number' }),
    state: text('state').notNull(),
    done: jsonb('done').$type<Step[]>().notNull(),
    undone: jsonb('undone').$type<Step[]>().notNull(),
    inDoubt: text('in_doubt').$type<Step>(),
    failure: text('failure'),
    attempts: integer('attempts').notNull(),
    version: integer('version').notNull(),
    leaseUntil: instant('lease_until').notNull(),
    createdAt: instant('created_at').notNull(),
    updatedAt: instant('updated_at').notNull(),
  },
  (t) => [index('sagas_state_lease_idx').on(t.state, t.leaseUntil)],
)

/**
 * Avatars deleted, with when: events are not delivered in order, so a creation that arrives
 * after its avatar's deletion must find out it is stale.
 */
export const closedAvatars = marketplaceSchema.table('closed_avatars', {
  avatarId: text('avatar_id').primaryKey(),
  deletedAt: timestamp('deleted_at', { withTimezone: true, mode: 'date' }).notNull(),
})

export const outbox = outboxTable(marketplaceSchema)
export const inbox = inboxTable(marketplaceSchema)
