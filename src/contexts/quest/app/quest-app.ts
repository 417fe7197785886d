import type { QuestDraft } from '../../../contracts/events/quest.js'
import type { HabitAttended } from '../../../contracts/events/tracking.js'
import { isTrusted, type Principal } from '../../../platform/auth/principal.js'
import type { Clock } from '../../../platform/clock.js'
import type { Database, Tx } from '../../../platform/db/database.js'
import { NotOwner } from '../../../platform/errors.js'
import { newId } from '../../../platform/ids.js'
import { readPage, type Page, type PageRequest } from '../../../platform/paging.js'
import { localDateTimeIn } from '../../../platform/time/index.js'
import { inBatches } from '../../../platform/jobs/batches.js'
import type { AggregateWriter } from '../../../platform/writer/writer.js'
import { requireOwnedAvatar, type AvatarClient } from '../../avatar/client.js'
import type { GuildClient } from '../../guild/client.js'
import { habitTemplate, type TrackingClient } from '../../tracking/client.js'
import { NotGuildMember, UnknownGuild } from '../domain/errors.js'
import * as participations from '../domain/participation.js'
import type { Participation } from '../domain/participation.js'
import * as quests from '../domain/quest.js'
import type { Quest, QuestHabit, Reward } from '../domain/quest.js'
import {
  DEFAULT_DURATION, DEFAULT_REWARD, EXPIRE_JOB_BATCH, EXPIRY_GRACE_MS, JOIN_RECOVERY_AFTER_MS, JOIN_RECOVERY_BATCH, UNLINK_BATCH,
} from '../domain/rules.js'
import { madeColumns } from '../store/participation-aggregate.js'
import { participationRepo, questRepo, unlinkRepo } from '../store/repositories.js'

interface QuestDeps {
  database: Database
  clock: Clock
  /** The platform writer of participations: it alone sets their versions and writes their events. */
  participations: AggregateWriter<Participation, QuestDraft>
  avatars: AvatarClient
  tracking: TrackingClient
  guilds: GuildClient
}

type Draft = QuestDraft

/** A quest habit entry as a client sends it. */
interface QuestHabitInput {
  habitId: string
  title: string
  description?: string | undefined
  tags?: string[] | undefined
  recurrence: Parameters<typeof habitTemplate>[0]['recurrence']
}

interface NewQuest {
  name: string
  description?: string | undefined
  duration?: string | undefined
  reward?: Reward | undefined
  guildId?: string | null | undefined
  habits?: QuestHabitInput[] | undefined
  ownerAvatarId?: string | undefined
}

/** The quests an avatar created, and its participations in quests. */
export interface QuestsOfAvatar {
  created: Quest[]
  joined: Participation[]
}

/** The quest context's use cases. Anyone signed in reads quests; only the owner changes one. */
export class QuestApp {
  constructor(private readonly d: QuestDeps) {}

  // ---- quests ----

  async create(p: Principal, input: NewQuest): Promise<Quest> {
    const ownerAvatarId = input.ownerAvatarId ?? p.userId
    const ownerId = await requireOwnedAvatar(this.d.avatars, p, ownerAvatarId, '/ownerAvatarId')
    const guildId = input.guildId ?? null
    if (guildId !== null) {
      if (!(await this.d.guilds.exists(guildId))) throw new UnknownGuild(guildId)
      if ((await this.d.guilds.guildOf(ownerAvatarId)) !== guildId) throw new NotGuildMember(ownerAvatarId, guildId)
    }
    const quest = quests.newQuest({
      id: newId(),
      name: input.name,
      description: input.description ?? '',
      duration: input.duration ?? DEFAULT_DURATION,
      reward: input.reward ?? { ...DEFAULT_REWARD },
      guildId,
      ownerAvatarId,
      ownerId,
      habits: (input.habits ?? []).map((h, i) => toQuestHabit(h, `/habits/${i}`)),
    })
    await this.d.database.transaction((tx) => questRepo.insert(tx, quest, this.d.clock.now()))
    return quest
  }

  get(id: string): Promise<Quest> {
    return questRepo.get(this.d.database.current(), id)
  }

  /** The quests a player sees: their own, their guild's (the guild of `avatarId`, by default their registration avatar) and public ones. */
  async list(p: Principal, q: { avatarId?: string | undefined } & PageRequest): Promise<Page<Quest>> {
    const avatarId = q.avatarId ?? p.userId
    if (q.avatarId !== undefined) await requireOwnedAvatar(this.d.avatars, p, q.avatarId, '/avatarId')
    const guildId = await this.d.guilds.guildOf(avatarId)
    const db = this.d.database.current()
    return readPage(q, {
      names: 'a quest',
      positionOf: (cursor) => questRepo.positionOf(db, cursor),
      fetch: (after, count) => questRepo.listVisible(db, { userId: p.userId, guildId }, count, after),
      keyOf: (quest) => quest.id,
    })
  }

  async delete(p: Principal, id: string): Promise<void> {
    const copies = await this.d.database.transaction(async (tx) => {
      const quest = await questRepo.getForUpdate(tx, id)
      this.authorizeChange(p, quest)
      return this.remove(tx, id)
    })
    await this.unlink(id, copies)
  }

  /**
   * The account was deleted (AccountDeleted): the quests it made go as its deleting each would.
   * Their participants' copies are queued to be unlinked (kept as personal habits): the caller
   * clears the queue once this has committed (`unlinkPending`), as no other context is called here.
   */
  async forgetAccount(userId: string): Promise<void> {
    await this.d.database.transaction(async (tx) => {
      for (const id of await questRepo.idsOwnedByForUpdate(tx, userId)) await this.remove(tx, id)
    })
  }

  /** Deletes the quest and its participations; answers the copies queued to be unlinked. */
  private async remove(tx: Tx, questId: string): Promise<string[]> {
    await questRepo.delete(tx, questId)
    const ids = (await participationRepo.deleteOfQuest(tx, questId)).flatMap(copiesOf)
    await unlinkRepo.queue(tx, questId, ids, this.d.clock.now())
    return ids
  }

  rename(p: Principal, id: string, name: string) {
    return this.change(p, id, (q) => ({ ...q, name: name.trim() }))
  }

  setDuration(p: Principal, id: string, duration: string) {
    return this.change(p, id, (q) => quests.changeDuration(q, duration))
  }

  setReward(p: Principal, id: string, reward: Reward) {
    return this.change(p, id, (q) => ({ ...q, reward }))
  }

  addHabit(p: Principal, id: string, habit: QuestHabitInput) {
    const entry = toQuestHabit(habit)
    return this.change(p, id, (q) => quests.addHabit(q, entry))
  }

  removeHabit(p: Principal, id: string, habitId: string, title: string) {
    return this.change(p, id, (q) => quests.removeHabit(q, habitId, title))
  }

  // ---- participation ----

  /**
   * Joins the avatar to the quest and copies each quest habit into its habits. Idempotent: a
   * second join answers the same participation, and one cut short by a crash makes the missing
   * copies; the copies' ids are fixed at the first attempt, so none is made twice.
   */
  async join(p: Principal, questId: string, avatarId: string): Promise<Participation> {
    const quest = await this.get(questId)
    await requireOwnedAvatar(this.d.avatars, p, avatarId, '/avatarId')
    if (quest.guildId !== null && (await this.d.guilds.guildOf(avatarId)) !== quest.guildId) throw new NotGuildMember(avatarId, quest.guildId)
    const existing = await participationRepo.find(this.d.database.current(), questId, avatarId)
    return this.makeCopies(existing ?? (await this.start(quest, avatarId)))
  }

  /** Leaves the quest: the participation ends and the copies stay as personal habits, unlinked. */
  async leave(p: Principal, questId: string, avatarId: string): Promise<void> {
    await this.get(questId)
    await requireOwnedAvatar(this.d.avatars, p, avatarId, 'path')
    const copies = await this.d.database.transaction(async (tx) => {
      const participation = await participationRepo.getForUpdate(tx, questId, avatarId)
      await this.d.participations.remove(tx, participation)
      const ids = copiesOf(participation)
      await unlinkRepo.queue(tx, questId, ids, this.d.clock.now())
      return ids
    })
    await this.unlink(questId, copies)
  }

  async progress(questId: string, avatarId: string): Promise<Participation> {
    await this.get(questId)
    return participationRepo.get(this.d.database.current(), questId, avatarId)
  }

  async participants(questId: string, asked: PageRequest): Promise<Page<Participation>> {
    await this.get(questId)
    const db = this.d.database.current()
    return readPage(asked, {
      names: 'a participant of this quest',
      positionOf: (cursor) => participationRepo.positionOf(db, questId, cursor),
      fetch: (after, count) => participationRepo.listOfQuest(db, questId, count, after),
      keyOf: (x) => x.avatarId,
    })
  }

  /** The quests the avatar created and those it joined, for its owner's export (DESIGN §9.4; the edge has checked whose data it is). */
  async exportOf(avatarId: string): Promise<QuestsOfAvatar> {
    const q = this.d.database.current()
    const [created, joined] = await Promise.all([questRepo.createdBy(q, avatarId), participationRepo.ofAvatar(q, avatarId)])
    return { created, joined }
  }

  // ---- reactions and jobs ----

  /**
   * A copy was completed (HabitAttended): a completion that made its window done counts toward its
   * participation (one of a TIMES_PER_WEEK week still short does not); the last one completes it.
   */
  async recordCompletion(e: HabitAttended): Promise<void> {
    const { questId, avatarId, habitId, windowStart } = e.payload
    if (questId === null) return
    // An event written without windowCompleted made its window done.
    const windowCompleted = e.payload.windowCompleted !== false
    await this.d.database.transaction(async (tx) => {
      const before = await participationRepo.findForUpdate(tx, questId, avatarId)
      if (!before) return
      const recordedAt = localDateTimeIn(new Date(e.occurredAt), before.timeZone)
      const r = participations.recordCompletion(before, { copyHabitId: habitId, windowStart, windowCompleted, recordedAt })
      if (r.participation === before) return
      const completed: Draft[] = r.completed ? [{ type: 'QuestCompleted', payload: { questId, avatarId, reward: r.participation.payout } }] : []
      await this.d.participations.save(tx, before, r.participation, completed)
    })
  }

  /**
   * The expiry job: participations whose window closed (a grace period ago) without every
   * completion become EXPIRED; their copies are unlinked but kept. Rows are claimed with SKIP
   * LOCKED, so replicas share the work. Each window is judged on the wall clock of its own zone
   * (participants' zones differ); they are claimed in the order their ends passed.
   */
  async expireParticipations(): Promise<number> {
    const now = this.d.clock.now()
    const judgedAt = new Date(now.getTime() - EXPIRY_GRACE_MS)
    let expired = 0
    await inBatches(EXPIRE_JOB_BATCH, async () => {
      const ended = await this.d.database.transaction(async (tx) => {
        const claimed = await participationRepo.claimEndedBy(tx, judgedAt, EXPIRE_JOB_BATCH)
        const due = claimed.filter((p) => participations.hasEndedBy(p, localDateTimeIn(judgedAt, p.timeZone)))
        for (const p of due) await unlinkRepo.queue(tx, p.questId, copiesOf(p), now)
        await this.d.participations.saveMany(tx, due.map((p) => ({ before: p, after: participations.expire(p), events: [expiredEvent(p)] })))
        return due.length
      })
      expired += ended
      return ended
    })
    await this.unlinkPending()
    return expired
  }

  /** The recovery job: joins cut short by a crash and not retried get their missing copies. */
  async finishJoins(): Promise<void> {
    const before = new Date(this.d.clock.now().getTime() - JOIN_RECOVERY_AFTER_MS)
    for (const p of await participationRepo.unfinishedJoins(this.d.database.current(), before, JOIN_RECOVERY_BATCH)) await this.makeCopies(p)
  }

  /** An avatar was deleted: its participations go (tracking deletes its habits). */
  async forgetAvatar(avatarId: string): Promise<void> {
    await this.d.database.transaction((tx) => participationRepo.deleteOfAvatar(tx, avatarId))
  }

  // ---- internals ----

  /**
   * The participation, counted in the avatar's days as they run now (its zone and day start
   * hour), the days its copies' windows are made of. They are read from tracking before the
   * transaction and kept with the participation, so a later change of the avatar's settings does
   * not change what it needs.
   */
  private async start(quest: Quest, avatarId: string): Promise<Participation> {
    const frame = await this.d.tracking.dayFrameOf(avatarId)
    const now = this.d.clock.now()
    const planned = participations.join(quest, { avatarId, frame, joinedAt: localDateTimeIn(now, frame.timeZone) }, newId)
    return this.d.database.transaction(async (tx) =>
      (await this.d.participations.insert(tx, planned, [], madeColumns(planned, now))) ?? participationRepo.get(tx, quest.id, avatarId))
  }

  /**
   * Asks tracking for every copy (each idempotent by its id), then records that they exist. A
   * participation that has ended gets no more copies (its expiry has unlinked what there was).
   * The copies' windows are counted in the participation's zone from where it counts them (the
   * avatar's day of the join, by the day start hour kept with it), even when a retry or the
   * recovery job makes them on a later day.
   */
  private async makeCopies(p: Participation): Promise<Participation> {
    if (p.copiesMade || p.status !== 'IN_PROGRESS') return p
    const startsOn = participations.firstDayOf(p)
    for (const { habit: { habitId: _entry, ...template }, copyHabitId } of p.habits) {
      await this.d.tracking.copyQuestHabit(copyHabitId, { ...template, avatarId: p.avatarId, questId: p.questId, timeZone: p.timeZone, startsOn })
    }
    return this.d.database.transaction(async (tx) => {
      const current = await participationRepo.findForUpdate(tx, p.questId, p.avatarId)
      if (!current || current.id !== p.id) return p
      // Locked: it is still at the version read, so the save writes.
      return (await this.d.participations.save(tx, current, { ...current, copiesMade: true })) ?? current
    })
  }

  private async unlink(questId: string, habitIds: string[]): Promise<void> {
    await this.d.tracking.unlinkFromQuest(questId, habitIds)
    await unlinkRepo.done(this.d.database.current(), habitIds)
  }

  /** Clears the quest links still queued (after a crash, or queued by the expiry job or an account's deletion). */
  async unlinkPending(): Promise<void> {
    await inBatches(UNLINK_BATCH, async () => {
      const batch = await unlinkRepo.pending(this.d.database.current(), UNLINK_BATCH)
      for (const questId of new Set(batch.map((b) => b.questId))) {
        await this.unlink(questId, batch.filter((b) => b.questId === questId).map((b) => b.habitId))
      }
      return batch.length
    })
  }

  private async change(p: Principal, id: string, decide: (q: Quest) => Quest): Promise<void> {
    await this.d.database.transaction(async (tx) => {
      const before = await questRepo.getForUpdate(tx, id)
      this.authorizeChange(p, before)
      await questRepo.save(tx, decide(before))
    })
  }

  private authorizeChange(p: Principal, q: Quest): void {
    if (isTrusted(p) || q.ownerId === p.userId) return
    throw new NotOwner(`Only the owner of quest '${q.id}' may change or delete it.`)
  }
}

/** A quest habit entry checked as a habit's own fields are; `at` is where it sits in the command. */
const toQuestHabit = ({ habitId, ...fields }: QuestHabitInput, at = ''): QuestHabit => ({ habitId, ...habitTemplate(fields, at) })

const copiesOf = (p: Participation): string[] => p.habits.map((h) => h.copyHabitId)

/** What an expired participation tells: the completions made, and those its payout needed. */
function expiredEvent(p: Participation): Draft {
  const count = (pick: (h: Participation['habits'][number]) => string[]) => p.habits.reduce((sum, h) => sum + pick(h).length, 0)
  return { type: 'QuestExpired', payload: { questId: p.questId, avatarId: p.avatarId, done: count((h) => h.done), required: count((h) => h.windows) } }
}
