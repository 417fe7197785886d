import { SYSTEM, type Principal } from '../../../platform/auth/principal.js'
import { RACE_LOST, untilWritten } from '../../../platform/writer/retry.js'
import { Conflict, NotFound } from '../../../platform/errors.js'
import { AggregateWriter } from '../../../platform/writer/writer.js'
import type { TrackingDraft } from '../../../contracts/events/tracking.js'
import { newId } from '../../../platform/ids.js'
import { parseLocalDateTime, type LocalDate, type Recurrence } from '../../../platform/time/index.js'
import { requireOwnedAvatar } from '../../avatar/client.js'
import { setArchived } from '../domain/archive.js'
import { InvalidDate } from '../domain/errors.js'
import * as rules from '../domain/habit.js'
import type { Habit } from '../domain/habit.js'
import { normalizeTags, ownTimeZoneOf, restDaysOf } from '../domain/habit-fields.js'
import { withJobInstants } from '../domain/job-instants.js'
import * as reminders from '../domain/reminder.js'
import {
  changeSettings as changeSettingsHistory, checkSettings, currentSettings, defaultHistory, frameOf, todayOf, type DaySettings, type SettingsChange, type SettingsEntry,
} from '../domain/settings.js'
import { attendanceStore } from '../store/attendances.js'
import { habitRepo } from '../store/habits.js'
import { settingsRepo } from '../store/settings.js'
import { settingsAggregate, type StoredSettings } from '../store/settings-aggregate.js'
import { completionRepo, missedRepo } from '../store/window-records.js'
import { attendableHabitAggregate, type AttendableHabit } from '../store/habit-aggregate.js'
import { attendCommand, authorizeHabit } from './attend-batch.js'
import { attendInBulk, type BulkAttendItem, type BulkAttendResult } from './bulk-attends.js'
import type { TrackingDeps } from './deps.js'
import { judgeEndedWindows } from './judging.js'

export interface NewHabit {
  avatarId: string
  title: string
  description?: string
  tags?: string[]
  recurrence: Recurrence
  /** Its own zone; absent: it follows its avatar's. */
  timeZone?: string | null
  restDays?: string[] | null
  associatedQuestId?: string | null
  /** `HH:mm` local; absent or null: no reminders. */
  reminderTime?: string | null
}

/**
 * What changes habits and an avatar's day settings: a player's commands, the quest context's
 * copies, and what other contexts' events ask of tracking. Habits are private to the owner of their avatar.
 */
export class HabitCommands {
  /** Attends are batched commands of the platform writer, per habit; the batches of every habit at a moment share statements. */
  private readonly attends: AggregateWriter<AttendableHabit, TrackingDraft>
  /** The platform writer of avatars' day settings (it alone sets their versions). */
  private readonly settings: AggregateWriter<StoredSettings, TrackingDraft>

  constructor(private readonly d: TrackingDeps) {
    this.settings = new AggregateWriter<StoredSettings, TrackingDraft>(settingsAggregate(d.outbox), {
      database: d.database, clock: d.clock, missing: (id) => new NotFound('Settings of avatar', id),
    })
    this.attends = new AggregateWriter<AttendableHabit, TrackingDraft>(attendableHabitAggregate(d.outbox), {
      database: d.database, clock: d.clock, missing: (id) => new NotFound('Habit', id),
      // A habit's decision needs its avatar's settings, which change without the habit's version: always read.
      remember: 0, load: (asked) => attendanceStore.load(d.database.db, asked),
    })
  }

  /** How attends were batched so far (for /metrics). */
  get attendBatchStats() {
    return this.attends.batchStats
  }

  private history(avatarId: string): Promise<SettingsEntry[]> {
    return settingsRepo.history(this.d.database.current(), avatarId)
  }

  async create(p: Principal, input: NewHabit): Promise<Habit> {
    const owner = await requireOwnedAvatar(this.d.avatars, p, input.avatarId, '/avatarId')
    return (await this.insert(newId(), owner, input, await this.history(input.avatarId))).habit
  }

  /**
   * A quest habit copied into an avatar's plan under an id the quest chose. The id is the
   * idempotency key: asking again makes nothing new, so a join retried after a crash ends with
   * exactly one copy of each habit.
   */
  async copyForQuest(id: string, input: NewHabit & { associatedQuestId: string }): Promise<void> {
    const owner = await requireOwnedAvatar(this.d.avatars, SYSTEM, input.avatarId, '/avatarId')
    const { habit, created } = await this.insert(id, owner, input, await this.history(input.avatarId))
    if (!created && habit.avatarId !== input.avatarId) throw new Conflict(`Habit '${id}' exists already for another avatar.`, 'habit-id-taken')
  }

  /** The quest is over for these copies: they stay as personal habits, unlinked from it. */
  async unlinkFromQuest(questId: string, habitIds: string[]): Promise<void> {
    await this.d.database.transaction(async (tx) => {
      const linked = await habitRepo.linkedToQuestForUpdate(tx, questId, habitIds)
      await this.d.habits.saveMany(tx, linked.map((before) => ({ before, after: { ...before, associatedQuestId: null } })))
    })
  }

  private async insert(id: string, ownerId: string, input: NewHabit, history: SettingsEntry[]): Promise<{ habit: Habit; created: boolean }> {
    const ownTimeZone = ownTimeZoneOf(input.timeZone)
    const reminderTime = reminders.reminderTimeOf(input.reminderTime)
    const now = this.d.clock.now()
    const created = rules.newHabit({
      id,
      avatarId: input.avatarId,
      ownerId,
      title: input.title.trim(),
      description: input.description ?? '',
      tags: normalizeTags(input.tags ?? []),
      recurrence: input.recurrence,
      restDays: restDaysOf(input.recurrence.type, input.restDays),
      ownTimeZone,
      associatedQuestId: input.associatedQuestId ?? null,
    }, todayOf(history, ownTimeZone, now), history)
    const made = reminders.setReminder(created, frameOf(currentSettings(history), ownTimeZone), reminderTime, now)
    return this.d.database.transaction(async (tx) => {
      // The jobs' instants by the settings read again under a share lock: a change under way ends first and is read here, or
      // waits for this transaction and then finds this habit among those whose instants it moves.
      const habit = withJobInstants(made, await settingsRepo.historyForShare(tx, input.avatarId), now)
      const inserted = await this.d.habits.insert(tx, habit, [{ type: 'HabitCreated', payload: { habitId: habit.id, avatarId: habit.avatarId, questId: habit.associatedQuestId } }],
        { createdAt: now })
      return inserted ? { habit: inserted, created: true } : { habit: await habitRepo.get(tx, id), created: false }
    })
  }

  async delete(p: Principal, id: string): Promise<void> {
    await this.d.database.transaction(async (tx) => {
      const habit = await habitRepo.getForUpdate(tx, id)
      authorizeHabit(p, habit)
      await this.remove(habit)
    })
  }

  rename(p: Principal, id: string, title: string) {
    return this.change(p, id, (h) => ({ ...h, title: title.trim() }))
  }

  describe(p: Principal, id: string, description: string) {
    return this.change(p, id, (h) => ({ ...h, description }))
  }

  retag(p: Principal, id: string, tags: string[]) {
    return this.change(p, id, (h) => ({ ...h, tags: normalizeTags(tags) }))
  }

  /**
   * The windows change, and so do the instants of their reminders. Rest days stay only on a DAILY
   * habit. The old schedule's windows that have ended are judged first (the job may not have come
   * by yet), so a change of schedule never skips one.
   */
  reschedule(p: Principal, id: string, recurrence: Recurrence): Promise<void> {
    return this.changeJudged(p, id, (judged, history, now) => {
      const changed = rules.changeRecurrence(judged, recurrence, todayOf(history, judged.ownTimeZone, now), history)
      return reminders.setReminder(changed, reminders.habitFrame(changed, history), judged.reminderTime, now)
    })
  }

  /**
   * Archives the habit or brings it back (domain/archive.ts). Archiving first judges the windows
   * that have ended, as the job would (it judges nothing archived), so the habit stops with nothing
   * owed but the window under way; bringing it back sets when its jobs next have work for it.
   * Asking for what the habit is already changes nothing.
   */
  setArchived(p: Principal, id: string, archived: boolean): Promise<void> {
    return this.changeJudged(p, id, (judged, history, now) =>
      withJobInstants(setArchived(judged, archived, todayOf(history, judged.ownTimeZone, now)), history, now), (before) => before.archived !== archived)
  }

  /** New rest days govern the windows that start from tomorrow on. */
  setRestDays(p: Principal, id: string, restDays: string[] | null) {
    return this.change(p, id, (h, history) => {
      const days = restDaysOf(h.recurrence.type, restDays)
      return rules.changeRestDays(h, days, todayOf(history, h.ownTimeZone, this.d.clock.now()))
    })
  }

  /** Sets or (with null) clears the reminder; it first falls at its next time after now. */
  setReminderTime(p: Principal, id: string, reminderTime: string | null) {
    const checked = reminders.reminderTimeOf(reminderTime)
    return this.change(p, id, (h, history) => reminders.setReminder(h, reminders.habitFrame(h, history), checked, this.d.clock.now()))
  }

  /**
   * Changes the avatar's day settings; they govern the windows that start after today (its day
   * by the settings before). The reminders of its habits move with their days, and so do the
   * instants their next windows to judge end at.
   */
  async changeSettings(p: Principal, avatarId: string, change: SettingsChange): Promise<DaySettings> {
    await requireOwnedAvatar(this.d.avatars, p, avatarId, 'path')
    return untilWritten(`settings of avatar '${avatarId}'`, () => this.d.database.transaction(async (tx) => {
      const before = await settingsRepo.forUpdate(tx, avatarId)
      const history = before?.history ?? defaultHistory()
      const now = this.d.clock.now()
      const next = checkSettings(currentSettings(history), change)
      const changed = changeSettingsHistory(history, next, todayOf(history, null, now))
      const after: StoredSettings = { avatarId, history: changed, updatedAt: now, version: before?.version ?? 0 }
      // A first change has no row to lock: of two at once, one inserts and the other is made again on what it wrote.
      if (!(await (before ? this.settings.save(tx, before, after) : this.settings.insert(tx, after, [])))) return RACE_LOST
      const habits = await habitRepo.ofAvatarForUpdate(tx, avatarId)
      await this.d.habits.saveMany(tx, habits.map((habit) => ({ before: habit, after: withJobInstants(habit, changed, now) })))
      return next
    }))
  }

  /**
   * Records a completion; the reward travels to the avatar as a HabitAttended event. Concurrent
   * attends of a habit are decided in one batch, and the batches of all habits at a moment are
   * loaded and written in shared statements (group commit).
   */
  async attend(p: Principal, id: string, date: string): Promise<void> {
    const attendedAt = parseLocalDateTime(date)
    if (!attendedAt) throw new InvalidDate(date)
    await this.attends.submit(id, attendCommand(p, attendedAt, this.d.clock))
  }

  /** Keyed attends of one avatar's habits, each applied (or refused) as `attend` would, in order (bulk-attends.ts). */
  attendMany(p: Principal, avatarId: string, items: BulkAttendItem[]): Promise<BulkAttendResult[]> {
    return attendInBulk(this.d, this.attends, p, avatarId, items)
  }

  /**
   * A streak freeze took a missed window's penalty (the avatar's MissedWindowSettled, FROZEN): the window shows
   * FROZEN and the habit's streak carries over it. Idempotent: a window frozen already is left.
   */
  async recordFreeze(habitId: string, windowStart: LocalDate): Promise<void> {
    await this.d.database.transaction(async (tx) => {
      const habit = await habitRepo.findForUpdate(tx, habitId)
      if (!habit || !(await missedRepo.freeze(tx, habitId, windowStart))) return
      const history = await settingsRepo.history(tx, habit.avatarId)
      const frozen = rules.freezeWindow(habit, history, await completionRepo.windowStarts(tx, habitId), windowStart)
      await this.d.habits.save(tx, habit, frozen)
    })
  }

  /** An avatar was deleted: its habits and settings go with it. */
  async deleteHabitsOfAvatar(avatarId: string): Promise<void> {
    await this.d.database.transaction(async (tx) => {
      for (const id of await habitRepo.idsOfAvatar(tx, avatarId)) await this.remove(await habitRepo.getForUpdate(tx, id))
      await settingsRepo.delete(tx, avatarId)
    })
  }

  private async remove(habit: Habit): Promise<void> {
    await this.d.database.transaction(async (tx) => {
      await habitRepo.deleteRecords(tx, habit.id)
      await this.d.habits.remove(tx, habit, [{ type: 'HabitDeleted', payload: { habitId: habit.id, avatarId: habit.avatarId, questId: habit.associatedQuestId } }])
    })
  }

  /**
   * A change decided on the habit as the missed-window job would leave it: the windows that have
   * ended judged first (the job may not have come by yet), saved with their HabitMissed events.
   * Nothing is judged or written when the change is not `needed` on the habit as read.
   */
  private async changeJudged(
    p: Principal, id: string, decide: (judged: Habit, history: SettingsEntry[], now: Date) => Habit, needed: (before: Habit) => boolean = () => true,
  ): Promise<void> {
    await this.d.database.transaction(async (tx) => {
      const before = await habitRepo.getForUpdate(tx, id)
      authorizeHabit(p, before)
      if (!needed(before)) return
      const history = await settingsRepo.history(tx, before.avatarId)
      const now = this.d.clock.now()
      const { habit: judged, missed } = await judgeEndedWindows(tx, before, history, now)
      await this.d.habits.save(tx, before, decide(judged, history, now), missed)
    })
  }

  private async change(p: Principal, id: string, decide: (h: Habit, history: SettingsEntry[]) => Habit): Promise<void> {
    await this.d.database.transaction(async (tx) => {
      const before = await habitRepo.getForUpdate(tx, id)
      authorizeHabit(p, before)
      const history = await settingsRepo.history(tx, before.avatarId)
      await this.d.habits.save(tx, before, decide(before, history))
    })
  }
}
