/** Events the quest context publishes: its public event contract. Payloads are plain values. */
import type { DomainEvent } from '../../platform/events/outbox.js'

/** A participant did every required completion in their window; `reward` is what they are paid (capped). */
export type QuestCompleted = DomainEvent<'QuestCompleted', {
  questId: string
  avatarId: string
  reward: { experience: number; money: number }
}>

export type QuestEvent = QuestCompleted
