/** Events the tracking context publishes: its public event contract. Payloads are plain values. */
import type { DomainEvent } from '../../platform/events/outbox.js'

export type HabitAttended = DomainEvent<'HabitAttended', {
  habitId: string
  avatarId: string
  questId: string | null
  windowStart: string
  windowEnd: string
  attendedAt: string
  /** Consecutive completed windows ending with this one. */
  streak: number
  reward: { experience: number; money: number }
}>

export type HabitMissed = DomainEvent<'HabitMissed', {
  habitId: string
  avatarId: string
  questId: string | null
  windowStart: string
  windowEnd: string
  damage: number
}>

export type HabitCreated = DomainEvent<'HabitCreated', { habitId: string; avatarId: string; questId: string | null }>
export type HabitDeleted = DomainEvent<'HabitDeleted', { habitId: string; avatarId: string; questId: string | null }>

export type TrackingEvent = HabitAttended | HabitMissed | HabitCreated | HabitDeleted
