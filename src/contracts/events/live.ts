/**
 * Events the live context publishes: its public event contract. A stream of the player's events
 * carries each new notification (DESIGN §9.2).
 */
import { Type } from 'typebox'
import { eventsOf, type DraftsOf, type EventOf } from '../../platform/events/contract.js'

const event = eventsOf('live')

export const NotificationCreated = event('NotificationCreated', Type.Object({
  notificationId: Type.String(), avatarId: Type.String(), type: Type.String(), title: Type.String(),
}))

export type NotificationCreated = EventOf<typeof NotificationCreated>

export type LiveDraft = DraftsOf<[typeof NotificationCreated]>
