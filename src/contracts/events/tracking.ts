/**
 * Events the tracking context publishes: its public event contract. Payloads are plain values,
 * checked against these schemas when a consumer receives them. `version` is the habit's version
 * after the change.
 */
import { Type } from 'typebox'
import { eventsOf, type DraftsOf, type EventOf } from '../../platform/events/contract.js'

const event = eventsOf('tracking')
const QuestId = Type.Union([Type.String(), Type.Null()])
/** A local date (`YYYY-MM-DD`) or local date-time, as the API writes them. */
const Local = Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}' })
const Reward = Type.Object({ experience: Type.Integer({ minimum: 0 }), money: Type.Integer({ minimum: 0 }) })
/**
 * A reminder time: `HH:mm`, 00:00–23:59, two digits each, as the habit API and its events write it
 * (no `(?` group: the API fuzz builds values from it).
 */
export const REMINDER_TIME_PATTERN = '^([01][0-9]|2[0-3]):[0-5][0-9]$'

export const HabitAttended = event('HabitAttended', Type.Object({
  habitId: Type.String(),
  avatarId: Type.String(),
  questId: QuestId,
  windowStart: Local,
  windowEnd: Local,
  attendedAt: Local,
  /** The run this completion continues, itself included: done windows before it (over frozen and not-due ones) plus one. */
  streak: Type.Integer({ minimum: 1 }),
  /** Whether it made its window done: false only for a TIMES_PER_WEEK week still short. Optional: an event written without it made its window done. */
  windowCompleted: Type.Optional(Type.Boolean()),
  reward: Reward,
}))
export const HabitMissed = event('HabitMissed', Type.Object({
  habitId: Type.String(),
  avatarId: Type.String(),
  questId: QuestId,
  windowStart: Local,
  windowEnd: Local,
  /** The window's penalty; the avatar takes it, or a streak freeze does, or none past the day's cap (DESIGN §9.3). */
  damage: Type.Integer({ minimum: 0 }),
}))
/**
 * The reminder time of a habit's current window has come and the window is not completed (DESIGN
 * §9.2); at most one per (habit, window). The window is given as instants (its first day's start,
 * and the start of the day after its last); `reminderTime` is local to `timeZone`.
 */
export const HabitReminderDue = event('HabitReminderDue', Type.Object({
  habitId: Type.String(),
  avatarId: Type.String(),
  habitTitle: Type.String(),
  questId: QuestId,
  windowStart: Type.String({ description: 'ISO 8601 instant' }),
  windowEnd: Type.String({ description: 'ISO 8601 instant' }),
  reminderTime: Type.String({ pattern: REMINDER_TIME_PATTERN }),
  timeZone: Type.String(),
}))
export const HabitCreated = event('HabitCreated', Type.Object({ habitId: Type.String(), avatarId: Type.String(), questId: QuestId }))
export const HabitDeleted = event('HabitDeleted', Type.Object({ habitId: Type.String(), avatarId: Type.String(), questId: QuestId }))

export type HabitAttended = EventOf<typeof HabitAttended>
export type HabitMissed = EventOf<typeof HabitMissed>
export type HabitReminderDue = EventOf<typeof HabitReminderDue>
export type HabitCreated = EventOf<typeof HabitCreated>
export type HabitDeleted = EventOf<typeof HabitDeleted>

export type TrackingDraft = DraftsOf<[
  typeof HabitAttended, typeof HabitMissed, typeof HabitReminderDue, typeof HabitCreated, typeof HabitDeleted,
]>
