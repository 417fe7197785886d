import { SYSTEM, type Principal } from '../../../platform/auth/principal.js'
import { failed, KeyedBatcher, type Outcome } from '../../../platform/batcher.js'
import type { Clock } from '../../../platform/clock.js'
import type { Database } from '../../../platform/db/database.js'
import { RACE_LOST, untilWritten } from '../../../platform/db/optimistic.js'
import { Conflict } from '../../../platform/errors.js'
import type { Outbox } from '../../../platform/events/outbox.js'
import type { TrackingDraft } from '../events.js'
import { newId } from '../../../platform/ids.js'
import { inBatches } from '../../../platform/jobs/batches.js'
import { readPage, type Page, type PageRequest } from '../../../platform/paging.js'
import { addDays, dateOf, localDateTimeIn, parseLocalDateTime, type LocalDate, type Recurrence } from '../../../platform/time/index.js'
import { requireOwnedAvatar, type AvatarClient } from '../../avatar/client.js'
import { InvalidDate } from '../domain/errors.js'
import * as rules from '../domain/habit.js'
import type { Habit } from '../domain/habit.js'
import * as reminders from '../domain/reminder.js'
import { MISSED_CATCH_UP_LIMIT, MISSED_JOB_BATCH, MISSED_WINDOW_DAMAGE, REMINDER_JOB_BATCH } from '../domain/rules.js'
import { attendanceStore, completionRepo, habitRepo, missedRepo, reminderRepo } from '../store/habits.js'
import { authorizeHabit, decideAttends, type AttendCommand } from './attend-batch.js'

export interface TrackingDeps {
  database: Database
  outbox: Outbox<TrackingDraft>
  clock: Clock
  avatars: AvatarClient
}


export interface NewHabit {
  avatarId: string
  title: string
  description?: string
  tags?: string[]
  recurrence: Recurrence
  timeZone?: string
  associatedQuestId?: string | null
  /** `HH:mm` local; absent or null: no reminders. */
  reminderTime?: string | null
}

/** A habit as its owner sees it today. */
export interface HabitSnapshot {
  habit: Habit
  streak: number
}

/** The tracking context's use cases. Habits are private to the owner of their avatar. */
export class TrackingApp {
  private readonly attends = new KeyedBatcher<AttendCommand, void>((_player, batch) => this.applyAttends(batch))

  constructor(private readonly d: TrackingDeps) {}

  private today(timeZone: string): LocalDate {
    return dateOf(localDateTimeIn(this.d.clock.now(), timeZone))
  }

  private snapshot(habit: Habit): HabitSnapshot {
    return { habit, streak: rules.currentStreak(habit, this.today(habit.timeZone)) }
  }

  async create(p: Principal, input: NewHabit): Promise<HabitSnapshot> {
    const owner = await requireOwnedAvatar(this.d.avatars, p, input.avatarId, '/avatarId')
    return this.snapshot((await this.insert(newId(), owner, input)).habit)
  }

  /**
   * A quest habit copied into an avatar's plan under an id the quest chose. The id is the
   * idempotency key: asking again makes nothing new, so a join retried after a crash ends with
   * exactly one copy of each habit.
   */
  async copyForQuest(id: string, input: NewHabit & { associatedQuestId: string }): Promise<void> {
    const owner = await requireOwnedAvatar(this.d.avatars, SYSTEM, input.avatarId, '/avatarId')
    const { habit, created } = await this.insert(id, owner, input)
    if (!created && habit.avatarId !== input.avatarId) throw new Conflict(`Habit '${id}' exists already for another avatar.`, 'habit-id-taken')
  }

  /** The quest is over for these copies: they stay as personal habits, no longer linked to it. */
  async unlinkFromQuest(questId: string, habitIds: string[]): Promise<void> {
    await this.d.database.transaction((tx) => habitRepo.unlinkFromQuest(tx, questId, habitIds))
  }

  private async insert(id: string, ownerId: string, input: NewHabit): Promise<{ habit: Habit; created: boolean }> {
    const timeZone = rules.habitTimeZone(input.timeZone)
    const reminderTime = reminders.reminderTimeOf(input.reminderTime)
    const created = rules.newHabit({
      id,
      avatarId: input.avatarId,
      ownerId,
      title: input.title.trim(),
      description: input.description ?? '',
      tags: rules.normalizeTags(input.tags ?? []),
      recurrence: input.recurrence,
      timeZone,
      associatedQuestId: input.associatedQuestId ?? null,
    }, this.today(timeZone))
    const habit = reminders.setReminder(created, reminderTime, this.d.clock.now())
    return this.d.database.transaction(async (tx) => {
      if (!(await habitRepo.insert(tx, habit, this.d.clock.now()))) return { habit: await habitRepo.get(tx, id), created: false }
      await this.d.outbox.add(tx, [{ type: 'HabitCreated', aggregateId: habit.id, version: 1,
        payload: { habitId: habit.id, avatarId: habit.avatarId, questId: habit.associatedQuestId } }])
      return { habit, created: true }
    })
  }

  async get(p: Principal, id: string): Promise<HabitSnapshot> {
    const habit = await habitRepo.get(this.d.database.current(), id)
    authorizeHabit(p, habit)
    return this.snapshot(habit)
  }

  async history(p: Principal, id: string): Promise<string[]> {
    await this.get(p, id)
    return completionRepo.history(this.d.database.current(), id)
  }

  async listOfAvatar(p: Principal, avatarId: string, asked: PageRequest): Promise<Page<HabitSnapshot>> {
    await requireOwnedAvatar(this.d.avatars, p, avatarId, '/avatarId')
    const q = this.d.database.current()
    const page = await readPage(asked, {
      names: 'a habit of this list',
      positionOf: (cursor) => habitRepo.positionOf(q, avatarId, cursor),
      fetch: (after, count) => habitRepo.listOfAvatar(q, avatarId, count, after),
      keyOf: (h) => h.id,
    })
    return { items: page.items.map((h) => this.snapshot(h)), next: page.next }
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
    return this.change(p, id, (h) => ({ ...h, tags: rules.normalizeTags(tags) }))
  }

  /** The windows change, and so do the instants of their reminders. */
  reschedule(p: Principal, id: string, recurrence: Recurrence) {
    return this.change(p, id, (h) =>
      reminders.setReminder(rules.changeRecurrence(h, recurrence, this.today(h.timeZone)), h.reminderTime, this.d.clock.now()))
  }

  /** Sets or (with null) clears the reminder; it first falls at its next time after now. */
  setReminderTime(p: Principal, id: string, reminderTime: string | null) {
    const checked = reminders.reminderTimeOf(reminderTime)
    return this.change(p, id, (h) => reminders.setReminder(h, checked, this.d.clock.now()))
  }

  /**
   * Records a completion; the reward travels to the avatar as a HabitAttended event. A player's
   * concurrent attends are applied together (see `applyAttends`).
   */
  async attend(p: Principal, id: string, date: string): Promise<void> {
    const attendedAt = parseLocalDateTime(date)
    if (!attendedAt) throw new InvalidDate(date)
    // Its write is a statement of its own: inside a caller's transaction it would not join it.
    this.d.database.assertNoOpenTransaction(`An attend of habit '${id}'`)
    await this.attends.submit(p.userId, { principal: p, habitId: id, attendedAt })
  }

  /**
   * A batch of attends in two statements: the habits read, the attends decided in arrival order,
   * and every changed habit written with its completions and events, guarded by the versions read.
   * The attends of a habit that moved on meanwhile are decided again on fresh state; the others
   * have their answers.
   */
  private applyAttends(commands: AttendCommand[]): Promise<Outcome<void>[]> {
    const outcomes: (Outcome<void> | undefined)[] = commands.map(() => undefined)
    const answered = untilWritten(`${commands.length} attend(s)`, async () => {
      const pending = commands.flatMap((c, i) => (outcomes[i] ? [] : [{ c, i }]))
      const loaded = await attendanceStore.load(this.d.database.db, [...new Set(pending.map((x) => x.c.habitId))])
      const now = this.d.clock.now()
      const decided = decideAttends(loaded, pending.map((x) => x.c), now)
      const written = decided.writes.length ? await attendanceStore.write(this.d.database, decided.writes, now) : new Set<string>()
      if (written.size > 0) this.d.outbox.announce()
      const lost = new Set(decided.writes.filter((w) => !written.has(w.habit.id)).map((w) => w.habit.id))
      // An answer stands unless its habit's write lost the race; a refusal was judged on fresh state.
      pending.forEach(({ c, i }, k) => {
        if (!lost.has(c.habitId)) outcomes[i] = decided.outcomes[k]
      })
      return lost.size > 0 ? RACE_LOST : (outcomes as Outcome<void>[])
    })
    // Attends written before a later attempt failed keep their answers; only the rest get the error.
    return answered.catch((e: unknown) => outcomes.map((o) => o ?? failed(e)))
  }

  /**
   * The missed-window job: judges every window that has ended since the last run, once per
   * (habit, window). Habits are claimed with SKIP LOCKED, so replicas share the work.
   */
  async judgeMissedWindows(): Promise<number> {
    const now = this.d.clock.now()
    // No zone is more than a day ahead of UTC: a cheap bound for the index, refined per habit.
    const horizon = addDays(dateOf(localDateTimeIn(now, 'UTC')), 1)
    let penalties = 0
    await inBatches(MISSED_JOB_BATCH, async () => {
      const { judged, missed } = await this.d.database.transaction(async (tx) => {
        const due = await habitRepo.claimDueForMissCheck(tx, horizon, MISSED_JOB_BATCH)
        let missedHere = 0
        let judged = 0
        for (const before of due) {
          const today = this.today(before.timeZone)
          if (before.missCheckDue > today) continue
          judged++
          const completed = await completionRepo.windowStarts(tx, before.id)
          const judgement = rules.judgeMissedWindows(before, completed, today, MISSED_CATCH_UP_LIMIT)
          // A judgement changes the habit: an attend decided on the version before it is decided again.
          const habit = { ...judgement.habit, version: before.version + 1 }
          for (const w of judgement.missed) {
            if (!(await missedRepo.record(tx, habit.id, w.start, now))) continue
            missedHere++
            await this.d.outbox.add(tx, [{
              type: 'HabitMissed', aggregateId: habit.id, version: habit.version,
              payload: { habitId: habit.id, avatarId: habit.avatarId, questId: habit.associatedQuestId, windowStart: w.start, windowEnd: w.end, damage: MISSED_WINDOW_DAMAGE },
            }])
          }
          await habitRepo.save(tx, habit)
        }
        return { judged, missed: missedHere }
      })
      penalties += missed
      return judged
    })
    return penalties
  }

  /**
   * The reminder job: for each habit whose next reminder instant has come, a HabitReminderDue for
   * its current window when that window's reminder time has come and it is not completed (the
   * rule: domain/reminder.ts). Once per (habit, window): the reminders_sent row is written with
   * the event, and a window recorded before gets none, whichever replica or run sends it. Habits
   * are claimed with SKIP LOCKED, so replicas share the work, and each one claimed has its next
   * reminder instant moved past now, so a run ends.
   */
  async sendReminders(): Promise<number> {
    const now = this.d.clock.now()
    let sent = 0
    await inBatches(REMINDER_JOB_BATCH, async () => {
      const { claimed, reminded } = await this.d.database.transaction(async (tx) => {
        const due = await habitRepo.claimDueForReminder(tx, now, REMINDER_JOB_BATCH)
        const current = due.map((h) => reminders.currentWindow(h, now).start)
        const completed = await completionRepo.startsOfHabits(tx, due.map((h) => h.id), current)
        const checks = due.map((h) => reminders.checkReminder(h, completed.get(h.id) ?? new Set(), now))
        const reminding = checks.flatMap((c) => (c.due ? [{ habit: c.habit, ...c.due }] : []))
        const fresh = await reminderRepo.record(tx, reminding.map((r) => ({ habitId: r.habit.id, windowStart: r.window.start, windowEnd: r.window.end })), now)
        await this.d.outbox.add(tx, reminding.filter((r) => fresh.has(r.habit.id)).map(({ habit: h, window, reminderTime }) => {
          const instants = reminders.windowInstants(h, window)
          return {
            type: 'HabitReminderDue' as const, aggregateId: h.id, version: h.version,
            payload: {
              habitId: h.id, avatarId: h.avatarId, habitTitle: h.title, questId: h.associatedQuestId,
              windowStart: instants.start.toISOString(), windowEnd: instants.end.toISOString(), reminderTime, timeZone: h.timeZone,
            },
          }
        }))
        await habitRepo.setRemindAt(tx, checks.map((c) => ({ id: c.habit.id, remindAt: c.habit.remindAt })))
        return { claimed: due.length, reminded: fresh.size }
      })
      sent += reminded
      return claimed
    })
    return sent
  }

  /** An avatar was deleted: its habits go with it. */
  async deleteHabitsOfAvatar(avatarId: string): Promise<void> {
    await this.d.database.transaction(async (tx) => {
      for (const id of await habitRepo.idsOfAvatar(tx, avatarId)) await this.remove(await habitRepo.getForUpdate(tx, id))
    })
  }

  private async remove(habit: Habit): Promise<void> {
    await this.d.database.transaction(async (tx) => {
      await habitRepo.delete(tx, habit.id)
      await this.d.outbox.add(tx, [{ type: 'HabitDeleted', aggregateId: habit.id, version: habit.version + 1,
        payload: { habitId: habit.id, avatarId: habit.avatarId, questId: habit.associatedQuestId } }])
    })
  }

  private async change(p: Principal, id: string, decide: (h: Habit) => Habit): Promise<void> {
    await this.d.database.transaction(async (tx) => {
      const before = await habitRepo.getForUpdate(tx, id)
      authorizeHabit(p, before)
      await habitRepo.save(tx, { ...decide(before), version: before.version + 1 })
    })
  }

}
