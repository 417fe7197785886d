import { sql } from 'drizzle-orm'
import { bigint, bigserial, boolean, index, integer, jsonb, pgSchema, primaryKey, smallint, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core'
import { inboxTable } from '../../../platform/events/inbox.js'
import { outboxTable } from '../../../platform/events/outbox.js'
import type { Participant, StrikeBackDue } from '../domain/battle.js'

export const guildSchema = pgSchema('guild')

const instant = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' })

export const guilds = guildSchema.table(
  'guilds',
  {
    id: uuid('id').primaryKey(),
    /** Creation order, for stable paging and rank ties. */
    seq: bigserial('seq', { mode: 'number' }).notNull(),
    name: text('name').notNull(),
    points: bigint('points', { mode: 'number' }).notNull(),
    createdAt: instant('created_at').notNull(),
    /** The membership's version: the events of a change carry it (DESIGN §3). Points do not count. */
    version: integer('version').notNull().default(1),
  },
  (t) => [
    uniqueIndex('guilds_name_key').on(sql`lower(${t.name})`),
    // Rank order: most points first, older guild first on a tie. NULLS FIRST is what a plain
    // ORDER BY points DESC means; an index that differs would not serve the leaderboard.
    index('guilds_rank_idx').on(t.points.desc().nullsFirst(), t.seq),
  ],
)

export const members = guildSchema.table(
  'members',
  {
    /** An avatar belongs to at most one guild. */
    avatarId: text('avatar_id').primaryKey(),
    guildId: uuid('guild_id').notNull(),
    /** Joining order, which decides succession (timestamps can tie). */
    seq: bigserial('seq', { mode: 'number' }).notNull(),
    nickname: text('nickname').notNull(),
    role: text('role').notNull(),
    joinedAt: instant('joined_at').notNull(),
  },
  (t) => [index('members_guild_idx').on(t.guildId), uniqueIndex('members_nickname_key').on(t.guildId, sql`lower(${t.nickname})`)],
)

export const invites = guildSchema.table(
  'invites',
  {
    id: uuid('id').primaryKey(),
    guildId: uuid('guild_id').notNull(),
    targetAvatarId: text('target_avatar_id').notNull(),
    invitedBy: text('invited_by').notNull(),
    createdAt: instant('created_at').notNull(),
    expiresAt: instant('expires_at').notNull(),
  },
  (t) => [uniqueIndex('invites_pending_key').on(t.guildId, t.targetAvatarId), index('invites_target_idx').on(t.targetAvatarId), index('invites_expiry_idx').on(t.expiresAt)],
)

export const battles = guildSchema.table(
  'battles',
  {
    id: uuid('id').primaryKey(),
    guildId: uuid('guild_id').notNull(),
    bossType: text('boss_type').notNull(),
    status: text('status').notNull(),
    currentTurn: integer('current_turn').notNull(),
    numOfTurns: integer('num_of_turns').notNull(),
    bossRemainingHealth: integer('boss_remaining_health').notNull(),
    participants: jsonb('participants').$type<Participant[]>().notNull(),
    startedAt: instant('started_at').notNull(),
    endedAt: instant('ended_at'),
    /** One on when it starts, one on per turn and per participant found out of the fight. */
    version: integer('version').notNull().default(1),
    /** The strike-backs of its last write, which the avatar context may not have applied yet: its next batch makes sure they are first. */
    strikeBacksDue: jsonb('strike_backs_due').$type<StrikeBackDue[]>().notNull().default([]),
  },
  (t) => [
    index('battles_guild_idx').on(t.guildId, t.startedAt),
    // One battle in progress per guild, held by the database as well as the rules.
    uniqueIndex('battles_one_in_progress_key').on(t.guildId).where(sql`${t.status} = 'IN_PROGRESS'`),
  ],
)

/** One row per accepted attack: the turn it used and what it did. */
export const attacks = guildSchema.table(
  'attacks',
  {
    battleId: uuid('battle_id').notNull(),
    turn: integer('turn').notNull(),
    attackerAvatarId: text('attacker_avatar_id').notNull(),
    requestedDamage: integer('requested_damage').notNull(),
    dealt: integer('dealt').notNull(),
    strikeBack: integer('strike_back').notNull(),
    attackerFell: boolean('attacker_fell').notNull(),
    at: instant('at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.battleId, t.turn] })],
)

/**
 * Counts of guilds by points, kept with every points change so a guild's rank is a few short
 * sums instead of counting every guild ahead of it (see guildRepo.rankOf). Level 1 rows count
 * guilds per points bucket (`key` = points / RANK_BUCKET_POINTS, `block` = -1); level 0 rows
 * count guilds per exact points value and creation block (`key` = points, `block` =
 * seq / RANK_BLOCK_GUILDS), which orders ties by age without counting them one by one.
 */
export const rankTallies = guildSchema.table(
  'rank_tallies',
  {
    level: smallint('level').notNull(),
    key: bigint('key', { mode: 'number' }).notNull(),
    block: bigint('block', { mode: 'number' }).notNull(),
    guilds: integer('guilds').notNull(),
  },
  (t) => [primaryKey({ columns: [t.level, t.key, t.block] })],
)

export const outbox = outboxTable(guildSchema)
export const inbox = inboxTable(guildSchema)

/**
 * Guild chat messages (DESIGN §9.5). A deleted one stays as a tombstone: its text null, who
 * deleted it and when. The author's name is the one it had when the message was sent.
 */
export const chatMessages = guildSchema.table(
  'chat_messages',
  {
    id: uuid('id').primaryKey(),
    /** Posting order: pages run by it (instants can tie). */
    seq: bigserial('seq', { mode: 'number' }).notNull(),
    guildId: uuid('guild_id').notNull(),
    authorAvatarId: text('author_avatar_id').notNull(),
    authorName: text('author_name').notNull(),
    text: text('text'),
    sentAt: instant('sent_at').notNull(),
    deletedByAvatarId: text('deleted_by_avatar_id'),
    deletedByName: text('deleted_by_name'),
    deletedAt: instant('deleted_at'),
  },
  (t) => [
    index('chat_messages_guild_idx').on(t.guildId, t.seq),
    index('chat_messages_author_idx').on(t.authorAvatarId, t.sentAt),
    index('chat_messages_sent_idx').on(t.sentAt),
  ],
)
