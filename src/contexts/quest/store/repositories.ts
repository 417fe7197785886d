import { and, asc, eq, gt, inArray, isNull, lt, lte, or } from 'drizzle-orm'
import type { Queryable, Tx } from '../../../platform/db/database.js'
import { NotFound } from '../../../platform/errors.js'
import type { Participation, ParticipationStatus } from '../domain/participation.js'
import type { Quest } from '../domain/quest.js'
import { toParticipation } from './participation-aggregate.js'
import { participations, pendingUnlinks, quests } from './tables.js'

type QuestRow = typeof quests.$inferSelect

function toQuest({ rewardExperience, rewardMoney, seq: _seq, createdAt: _createdAt, ...rest }: QuestRow): Quest {
  return { ...rest, reward: { experience: rewardExperience, money: rewardMoney } }
}

function fromQuest({ reward, ...q }: Quest) {
  return { ...q, rewardExperience: reward.experience, rewardMoney: reward.money }
}

export const questRepo = {
  async get(q: Queryable, id: string): Promise<Quest> {
    const [row] = await q.select().from(quests).where(eq(quests.id, id))
    if (!row) throw new NotFound('Quest', id)
    return toQuest(row)
  },

  async getForUpdate(tx: Tx, id: string): Promise<Quest> {
    const [row] = await tx.select().from(quests).where(eq(quests.id, id)).for('update')
    if (!row) throw new NotFound('Quest', id)
    return toQuest(row)
  },

  async insert(tx: Tx, quest: Quest, createdAt: Date): Promise<void> {
    await tx.insert(quests).values({ ...fromQuest(quest), createdAt })
  },

  async save(tx: Tx, quest: Quest): Promise<void> {
    const { id, ...changes } = fromQuest(quest)
    await tx.update(quests).set(changes).where(eq(quests.id, id))
  },

  async delete(tx: Tx, id: string): Promise<void> {
    await tx.delete(quests).where(eq(quests.id, id))
  },

  /** The quests an avatar created, oldest first (its owner's export). */
  async createdBy(q: Queryable, avatarId: string): Promise<Quest[]> {
    const rows = await q.select().from(quests).where(eq(quests.ownerAvatarId, avatarId)).orderBy(asc(quests.seq))
    return rows.map(toQuest)
  },

  /** The ids of every quest the user owns, row-locked until the transaction ends. */
  async idsOwnedByForUpdate(tx: Tx, ownerId: string): Promise<string[]> {
    const rows = await tx.select({ id: quests.id }).from(quests).where(eq(quests.ownerId, ownerId)).orderBy(asc(quests.seq)).for('update')
    return rows.map((r) => r.id)
  },

  /** A page of the quests a player sees in the list: their own, their guild's and public ones, oldest first. */
  async listVisible(q: Queryable, to: { userId: string; guildId: string | null }, limit: number, afterSeq?: number): Promise<Quest[]> {
    const visible = or(eq(quests.ownerId, to.userId), isNull(quests.guildId), to.guildId === null ? undefined : eq(quests.guildId, to.guildId))
    const rows = await q.select().from(quests)
      .where(and(visible, afterSeq === undefined ? undefined : gt(quests.seq, afterSeq)))
      .orderBy(asc(quests.seq)).limit(limit)
    return rows.map(toQuest)
  },

  /** The paging position of a quest (cursors name the last quest of a page). */
  async positionOf(q: Queryable, id: string): Promise<number | undefined> {
    const [row] = await q.select({ seq: quests.seq }).from(quests).where(eq(quests.id, id))
    return row?.seq
  },
}

function found(p: Participation | undefined, questId: string, avatarId: string): Participation {
  if (!p) throw new NotFound(`Participant '${avatarId}' of quest '${questId}'`)
  return p
}

const participationKey = (questId: string, avatarId: string) => and(eq(participations.questId, questId), eq(participations.avatarId, avatarId))

export const participationRepo = {
  /** Every participation of an avatar, in joining order (its owner's export). */
  async ofAvatar(q: Queryable, avatarId: string): Promise<Participation[]> {
    const rows = await q.select().from(participations).where(eq(participations.avatarId, avatarId)).orderBy(asc(participations.seq))
    return rows.map(toParticipation)
  },

  async find(q: Queryable, questId: string, avatarId: string): Promise<Participation | undefined> {
    const [row] = await q.select().from(participations).where(participationKey(questId, avatarId))
    return row && toParticipation(row)
  },

  async get(q: Queryable, questId: string, avatarId: string): Promise<Participation> {
    return found(await this.find(q, questId, avatarId), questId, avatarId)
  },

  async findForUpdate(tx: Tx, questId: string, avatarId: string): Promise<Participation | undefined> {
    const [row] = await tx.select().from(participations).where(participationKey(questId, avatarId)).for('update')
    return row && toParticipation(row)
  },

  async getForUpdate(tx: Tx, questId: string, avatarId: string): Promise<Participation> {
    return found(await this.findForUpdate(tx, questId, avatarId), questId, avatarId)
  },

  /** Removes every participation of a quest and answers them. */
  async deleteOfQuest(tx: Tx, questId: string): Promise<Participation[]> {
    return (await tx.delete(participations).where(eq(participations.questId, questId)).returning()).map(toParticipation)
  },

  async deleteOfAvatar(tx: Tx, avatarId: string): Promise<void> {
    await tx.delete(participations).where(eq(participations.avatarId, avatarId))
  },

  /** A page of a quest's participants in join order, after the one at position `afterSeq`. */
  async listOfQuest(q: Queryable, questId: string, limit: number, afterSeq?: number): Promise<Participation[]> {
    const rows = await q.select().from(participations)
      .where(and(eq(participations.questId, questId), afterSeq === undefined ? undefined : gt(participations.seq, afterSeq)))
      .orderBy(asc(participations.seq)).limit(limit)
    return rows.map(toParticipation)
  },

  async positionOf(q: Queryable, questId: string, avatarId: string): Promise<number | undefined> {
    const [row] = await q.select({ seq: participations.seq }).from(participations).where(participationKey(questId, avatarId))
    return row?.seq
  },

  /** Running participations whose copies are not all known to exist, joined before `before`. */
  async unfinishedJoins(q: Queryable, before: Date, limit: number): Promise<Participation[]> {
    const running: ParticipationStatus = 'IN_PROGRESS'
    const rows = await q.select().from(participations)
      .where(and(eq(participations.copiesMade, false), eq(participations.status, running), lt(participations.joinedAt, before)))
      .orderBy(asc(participations.joinedAt)).limit(limit)
    return rows.map(toParticipation)
  },

  /** Running participations whose window had closed by `by`, those that closed first first, locked for this job run. */
  async claimEndedBy(tx: Tx, by: Date, limit: number): Promise<Participation[]> {
    const running: ParticipationStatus = 'IN_PROGRESS'
    const rows = await tx.select().from(participations)
      .where(and(eq(participations.status, running), lte(participations.endsAt, by)))
      .orderBy(asc(participations.endsAt)).limit(limit).for('update', { skipLocked: true })
    return rows.map(toParticipation)
  },
}

export const unlinkRepo = {
  async queue(tx: Tx, questId: string, habitIds: string[], queuedAt: Date): Promise<void> {
    if (habitIds.length === 0) return
    await tx.insert(pendingUnlinks).values(habitIds.map((habitId) => ({ habitId, questId, queuedAt }))).onConflictDoNothing()
  },

  async pending(q: Queryable, limit: number): Promise<{ habitId: string; questId: string }[]> {
    return q.select({ habitId: pendingUnlinks.habitId, questId: pendingUnlinks.questId }).from(pendingUnlinks)
      .orderBy(asc(pendingUnlinks.queuedAt)).limit(limit)
  },

  async done(q: Queryable, habitIds: string[]): Promise<void> {
    if (habitIds.length === 0) return
    await q.delete(pendingUnlinks).where(inArray(pendingUnlinks.habitId, habitIds))
  },
}
