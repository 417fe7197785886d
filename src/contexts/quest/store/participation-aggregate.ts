import type { QuestDraft } from '../../../contracts/events/quest.js'
import type { Outbox } from '../../../platform/events/outbox.js'
import { instantIn } from '../../../platform/time/index.js'
import type { AggregateDefinition } from '../../../platform/writer/aggregate.js'
import type { Participation, ParticipationStatus } from '../domain/participation.js'
import { participations } from './tables.js'

type ParticipationRow = typeof participations.$inferSelect

export function toParticipation(r: ParticipationRow): Participation {
  return {
    id: r.id, questId: r.questId, avatarId: r.avatarId, status: r.status as ParticipationStatus, timeZone: r.timeZone, dayStartHour: r.dayStartHour,
    from: r.windowFrom, to: r.windowTo, payout: { experience: r.payoutExperience, money: r.payoutMoney }, habits: r.habits,
    copiesMade: r.copiesMade, version: r.version,
  }
}

export function fromParticipation(p: Participation) {
  return {
    id: p.id, questId: p.questId, avatarId: p.avatarId, status: p.status, timeZone: p.timeZone, dayStartHour: p.dayStartHour,
    windowFrom: p.from, windowTo: p.to,
    payoutExperience: p.payout.experience, payoutMoney: p.payout.money, habits: p.habits, copiesMade: p.copiesMade, version: p.version,
  }
}

/**
 * A participation as the platform writer stores it, by its id (the aggregate its events name; its
 * quest and avatar make the row's primary key, and never change). A change writes its status, its
 * done windows and whether its copies exist: the terms taken at the join (its zone, day start
 * hour, window and payout), its paging position and the instants set when it is made are fixed.
 */
export const participationAggregate = (outbox: Outbox<QuestDraft>): AggregateDefinition<Participation, typeof participations> => ({
  name: 'participation',
  table: participations,
  key: participations.id,
  version: participations.version,
  fixed: [
    participations.questId, participations.avatarId, participations.seq, participations.timeZone, participations.dayStartHour,
    participations.windowFrom, participations.windowTo, participations.endsAt, participations.payoutExperience, participations.payoutMoney,
    participations.joinedAt,
  ],
  outbox,
  toState: toParticipation,
  toRow: fromParticipation,
  keyOf: (p) => p.id,
})

/**
 * The columns a participation's row gets once, when it is made (the writer's `insert`): when it was
 * joined, and the instant its window's end names in its zone, by which the expiry job finds it.
 */
export const madeColumns = (p: Participation, joinedAt: Date) => ({ joinedAt, endsAt: instantIn(p.to, p.timeZone) })
