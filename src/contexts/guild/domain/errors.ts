import { AppError, BadRequest, Conflict, Forbidden, RuleViolation } from '../../../platform/errors.js'

export class GuildNameTaken extends Conflict {
  constructor(name: string) {
    super(`A guild named '${name}' already exists (names are compared ignoring case).`, 'guild-name-taken')
  }
}

export class InvalidGuildName extends BadRequest {
  constructor(min: number, max: number) {
    super(`A guild name is ${min}–${max} characters, not counting spaces around it.`, 'invalid-guild-name', [
      { path: '/name', message: `must be ${min}–${max} characters after trimming` },
    ])
  }
}

export class InvalidNickname extends BadRequest {
  constructor(path: string, min: number, max: number) {
    super(`A nickname is ${min}–${max} characters, not counting spaces around it.`, 'invalid-nickname', [
      { path, message: `must be ${min}–${max} characters after trimming` },
    ])
  }
}

export class NicknameTaken extends Conflict {
  constructor(nickname: string) {
    super(`Another member of this guild is already called '${nickname}'.`, 'nickname-taken')
  }
}

/**
 * The avatar is in a guild already (an avatar belongs to at most one): a conflict with its
 * membership, which the answer names. Unnamed only inside a store that lost a race to it.
 */
export class AlreadyInGuild extends Conflict {
  constructor(readonly avatarId: string, readonly guildId?: string) {
    super(`Avatar '${avatarId}' already belongs to ${guildId ? `guild '${guildId}'` : 'a guild'}; an avatar belongs to at most one.`, 'already-in-guild')
  }
}

export class AlreadyMember extends RuleViolation {
  constructor(avatarId: string) {
    super('already-member', `Avatar '${avatarId}' is already a member of this guild.`)
  }
}

export class GuildFull extends RuleViolation {
  constructor(cap: number) {
    super('guild-full', `A guild has at most ${cap} members.`)
  }
}

export class GuildRoleRequired extends Forbidden {
  constructor(action: string, roles: readonly string[]) {
    super(`Only the guild's ${roles.map((r) => r.toLowerCase()).join(' or ')} may ${action}.`, 'guild-role-required')
  }
}

export class NotAMember extends RuleViolation {
  constructor(avatarId: string) {
    super('not-a-member', `Avatar '${avatarId}' is not a member of this guild.`)
  }
}

export class CannotChangeOwnRole extends RuleViolation {
  constructor() {
    super('own-role', "The leader cannot change their own role; transfer leadership instead.")
  }
}

export class LeaderCannotBeRemoved extends RuleViolation {
  constructor() {
    super('leader-cannot-be-removed', 'The leader cannot be removed; the leader leaves or transfers leadership.')
  }
}

export class InvitePending extends Conflict {
  constructor(avatarId: string) {
    super(`Avatar '${avatarId}' already has a pending invite to this guild.`, 'invite-pending')
  }
}

export class InviteExpired extends RuleViolation {
  constructor(expiredAt: string) {
    super('invite-expired', `The invite expired at ${expiredAt}; ask for a new one.`)
  }
}

export class NotInviteTarget extends RuleViolation {
  constructor(avatarId: string) {
    super('not-invite-target', `The invite is for another avatar, not '${avatarId}'.`)
  }
}

export class BattleInProgress extends RuleViolation {
  constructor(battleId: string) {
    super('battle-in-progress', `The guild is already fighting battle '${battleId}'; one battle at a time.`)
  }
}

export class BattleOver extends RuleViolation {
  constructor(status: string) {
    super('battle-over', `The battle is over (${status}).`)
  }
}

export class BattleOfAnotherGuild extends RuleViolation {
  constructor(battleId: string, guildId: string) {
    super('battle-of-another-guild', `Battle '${battleId}' is not a battle of guild '${guildId}'.`)
  }
}

export class NotAParticipant extends Forbidden {
  constructor(avatarId: string) {
    super(`Avatar '${avatarId}' is not a participant of this battle: participants are the members when it started.`, 'not-a-participant')
  }
}

export class AttackerFallen extends RuleViolation {
  constructor(avatarId: string) {
    super('attacker-fallen', `Avatar '${avatarId}' has fallen in this battle and cannot attack again.`)
  }
}

export class InvalidMessageText extends BadRequest {
  constructor(min: number, max: number) {
    super(`A message is ${min}–${max} characters, not counting spaces around it.`, 'invalid-message-text', [
      { path: '/text', message: `must be ${min}–${max} characters after trimming` },
    ])
  }
}

/** A member posted CHAT_BURST_MAX messages in the window already: the answer says when the next one is taken. */
export class ChatRateLimited extends AppError {
  constructor(readonly retryAfterSeconds: number) {
    super(429, 'chat-rate-limited', 'Too many messages', `Too many messages in a short time; post again in ${retryAfterSeconds} s.`)
  }
}

/** Chat is for the guild's members: the caller owns none of them. */
export class GuildMembersOnly extends Forbidden {
  constructor(action: string) {
    super(`Only the guild's members may ${action}: the caller owns no member of this guild.`, 'guild-members-only')
  }
}
