import { sql } from 'drizzle-orm'
import { bigint, index, integer, jsonb, pgSchema, primaryKey, smallint, text, timestamp, uuid } from 'drizzle-orm/pg-core'
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
    /** totalExperience(level, experience), written with every change: the experience board's order. */
    totalExperience: bigint('total_experience', { mode: 'number' }).notNull().default(0),
    /**
     * When the total took its value: the board's tie-break (who reached it first). Set by the
     * database (trigger avatars_experience_reached, the experience_board migration) whenever
     * total_experience changes, so no write path can forget it.
     */
    experienceReachedAt: timestamp('experience_reached_at', { withTimezone: true, mode: 'date' }).notNull().default(sql`clock_timestamp()`),
  },
  (t) => [
    index('avatars_owner_idx').on(t.ownerId),
    index('avatars_level_idx').on(t.level),
    // The total negated, so one row comparison on the three columns follows board order.
    index('avatars_experience_board_idx').on(sql`(-${t.totalExperience})`, t.experienceReachedAt, t.id),
  ],
)

/**
 * Counts of avatars by place on the experience board, kept by the database in the statement that
 * changes an avatar (triggers of the experience_board migration; an update is tallied only when
 * its total or reaching time moved): level 1 counts per bucket of EXPERIENCE_BOARD_BUCKET total experience (`block` -1),
 * level 2 per exact total (`block` -1), and level 0 per exact total and
 * EXPERIENCE_BOARD_BLOCK_SECONDS block of the time it was reached.
 * A rank sums them instead of counting every avatar ahead (store/experience-board.ts).
 */
export const experienceTallies = avatarSchema.table(
  'experience_tallies',
  {
    level: smallint('level').notNull(),
    key: bigint('key', { mode: 'number' }).notNull(),
    block: bigint('block', { mode: 'number' }).notNull(),
    avatars: integer('avatars').notNull(),
  },
  (t) => [primaryKey({ columns: [t.level, t.key, t.block] })],
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

/**
 * Each avatar's score in a weekly league season (DESIGN §9.5): experience from play, added with the
 * avatar's change (a part of its write), and when it reached that score. The first row of an
 * avatar's week enters it into a division: a trigger (migrations 0028 `leagues`, 0031) takes the
 * tier's counter row of the season (`league_divisions`) and sets `tier` and `division` in that
 * statement, unless the avatar's last week is still to close: then both stay null until the
 * season-end job places the entry (`avatar.league_place`), in the tier that week's end set.
 */
export const leagueEntries = avatarSchema.table(
  'league_entries',
  {
    season: text('season').notNull(),
    avatarId: text('avatar_id').notNull(),
    tier: text('tier'),
    division: integer('division'),
    score: bigint('score', { mode: 'number' }).notNull(),
    reachedAt: timestamp('reached_at', { withTimezone: true, mode: 'date' }).notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.season, t.avatarId] }), index('league_entries_division_idx').on(t.season, t.tier, t.division),
    index('league_entries_avatar_idx').on(t.avatarId),
  ],
)

/** Per season and tier: how many divisions it has and how many entered the last (the allocation's lock). */
export const leagueDivisions = avatarSchema.table(
  'league_divisions',
  {
    season: text('season').notNull(),
    tier: text('tier').notNull(),
    divisions: integer('divisions').notNull(),
    lastMembers: integer('last_members').notNull(),
  },
  (t) => [primaryKey({ columns: [t.season, t.tier] })],
)

/** An avatar's tier for the weeks to come, set by the last season it played; none: the first tier. */
export const leagueTiers = avatarSchema.table('league_tiers', {
  avatarId: text('avatar_id').primaryKey(),
  tier: text('tier').notNull(),
})

/** A division whose season was closed: its row is the claim that closes it exactly once. */
export const leagueClosings = avatarSchema.table(
  'league_closings',
  {
    season: text('season').notNull(),
    tier: text('tier').notNull(),
    division: integer('division').notNull(),
    closedAt: timestamp('closed_at', { withTimezone: true, mode: 'date' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.season, t.tier, t.division] })],
)

/** How each avatar's season ended (its league history). */
export const leagueResults = avatarSchema.table(
  'league_results',
  {
    season: text('season').notNull(),
    avatarId: text('avatar_id').notNull(),
    tier: text('tier').notNull(),
    division: integer('division').notNull(),
    rank: integer('rank').notNull(),
    score: bigint('score', { mode: 'number' }).notNull(),
    result: text('result').notNull(),
    reward: integer('reward').notNull(),
  },
  (t) => [primaryKey({ columns: [t.avatarId, t.season] })],
)
