/** The edge's problem types: accounts and sessions (see platform/http/problem-types.ts). */
import type { ProblemCatalog } from '../../../platform/http/problem-types.js'

export const EDGE_PROBLEMS: ProblemCatalog = {
  'email-taken': { status: 409, title: 'Email taken', description: 'An account with this email exists already (emails are compared ignoring case). Log in instead, or register with another email.' },
  'invalid-credentials': { status: 401, title: 'Invalid credentials', description: 'The email or the password is wrong (which one is not said). Repeated failures are throttled: see `too-many-requests`.' },
  'invalid-refresh-token': { status: 401, title: 'Invalid refresh token', description: 'The refresh token is unknown, expired, revoked by a logout, or was used already (a used one revokes its whole session, in case it was stolen). Log in again.' },
}
