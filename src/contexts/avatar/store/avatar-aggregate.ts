import type { Outbox } from '../../../platform/events/outbox.js'
import type { AggregateDefinition } from '../../../platform/writer/aggregate.js'
import type { Avatar } from '../domain/avatar.js'
import { totalExperience } from '../domain/experience-board.js'
import type { AvatarDraft } from '../../../contracts/events/avatar.js'
import { appliedCalls, avatars, earnings, leagueEntries } from './tables.js'

/** What a change writes with the avatar: what it earned, and the league score play gained. */
export type AvatarParts = 'earnings' | 'league'

/**
 * The avatar as the platform writer stores it: its row (every column but its owner, its item
 * containers' ids and when it was made is written with each change), the keyed calls it answered,
 * what each change earned, added to the bucket of the moment (reports sum the buckets), and the
 * league score play gained (league_entries). The row carries the total experience the board
 * orders by; when it was reached is the database's to stamp (a trigger), so no change writes it.
 */
export const avatarAggregate = (outbox: Outbox<AvatarDraft>): AggregateDefinition<Avatar, typeof avatars, AvatarParts> => ({
  name: 'avatar',
  table: avatars,
  key: avatars.id,
  version: avatars.version,
  fixed: [avatars.ownerId, avatars.inventoryId, avatars.equipmentId, avatars.createdAt, avatars.experienceReachedAt],
  outbox,
  toState: ({ createdAt: _createdAt, totalExperience: _total, experienceReachedAt: _reached, ...a }) => a,
  toRow: (a) => ({ ...a, totalExperience: totalExperience(a.level, a.experience) }),
  keyOf: (a) => a.id,
  parts: {
    earnings: { table: earnings, of: earnings.avatarId, conflict: { on: [earnings.avatarId, earnings.bucket], addUp: [earnings.experience, earnings.money] } },
    league: {
      table: leagueEntries, of: leagueEntries.avatarId,
      conflict: { on: [leagueEntries.season, leagueEntries.avatarId], addUp: [leagueEntries.score], latest: [leagueEntries.reachedAt] },
    },
  },
  answers: {
    table: appliedCalls, key: appliedCalls.key, of: appliedCalls.avatarId, operation: appliedCalls.operation, result: appliedCalls.result, at: appliedCalls.appliedAt,
  },
})
