/**
 * Events the edge publishes: its public event contract. Payloads are plain values, checked
 * against these schemas when a consumer receives them. `version` is the account's version after
 * the change (1 when it is made).
 */
import { Type } from 'typebox'
import { eventsOf, type DraftsOf, type EventOf } from '../../platform/events/contract.js'

const event = eventsOf('edge')

/** An account was made and its avatar provisioned: the registration is complete. */
export const UserRegistered = event('UserRegistered', Type.Object({ userId: Type.String(), name: Type.String() }))

/**
 * An account was deleted (`DELETE /api/v1/me`): its tokens are revoked; every context forgets what
 * it holds of the account (the avatar context deletes its avatars, which cascades as an avatar
 * deletion does).
 */
export const AccountDeleted = event('AccountDeleted', Type.Object({ userId: Type.String() }))

export type UserRegistered = EventOf<typeof UserRegistered>
export type AccountDeleted = EventOf<typeof AccountDeleted>

export type EdgeDraft = DraftsOf<[typeof UserRegistered, typeof AccountDeleted]>
