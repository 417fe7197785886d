import { bigint, index, integer, jsonb, pgSchema, primaryKey, text, timestamp, uuid } from 'drizzle-orm/pg-core'
import { inboxTable } from '../../../platform/events/inbox.js'
import { DEFAULT_TIME_ZONE } from '../../../platform/time/index.js'
import { outboxTable } from '../../../platform/events/outbox.js'
import type { Item } from '../domain/avatar.js'

export const avatarSchema = pgSchema('avatar')

export const avatars = avatarSchema.table(
  'avatars',
  {
    id: text('id').primaryKey(),
    ownerId: uuid('owner_id').notNull(),
    name: text('name').notNull(),
    level: integer('level').notNull(),
    experience: integer('experience').notNull(),
    health: integer('health').notNull(),
    maxHealth: integer('max_health').notNull(),
    mana: integer('mana').notNull(),
    maxMana: integer('max_mana').notNull(),
    money: bigint('money', { mode: 'number' }).notNull(),
    strength: integer('strength').notNull(),
    defense: integer('defense').notNull(),
    intelligence: integer('intelligence').notNull(),
    unspentPoints: integer('unspent_points').notNull(),
    inventoryId: uuid('inventory_id').notNull(),
    equipmentId: uuid('equipment_id').notNull(),
    inventory: jsonb('inventory').$type<Item[]>().notNull(),
    equipped: jsonb('equipped').$type<Item[]>().notNull(),
    streakFreezes: integer('streak_freezes').notNull().default(0),
    /** Missed-habit damage by local day (`{"2026-03-02": 15}`), the latest days only: see Avatar.missedDamage. */
    missedDamage: jsonb('missed_damage').$type<Record<string, number>>().notNull().default({}),
    timeZone: text('time_zone').notNull().default(DEFAULT_TIME_ZONE),
    /** How many times the avatar has died (a battle judges a fighter fallen when this moved on). */
    deaths: integer('deaths').notNull().default(0),
    version: integer('version').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull(),
  },
  (t) => [index('avatars_owner_idx').on(t.ownerId), index('avatars_level_idx').on(t.level)],
)

/**
 * Calls from other contexts that carried an idempotency key, with what they answered: a retried
 * call finds its key and gets the same answer without changing the avatar twice. Kept for the
 * retention period (RETENTION_DAYS), then deleted by the retention job.
 */
export const appliedCalls = avatarSchema.table(
  'applied_calls',
  {
    key: text('key').primaryKey(),
    avatarId: text('avatar_id').notNull(),
    operation: text('operation').notNull(),
    result: jsonb('result'),
    appliedAt: timestamp('applied_at', { withTimezone: true, mode: 'date' }).notNull(),
  },
  (t) => [index('applied_calls_avatar_idx').on(t.avatarId), index('applied_calls_applied_at_idx').on(t.appliedAt)],
)

/**
 * Owners whose account was deleted (AccountDeleted): none of their avatars is left, and none may be
 * made after (a creation under way when the account went, judged under the same per-owner lock).
 * Kept for the retention period, far longer than any token of the account could still be used.
 */
export const closedAccounts = avatarSchema.table(
  'closed_accounts',
  {
    ownerId: uuid('owner_id').primaryKey(),
    closedAt: timestamp('closed_at', { withTimezone: true, mode: 'date' }).notNull(),
  },
  (t) => [index('closed_accounts_closed_at_idx').on(t.closedAt)],
)

/**
 * What each avatar earned (experience and money; spending never counts against it), per bucket of
 * EARNINGS_BUCKET_MINUTES: written in the statement that writes the avatar's change, summed by the
 * reports, pruned after EARNINGS_KEPT_DAYS.
 */
export const earnings = avatarSchema.table(
  'earnings',
  {
    avatarId: text('avatar_id').notNull(),
    bucket: timestamp('bucket', { withTimezone: true, mode: 'date' }).notNull(),
    experience: bigint('experience', { mode: 'number' }).notNull(),
    money: bigint('money', { mode: 'number' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.avatarId, t.bucket] }), index('earnings_bucket_idx').on(t.bucket)],
)

export const outbox = outboxTable(avatarSchema)
export const inbox = inboxTable(avatarSchema)
