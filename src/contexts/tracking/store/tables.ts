import { sql } from 'drizzle-orm'
import { bigserial, boolean, date, index, integer, jsonb, pgSchema, primaryKey, text, timestamp, uuid } from 'drizzle-orm/pg-core'
import type { ArchivedSpan } from '../domain/archive.js'
import { inboxTable } from '../../../platform/events/inbox.js'
import { outboxTable } from '../../../platform/events/outbox.js'

export const trackingSchema = pgSchema('tracking')

const localDate = (name: string) => date(name, { mode: 'string' })
const instant = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' })

export const habits = trackingSchema.table(
  'habits',
  {
    id: uuid('id').primaryKey(),
    /** Creation order, for stable paging. */
    seq: bigserial('seq', { mode: 'number' }).notNull(),
    avatarId: text('avatar_id').notNull(),
    ownerId: uuid('owner_id').notNull(),
    title: text('title').notNull(),
    description: text('description').notNull(),
    tags: jsonb('tags').$type<string[]>().notNull(),
    recurrenceType: text('recurrence_type').notNull(),
    dayOfWeek: text('day_of_week'),
    dayOfMonth: integer('day_of_month'),
    timesPerWeek: integer('times_per_week'),
    everyNDays: integer('every_n_days'),
    /** EVERY_N_DAYS: the first window's start. */
    recurrenceAnchor: localDate('recurrence_anchor'),
    /** The habit's own zone; null: its avatar's (avatar_settings). */
    timeZone: text('time_zone'),
    restDays: jsonb('rest_days').$type<string[]>().notNull().default([]),
    previousRestDays: jsonb('previous_rest_days').$type<string[]>().notNull().default([]),
    restDaysFrom: localDate('rest_days_from'),
    /** Starts of windows a streak freeze covered (the latest). */
    frozenWindows: jsonb('frozen_windows').$type<string[]>().notNull().default([]),
    associatedQuestId: text('associated_quest_id'),
    /** Start of the first window that may be attended (creation, or the last recurrence change). */
    firstWindowStart: localDate('first_window_start').notNull(),
    /** Latest completion's local date-time, and the window it completed. */
    lastAttendedAt: text('last_attended_at'),
    lastCompletedWindowStart: localDate('last_completed_window_start'),
    /** Run of consecutive completed windows ending at lastCompletedWindowStart. */
    streak: integer('streak').notNull(),
    bestStreak: integer('best_streak').notNull(),
    /** The missed-window job has judged every window before this date. */
    missCheckFrom: localDate('miss_check_from').notNull(),
    /**
     * The instant the window starting at missCheckFrom ends, in the habit's days (its zone, its
     * avatar's day start and their changes): the job claims the habit from then, by this index.
     */
    missCheckAt: instant('miss_check_at').notNull(),
    /** `HH:mm` local, or null: no reminders. */
    reminderTime: text('reminder_time'),
    /** The reminder job has work for this habit from this instant (null: no reminder time). */
    remindAt: instant('remind_at'),
    /** Archived: kept with its history, neither attended, judged, reminded of nor in the calendar feed. */
    archived: boolean('archived').notNull().default(false),
    /** Days whose windows started while the habit was archived (domain/archive.ts): not due. */
    archivedSpans: jsonb('archived_spans').$type<ArchivedSpan[]>().notNull().default([]),
    version: integer('version').notNull(),
    createdAt: instant('created_at').notNull(),
  },
  (t) => [
    index('habits_avatar_idx').on(t.avatarId, t.seq),
    // An account's calendar feed reads the habits of all its avatars.
    index('habits_owner_idx').on(t.ownerId, t.seq),
    // The missed-window job never judges an archived habit: it is left out of the index the job claims by.
    index('habits_miss_check_at_idx').on(t.missCheckAt).where(sql`not ${t.archived}`),
    index('habits_remind_at_idx').on(t.remindAt),
  ],
)

/**
 * The first result of each keyed attend (a bulk item's key, scoped to its avatar): applied ones
 * written by the platform writer with the completion, refusals after them. A key answers this again.
 */
export const attendAnswers = trackingSchema.table(
  'attend_answers',
  {
    key: text('key').primaryKey(),
    habitId: uuid('habit_id').notNull(),
    /** `attend <date>`: the same key with another date names another call. */
    operation: text('operation').notNull(),
    /** null: applied (204); else the refusal `{status, problem}`. */
    result: jsonb('result'),
    answeredAt: instant('answered_at').notNull(),
  },
  (t) => [index('attend_answers_answered_at_idx').on(t.answeredAt)],
)

export const completions = trackingSchema.table(
  'completions',
  {
    habitId: uuid('habit_id').notNull(),
    windowStart: localDate('window_start').notNull(),
    attendedAt: text('attended_at').notNull(),
    recordedAt: instant('recorded_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.habitId, t.windowStart] })],
)

/** Windows judged without a completion: MISSED (penalised), FROZEN (a freeze took the penalty) or NOT_DUE. */
export const missedWindows = trackingSchema.table(
  'missed_windows',
  {
    habitId: uuid('habit_id').notNull(),
    windowStart: localDate('window_start').notNull(),
    recordedAt: instant('recorded_at').notNull(),
    outcome: text('outcome').notNull().default('MISSED'),
  },
  (t) => [primaryKey({ columns: [t.habitId, t.windowStart] })],
)

/** One row per (habit, window) reminded of: never a second reminder for a window, whichever replica runs the job. */
export const remindersSent = trackingSchema.table(
  'reminders_sent',
  {
    habitId: uuid('habit_id').notNull(),
    windowStart: localDate('window_start').notNull(),
    /** Once this date has come everywhere, the window is over and the row may go. */
    windowEnd: localDate('window_end').notNull(),
    sentAt: instant('sent_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.habitId, t.windowStart] }), index('reminders_sent_window_end_idx').on(t.windowEnd)],
)

/**
 * An avatar's day settings with the changes still governing windows (domain/settings.ts): the
 * last entry is the settings now. No row: the defaults.
 */
export const avatarSettings = trackingSchema.table('avatar_settings', {
  avatarId: text('avatar_id').primaryKey(),
  history: jsonb('history').notNull(),
  version: integer('version').notNull(),
  updatedAt: instant('updated_at').notNull(),
})

/**
 * An account's calendar feed (`GET /calendar/{secret}.ics`): the secret is shown once and kept only
 * as its SHA-256; a new one replaces the old (rotation), deleting the row revokes it.
 */
export const calendarFeeds = trackingSchema.table('calendar_feeds', {
  userId: uuid('user_id').primaryKey(),
  secretHash: text('secret_hash').notNull().unique(),
  createdAt: instant('created_at').notNull(),
})

export const outbox = outboxTable(trackingSchema)
export const inbox = inboxTable(trackingSchema)
