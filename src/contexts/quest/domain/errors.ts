import { BadRequest, Conflict, Forbidden, NotFound, RuleViolation } from '../../../platform/errors.js'

export class InvalidDuration extends BadRequest {
  constructor(value: string, why: string) {
    super(`'${value}' is not a quest duration: ${why}. Use ISO 8601, e.g. P7D, PT12H, P1M2D (positive, at most one year).`, 'invalid-duration',
      [{ path: '/duration', message: `must be an ISO 8601 duration: ${why}` }])
  }
}

export class DuplicateQuestHabit extends Conflict {
  constructor(habitId: string) {
    super(`The quest already has a habit '${habitId}'.`, 'duplicate-quest-habit')
  }
}

export class QuestHabitNotFound extends NotFound {
  constructor(habitId: string, title: string) {
    super(`Quest habit '${habitId}' titled '${title}'`)
  }
}

export class TooManyQuestHabits extends RuleViolation {
  constructor(max: number) {
    super('too-many-quest-habits', `A quest has at most ${max} habits.`)
  }
}

export class QuestHasNoHabits extends RuleViolation {
  constructor() {
    super('quest-has-no-habits', 'The quest has no habits yet: there is nothing to join.')
  }
}

export class UnknownGuild extends BadRequest {
  constructor(guildId: string) {
    super(`No guild '${guildId}' exists.`, 'unknown-guild', [{ path: '/guildId', message: 'must name a guild' }])
  }
}

export class NotGuildMember extends Forbidden {
  constructor(avatarId: string, guildId: string) {
    super(`Avatar '${avatarId}' is not a member of guild '${guildId}', whose quest this is.`, 'not-guild-member')
  }
}
