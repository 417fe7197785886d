import { Type } from 'typebox'
import { LinksSchema } from '../../../platform/http/links.js'
import { AvatarIdString, Nullable, StringEnum } from '../../../platform/http/schemas.js'
import { RECURRENCE_TYPES, WEEKDAYS } from '../../../platform/time/index.js'
import { HabitDescription, HabitTags, HabitTitle, withSchedule } from '../../tracking/client.js'
import { PARTICIPATION_STATUSES } from '../domain/participation.js'
import {
  DESCRIPTION_MAX, LIST_DEFAULT_LIMIT, LIST_MAX_LIMIT, NAME_MAX, QUEST_HABIT_ID_PATTERN, QUEST_HABITS_MAX, REWARD_MAX, REWARD_MIN,
} from '../domain/rules.js'

export const QuestIdParams = Type.Object({ id: Type.String({ format: 'uuid' }) })

const AvatarId = AvatarIdString()
export const ParticipantParams = Type.Object({ id: Type.String({ format: 'uuid' }), avatarId: AvatarId })

const Name = Type.String({ minLength: 1, maxLength: NAME_MAX, pattern: '\\S', description: 'Trimmed' })
const Description = Type.String({ maxLength: DESCRIPTION_MAX })
const Duration = Type.String({
  minLength: 1, maxLength: 64,
  description: 'ISO 8601 duration (P7D, PT12H, P1M2D, P1W, PT1.5H), positive, whole seconds and at most one year; a fraction only on the last of hours, minutes or seconds (P1DT12H, not P1.5D); returned as set',
})
const RewardAmount = Type.Integer({ minimum: REWARD_MIN, maximum: REWARD_MAX })
export const RewardBody = Type.Object({ experience: RewardAmount, money: RewardAmount }, { examples: [{ experience: 200, money: 100 }] })

/**
 * A habit's schedule, as a habit takes it: the type's own field required, the fields of other types
 * null or absent. A participant's TIMES_PER_WEEK copy needs each week of their window done; an
 * EVERY_N_DAYS copy counts its days from the join day.
 */
const Recurrence = withSchedule(Type.Object({ type: StringEnum(RECURRENCE_TYPES) }), 'type', {})

export const QuestHabitBody = Type.Object({
  habitId: Type.String({ pattern: QUEST_HABIT_ID_PATTERN, description: 'Chosen by the owner, unique in the quest; 1–64 of A–Z a–z 0–9 _ -' }),
  title: HabitTitle,
  description: Type.Optional(HabitDescription),
  tags: Type.Optional(HabitTags),
  recurrence: Recurrence,
}, {
  examples: [{
    habitId: 'long-run', title: 'Long run', description: '10 km or more, at an easy pace', tags: ['fitness', 'outdoors'],
    recurrence: { type: 'WEEKLY', dayOfWeek: 'SUNDAY' },
  }],
})

export const RemoveHabitBody = Type.Object({
  habitId: Type.String({ minLength: 1, maxLength: 64 }),
  title: Type.String({ minLength: 1, description: 'Must match the entry\'s title' }),
}, { examples: [{ habitId: 'evening-stretch', title: 'Evening stretch' }] })

export const CreateQuestBody = Type.Object({
  name: Name,
  description: Type.Optional(Description),
  duration: Type.Optional(Duration),
  reward: Type.Optional(RewardBody),
  guildId: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 64, description: 'Only members of this guild may join' }))),
  habits: Type.Optional(Type.Array(QuestHabitBody, { maxItems: QUEST_HABITS_MAX })),
  ownerAvatarId: Type.Optional(AvatarIdString({ description: 'An avatar the caller owns; default their registration avatar' })),
}, {
  examples: [{
    name: 'Two Weeks of Early Mornings', description: 'Up with the sun: a run every morning, and a short stretch three evenings a week.', duration: 'P14D',
    reward: { experience: 300, money: 150 },
    habits: [
      { habitId: 'morning-run', title: 'Morning run', description: 'At least 3 km', tags: ['fitness', 'outdoors'], recurrence: { type: 'DAILY' } },
      { habitId: 'evening-stretch', title: 'Evening stretch', tags: ['fitness'], recurrence: { type: 'TIMES_PER_WEEK', timesPerWeek: 3 } },
    ],
    ownerAvatarId: 'ada-ranger',
  }],
})

export const NameBody = Type.Object({ name: Name }, { examples: [{ name: 'Three Weeks of Early Mornings' }] })
export const DurationBody = Type.Object({ duration: Duration }, { examples: [{ duration: 'P21D' }] })
export const JoinBody = Type.Object({ avatarId: AvatarIdString({ description: 'An avatar the caller owns' }) }, { examples: [{ avatarId: 'grace-mage' }] })

const Limit = Type.Integer({ minimum: 1, maximum: LIST_MAX_LIMIT, default: LIST_DEFAULT_LIMIT })
export const ListQuery = Type.Object({
  limit: Limit,
  cursor: Type.Optional(Type.String({ format: 'uuid', description: 'The `next` of the previous page' })),
  avatarId: Type.Optional(AvatarIdString({ description: "Whose guild's quests to include (an avatar the caller owns; default their registration avatar)" })),
})
export const ParticipantsQuery = Type.Object({
  limit: Limit,
  cursor: Type.Optional(AvatarIdString({ description: 'The `next` of the previous page' })),
})

// ---- views ----

const RewardView = Type.Object({ experience: Type.Integer(), money: Type.Integer() })
const RecurrenceView = Type.Object({
  type: StringEnum(RECURRENCE_TYPES), dayOfMonth: Nullable(Type.Integer()), dayOfWeek: Nullable(StringEnum(WEEKDAYS)),
  timesPerWeek: Nullable(Type.Integer()), everyNDays: Nullable(Type.Integer()),
})

export const CreatedQuestView = Type.Object({ id: Type.String(), _links: LinksSchema })

export const QuestView = Type.Object({
  id: Type.String(),
  name: Type.String(),
  description: Type.String(),
  duration: Type.String(),
  reward: RewardView,
  habitIds: Type.Array(Type.String()),
  guildId: Nullable(Type.String()),
  ownerAvatarId: Type.String(),
  _links: LinksSchema,
})
export const QuestListView = Type.Object({ items: Type.Array(QuestView), next: Nullable(Type.String()) })

export const QuestHabitsView = Type.Object({
  habits: Type.Array(Type.Object({
    id: Type.String(),
    habitId: Type.String({ description: 'The same as id, as sent when added' }),
    title: Type.String(),
    description: Type.String(),
    tags: Type.Array(Type.String()),
    recurrence: RecurrenceView,
  })),
  _links: LinksSchema,
})

export const ParticipationView = Type.Object({
  id: Type.String(),
  questId: Type.String(),
  avatarId: Type.String(),
  status: StringEnum(PARTICIPATION_STATUSES),
  timeZone: Type.String(),
  window: Type.Object({ from: Type.String(), to: Type.String() }, { description: 'Local date-times: [from, to)' }),
  habits: Type.Array(Type.Object({
    habitId: Type.String({ description: "The quest's habit entry" }),
    title: Type.String(),
    copyHabitId: Type.String({ description: "The copy in the avatar's habits" }),
    required: Type.Integer(),
    done: Type.Integer(),
  })),
  required: Type.Integer(),
  done: Type.Integer(),
  percent: Type.Integer(),
  payout: RewardView,
  _links: LinksSchema,
})
export const ParticipationListView = Type.Object({ items: Type.Array(ParticipationView), next: Nullable(Type.String()) })
