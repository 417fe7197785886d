/**
 * Events the avatar context publishes: its public event contract. Payloads are plain values.
 */
import type { DomainEvent } from '../../platform/events/outbox.js'

export type AvatarCreated = DomainEvent<'AvatarCreated', { avatarId: string; ownerId: string; name: string }>
export type AvatarRenamed = DomainEvent<'AvatarRenamed', { avatarId: string; name: string }>
export type AvatarDeleted = DomainEvent<'AvatarDeleted', { avatarId: string; ownerId: string }>
export type AvatarLeveledUp = DomainEvent<
  'AvatarLeveledUp',
  { avatarId: string; level: number; levelsGained: number; spellsLearned: string[] }
>
export type AvatarDied = DomainEvent<'AvatarDied', { avatarId: string; moneyLost: number }>

export type AvatarEvent = AvatarCreated | AvatarRenamed | AvatarDeleted | AvatarLeveledUp | AvatarDied
