/** The quest context's problem types (see platform/http/problem-types.ts). */
import type { ProblemCatalog } from '../../../platform/http/problem-types.js'

export const QUEST_PROBLEMS: ProblemCatalog = {
  'invalid-duration': { status: 400, title: 'Invalid duration', description: 'A quest duration is an ISO 8601 duration, positive and at most one year (`P7D`, `PT12H`, `P1M2D`).' },
  'duplicate-quest-habit': { status: 409, title: 'Duplicate quest habit', description: 'The quest already has a habit with this id.' },
  'too-many-quest-habits': { status: 400, rule: true, title: 'Too many quest habits', description: 'The quest has as many habits as a quest may.' },
  'quest-has-no-habits': { status: 400, rule: true, title: 'Quest has no habits', description: 'The quest has no habits yet, so there is nothing to join.' },
  'unknown-guild': { status: 400, title: 'Unknown guild', description: 'The guild a quest names (`guildId`) does not exist.' },
  'not-guild-member': { status: 403, title: 'Not a guild member', description: 'The quest is its guild\'s: only members of that guild may join it.' },
}
