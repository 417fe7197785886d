import type { Outbox } from '../../../platform/events/outbox.js'
import type { AggregateDefinition } from '../../../platform/writer/aggregate.js'
import type { Avatar } from '../domain/avatar.js'
import type { AvatarDraft } from '../../../contracts/events/avatar.js'
import { appliedCalls, avatars, earnings } from './tables.js'

/**
 * The avatar as the platform writer stores it: its row (every column but its owner, its item
 * containers' ids and when it was made is written with each change), the keyed calls it answered,
 * and what each change earned, added to the bucket of the moment (reports sum the buckets).
 */
export const avatarAggregate = (outbox: Outbox<AvatarDraft>): AggregateDefinition<Avatar, typeof avatars, 'earnings'> => ({
  name: 'avatar',
  table: avatars,
  key: avatars.id,
  version: avatars.version,
  fixed: [avatars.ownerId, avatars.inventoryId, avatars.equipmentId, avatars.createdAt],
  outbox,
  toState: ({ createdAt: _createdAt, ...a }) => a,
  toRow: (a) => a,
  keyOf: (a) => a.id,
  parts: { earnings: { table: earnings, of: earnings.avatarId, conflict: { on: [earnings.avatarId, earnings.bucket], addUp: [earnings.experience, earnings.money] } } },
  answers: {
    table: appliedCalls, key: appliedCalls.key, of: appliedCalls.avatarId, operation: appliedCalls.operation, result: appliedCalls.result, at: appliedCalls.appliedAt,
  },
})
