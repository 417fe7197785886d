/** The guild context's problem types: guilds, members, invites and battles (see platform/http/problem-types.ts). */
import type { ProblemCatalog } from '../../../platform/http/problem-types.js'

export const GUILD_PROBLEMS: ProblemCatalog = {
  'guild-name-taken': { status: 409, title: 'Guild name taken', description: 'Another guild has this name (compared ignoring case); choose another.' },
  'invalid-guild-name': { status: 400, title: 'Invalid guild name', description: 'A guild name is too short or too long once the spaces around it are trimmed (`detail` gives the bounds).' },
  'invalid-nickname': { status: 400, title: 'Invalid nickname', description: 'A nickname is too short or too long once the spaces around it are trimmed (`detail` gives the bounds).' },
  'nickname-taken': { status: 409, title: 'Nickname taken', description: 'Another member of this guild already goes by this nickname.' },
  'already-in-guild': { status: 409, title: 'Already in a guild', description: 'The avatar belongs to a guild already; an avatar belongs to at most one. It leaves that guild first.' },
  'already-member': { status: 400, rule: true, title: 'Already a member', description: 'The avatar is already a member of this guild.' },
  'guild-full': { status: 400, rule: true, title: 'Guild full', description: 'The guild has as many members as a guild may.' },
  'guild-role-required': { status: 403, title: 'Guild role required', description: 'Only some roles of the guild may do this (`detail` says which: the leader, or the leader or an officer).' },
  'not-a-member': { status: 400, rule: true, title: 'Not a member', description: 'The avatar named is not a member of this guild.' },
  'own-role': { status: 400, rule: true, title: 'Own role', description: 'The leader cannot change their own role; leadership is transferred instead.' },
  'leader-cannot-be-removed': { status: 400, rule: true, title: 'Leader cannot be removed', description: 'The leader is not removed from the guild; the leader leaves or transfers leadership.' },
  'invite-pending': { status: 409, title: 'Invite pending', description: 'The avatar already has a pending invite to this guild.' },
  'invite-expired': { status: 400, rule: true, title: 'Invite expired', description: 'The invite has expired; ask for a new one.' },
  'not-invite-target': { status: 400, rule: true, title: 'Not the invited avatar', description: 'The invite is for another avatar.' },
  'battle-in-progress': { status: 400, rule: true, title: 'Battle in progress', description: 'The guild is already fighting a battle; a guild fights one at a time.' },
  'battle-over': { status: 400, rule: true, title: 'Battle over', description: 'The battle has ended (won, lost or abandoned); nothing more happens in it.' },
  'battle-of-another-guild': { status: 400, rule: true, title: 'Battle of another guild', description: 'The battle named is not a battle of the guild named.' },
  'not-a-participant': { status: 403, title: 'Not a participant', description: 'The avatar is not a participant of this battle: the participants are the guild\'s members when it started.' },
  'invalid-message-text': { status: 400, title: 'Invalid message text', description: 'A chat message is too short or too long once the spaces around it are trimmed (`detail` gives the bounds).' },
  'guild-members-only': { status: 403, title: 'Guild members only', description: "Only the guild's members read and write its chat: the caller owns none of them." },
  'chat-rate-limited': { status: 429, title: 'Too many messages', description: 'The member posted as many messages as a member may in a short window; wait the seconds the `Retry-After` header gives.' },
  'attacker-fallen': { status: 400, rule: true, title: 'Attacker fallen', description: 'The avatar has fallen in this battle and cannot attack again in it.' },
}
