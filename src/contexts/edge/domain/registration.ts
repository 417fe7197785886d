/**
 * The registration saga (DESIGN §5): a user and its avatar are made both or neither. Pure.
 *
 * PENDING ── avatar provisioned ──▶ DONE (the user is active)
 *    │
 *    └─ provisioning failed, or the run was abandoned ──▶ COMPENSATING ── avatar discarded, user deleted ──▶ COMPENSATED
 *
 * A failed provisioning may still have made the avatar (an answer lost on the way), so the
 * compensation always discards it; discarding an avatar that does not exist changes nothing.
 */
export const REGISTRATION_STATES = ['PENDING', 'DONE', 'COMPENSATING', 'COMPENSATED'] as const
export type RegistrationState = (typeof REGISTRATION_STATES)[number]

/** States a registration still leaves; once its lease runs out, the recovery job takes it over. */
export const OPEN_REGISTRATION_STATES = ['PENDING', 'COMPENSATING'] as const satisfies readonly RegistrationState[]
/** States a registration never leaves: its log row is kept for the retention period, then deleted. */
export const SETTLED_REGISTRATION_STATES = ['DONE', 'COMPENSATED'] as const satisfies readonly RegistrationState[]

export type UserStatus = 'PENDING' | 'ACTIVE'

/** Only an active user may log in: a registration not complete has made no account yet. */
export const canLogIn = (status: string): boolean => status === 'ACTIVE'
