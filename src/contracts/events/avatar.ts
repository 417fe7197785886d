/**
 * Events the avatar context publishes: its public event contract. Payloads are plain values,
 * checked against these schemas when a consumer receives them. `version` is the avatar's version
 * after the change.
 */
import { Type } from 'typebox'
import { eventsOf, type DraftsOf, type EventOf } from '../../platform/events/contract.js'

const event = eventsOf('avatar')

export const AvatarCreated = event('AvatarCreated', Type.Object({ avatarId: Type.String(), ownerId: Type.String(), name: Type.String() }))
export const AvatarRenamed = event('AvatarRenamed', Type.Object({ avatarId: Type.String(), name: Type.String() }))
export const AvatarDeleted = event('AvatarDeleted', Type.Object({ avatarId: Type.String(), ownerId: Type.String() }))
export const AvatarLeveledUp = event('AvatarLeveledUp', Type.Object({
  avatarId: Type.String(), level: Type.Integer({ minimum: 1 }), levelsGained: Type.Integer({ minimum: 1 }), spellsLearned: Type.Array(Type.String()),
}))
export const AvatarDied = event('AvatarDied', Type.Object({ avatarId: Type.String(), moneyLost: Type.Integer({ minimum: 0 }) }))
const Items = Type.Array(Type.Object({ type: Type.String(), name: Type.String() }))
/** A local date (`YYYY-MM-DD`), as the habit's events give it. */
const LocalDate = Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}' })
const Freezes = Type.Object({ held: Type.Integer({ minimum: 0 }), max: Type.Integer({ minimum: 0 }) })
/**
 * The avatar's state after a change (once per write, however many commands it applied): what a
 * player's live stream shows without reading the avatar again.
 */
export const AvatarChanged = event('AvatarChanged', Type.Object({
  avatarId: Type.String(), level: Type.Integer({ minimum: 1 }), experience: Type.Integer({ minimum: 0 }), experienceRequired: Type.Integer({ minimum: 0 }),
  health: Type.Integer(), maxHealth: Type.Integer(), mana: Type.Integer(), maxMana: Type.Integer(), money: Type.Number(),
  strength: Type.Integer(), defense: Type.Integer(), intelligence: Type.Integer(), unspentPoints: Type.Integer(),
  inventory: Items, equipped: Items,
  /** Optional: an event written without it says nothing of freezes. */
  streakFreezes: Type.Optional(Freezes),
}))
/**
 * How the avatar paid for a habit's missed window (a HabitMissed, DESIGN §9.3): FROZEN, a streak
 * freeze took it (no damage; tracking shows the window FROZEN and keeps the streak), or DAMAGED,
 * `damage` taken: the window's `penalty`, or less (down to 0) where the day's cap on missed-habit
 * damage (`dailyCap`) is reached, counted per local day by `windowEnd` (the window's end,
 * exclusive: the day its penalty falls on). Once per HabitMissed; dates as the HabitMissed gave them.
 */
export const MissedWindowSettled = event('MissedWindowSettled', Type.Object({
  avatarId: Type.String(),
  habitId: Type.String(),
  questId: Type.Union([Type.String(), Type.Null()]),
  windowStart: LocalDate,
  windowEnd: LocalDate,
  outcome: Type.Union([Type.Literal('DAMAGED'), Type.Literal('FROZEN')]),
  damage: Type.Integer({ minimum: 0 }),
  penalty: Type.Integer({ minimum: 0 }),
  dailyCap: Type.Integer({ minimum: 0 }),
  /** Streak freezes the avatar holds after it. */
  freezesHeld: Type.Integer({ minimum: 0 }),
}))

/**
 * How an avatar's week in its league division ended (DESIGN §9.5), once per avatar and season: its
 * rank, PROMOTED, STAYED or DEMOTED, the tier it plays next, and the money its rank earned (paid by
 * the avatar context on this event, once). Its version is 0: it changes no avatar by itself.
 */
export const LeagueResult = event('LeagueResult', Type.Object({
  avatarId: Type.String(),
  season: Type.String(),
  tier: Type.String(),
  nextTier: Type.String(),
  rank: Type.Integer({ minimum: 1 }),
  score: Type.Integer({ minimum: 0 }),
  result: Type.Union([Type.Literal('PROMOTED'), Type.Literal('STAYED'), Type.Literal('DEMOTED')]),
  reward: Type.Integer({ minimum: 0 }),
}))

export type AvatarCreated = EventOf<typeof AvatarCreated>
export type AvatarRenamed = EventOf<typeof AvatarRenamed>
export type AvatarDeleted = EventOf<typeof AvatarDeleted>
export type AvatarLeveledUp = EventOf<typeof AvatarLeveledUp>
export type AvatarDied = EventOf<typeof AvatarDied>
export type AvatarChanged = EventOf<typeof AvatarChanged>
export type MissedWindowSettled = EventOf<typeof MissedWindowSettled>
export type LeagueResult = EventOf<typeof LeagueResult>

export type AvatarDraft = DraftsOf<[
  typeof AvatarCreated, typeof AvatarRenamed, typeof AvatarDeleted, typeof AvatarLeveledUp, typeof AvatarDied,
  typeof AvatarChanged, typeof MissedWindowSettled, typeof LeagueResult,
]>
