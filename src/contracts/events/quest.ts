/**
 * Events the quest context publishes: its public event contract. Payloads are plain values,
 * checked against these schemas when a consumer receives them. `version` is the participation's
 * version after the change.
 */
import { Type } from 'typebox'
import { eventsOf, type DraftsOf, type EventOf } from '../../platform/events/contract.js'

const event = eventsOf('quest')

/** A participant did every required completion in their window; `reward` is what they are paid (capped). */
export const QuestCompleted = event('QuestCompleted', Type.Object({
  questId: Type.String(),
  avatarId: Type.String(),
  reward: Type.Object({ experience: Type.Integer({ minimum: 0 }), money: Type.Integer({ minimum: 0 }) }),
}))

/** A participant's window closed before every required completion: no payout. */
export const QuestExpired = event('QuestExpired', Type.Object({
  questId: Type.String(),
  avatarId: Type.String(),
  done: Type.Integer({ minimum: 0, description: 'Completions made' }),
  required: Type.Integer({ minimum: 0, description: 'Completions the payout needed' }),
}))

export type QuestCompleted = EventOf<typeof QuestCompleted>
export type QuestExpired = EventOf<typeof QuestExpired>

export type QuestDraft = DraftsOf<[typeof QuestCompleted, typeof QuestExpired]>
