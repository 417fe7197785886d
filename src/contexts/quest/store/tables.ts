import { bigserial, boolean, index, integer, jsonb, pgSchema, primaryKey, text, timestamp, uuid } from 'drizzle-orm/pg-core'
import { inboxTable } from '../../../platform/events/inbox.js'
import { outboxTable } from '../../../platform/events/outbox.js'
import type { ParticipantHabit } from '../domain/participation.js'
import type { QuestHabit } from '../domain/quest.js'

export const questSchema = pgSchema('quest')

const instant = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' })

export const quests = questSchema.table(
  'quests',
  {
    id: uuid('id').primaryKey(),
    /** Creation order, for stable paging. */
    seq: bigserial('seq', { mode: 'number' }).notNull(),
    name: text('name').notNull(),
    description: text('description').notNull(),
    /** ISO 8601, as set. */
    duration: text('duration').notNull(),
    rewardExperience: integer('reward_experience').notNull(),
    rewardMoney: integer('reward_money').notNull(),
    guildId: text('guild_id'),
    ownerAvatarId: text('owner_avatar_id').notNull(),
    ownerId: uuid('owner_id').notNull(),
    /** The habit entries, in the order added (at most a few dozen). */
    habits: jsonb('habits').$type<QuestHabit[]>().notNull(),
    createdAt: instant('created_at').notNull(),
  },
  (t) => [index('quests_seq_idx').on(t.seq), index('quests_owner_idx').on(t.ownerId, t.seq), index('quests_guild_idx').on(t.guildId, t.seq)],
)

export const participations = questSchema.table(
  'participations',
  {
    id: uuid('id').notNull().unique(),
    questId: uuid('quest_id').notNull(),
    avatarId: text('avatar_id').notNull(),
    /** Join order, for stable paging. */
    seq: bigserial('seq', { mode: 'number' }).notNull(),
    status: text('status').notNull(),
    timeZone: text('time_zone').notNull(),
    /** The participant's day start hour at the join (0 before avatars had one: days from midnight). */
    dayStartHour: integer('day_start_hour').notNull().default(0),
    /** The participant's window, local date-times 'YYYY-MM-DDTHH:mm:ss' in time_zone. */
    windowFrom: text('window_from').notNull(),
    windowTo: text('window_to').notNull(),
    /** The instant window_to names in time_zone: participants' zones differ, so the expiry job finds ended windows by it. */
    endsAt: instant('ends_at').notNull(),
    payoutExperience: integer('payout_experience').notNull(),
    payoutMoney: integer('payout_money').notNull(),
    habits: jsonb('habits').$type<ParticipantHabit[]>().notNull(),
    copiesMade: boolean('copies_made').notNull(),
    joinedAt: instant('joined_at').notNull(),
    version: integer('version').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.questId, t.avatarId] }),
    index('participations_quest_idx').on(t.questId, t.seq),
    index('participations_avatar_idx').on(t.avatarId),
    index('participations_running_idx').on(t.status, t.endsAt),
    index('participations_copying_idx').on(t.copiesMade, t.joinedAt),
  ],
)

/**
 * Habit copies whose quest link is still to be cleared in tracking (after a leave, an expiry or
 * a deleted quest). Written with the change that causes it, so a crash before the call to
 * tracking is finished later by the job.
 */
export const pendingUnlinks = questSchema.table('pending_unlinks', {
  habitId: uuid('habit_id').primaryKey(),
  questId: uuid('quest_id').notNull(),
  queuedAt: instant('queued_at').notNull(),
})

export const outbox = outboxTable(questSchema)
export const inbox = inboxTable(questSchema)
