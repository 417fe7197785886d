import type { TrackingDraft } from '../../../contracts/events/tracking.js'
import { SYSTEM, type Principal } from '../../../platform/auth/principal.js'
import { failed, KeyedBatcher, type Outcome } from '../../../platform/writer/batcher.js'
import type { Clock } from '../../../platform/clock.js'
import type { Database, Tx } from '../../../platform/db/database.js'
import { RACE_LOST, untilWritten } from '../../../platform/writer/retry.js'
import { BadRequest, Conflict } from '../../../platform/errors.js'
import { writtenEvents, type Outbox } from '../../../platform/events/outbox.js'
import { newId } from '../../../platform/ids.js'
import { inBatches } from '../../../platform/jobs/batches.js'
import { readPage, type Page, type PageRequest } from '../../../platform/paging.js'
import {
  addDays, dayStart, parseLocalDate, parseLocalDateTime, windowContaining, windowInstants, type LocalDate, type Recurrence, type Window,
} from '../../../platform/time/index.js'
import { requireOwnedAvatar, type AvatarClient } from '../../avatar/client.js'
import { InvalidDate } from '../domain/errors.js'
import * as rules from '../domain/habit.js'
import type { Habit } from '../domain/habit.js'
import * as reminders from '../domain/reminder.js'
import * as stats from '../domain/stats.js'
import { firstWindowFrom, windowsOver, type WindowView } from '../domain/window-status.js'
import {
  COMPLETION_RATE_SPANS, MISSED_CATCH_UP_LIMIT, MISSED_JOB_BATCH, MISSED_WINDOW_DAMAGE, REMINDER_JOB_BATCH, WINDOWS_VIEW_DEFAULT_DAYS, WINDOWS_VIEW_MAX,
  type ReportPeriod,
} from '../domain/rules.js'
import {
  changeSettings as changeSettingsHistory, checkSettings, currentSettings, frameOf, hasEnded, settingsFor, todayOf, type DaySettings, type SettingsChange,
  type SettingsEntry,
} from '../domain/settings.js'
import { attendanceStore, completionRepo, completionsBetween, habitRepo, missedRepo, reminderRepo, settingsRepo } from '../store/habits.js'
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
  /** Its own zone; absent: it follows its avatar's. */
  timeZone?: string | null
  restDays?: string[] | null
  associatedQuestId?: string | null
  /** `HH:mm` local; absent or null: no reminders. */
  reminderTime?: string | null
}

/** A habit as its owner sees it now, with its avatar's settings. */
export interface HabitSnapshot {
  habit: Habit
  history: SettingsEntry[]
  streak: number
}

/** A habit's stats (GET /habits/{id}/stats). */
export type HabitStats = stats.HabitRates & { currentStreak: number; bestStreak: number; totalCompletions: number }

/** An avatar's report of a week or a month (GET /avatars/{id}/report). */
export interface AvatarReport extends stats.PeriodDays {
  period: ReportPeriod
  habits: ({ habitId: string; title: string } & stats.WindowCounts)[]
  experience: number
  money: number
}

/** The tracking context's use cases. Habits are private to the owner of their avatar. */
export class TrackingApp {
  private readonly attends = new KeyedBatcher<AttendCommand, void>((_player, batch) => this.applyAttends(batch))

  constructor(private readonly d: TrackingDeps) {}

  private snapshot(habit: Habit, history: SettingsEntry[]): HabitSnapshot {
    return { habit, history, streak: rules.currentStreak(habit, history, this.d.clock.now()) }
  }

  private history(avatarId: string): Promise<SettingsEntry[]> {
    return settingsRepo.history(this.d.database.current(), avatarId)
  }

  async create(p: Principal, input: NewHabit): Promise<HabitSnapshot> {
    const owner = await requireOwnedAvatar(this.d.avatars, p, input.avatarId, '/avatarId')
    const history = await this.history(input.avatarId)
    return this.snapshot((await this.insert(newId(), owner, input, history)).habit, history)
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

  /** The quest is over for these copies: they stay as personal habits, no longer linked to it. */
  async unlinkFromQuest(questId: string, habitIds: string[]): Promise<void> {
    await this.d.database.transaction((tx) => habitRepo.unlinkFromQuest(tx, questId, habitIds))
  }

  private async insert(id: string, ownerId: string, input: NewHabit, history: SettingsEntry[]): Promise<{ habit: Habit; created: boolean }> {
    const ownTimeZone = rules.ownTimeZoneOf(input.timeZone)
    const reminderTime = reminders.reminderTimeOf(input.reminderTime)
    const now = this.d.clock.now()
    const created = rules.newHabit({
      id,
      avatarId: input.avatarId,
      ownerId,
      title: input.title.trim(),
      description: input.description ?? '',
      tags: rules.normalizeTags(input.tags ?? []),
      recurrence: input.recurrence,
      restDays: rules.restDaysOf(input.recurrence.type, input.restDays),
      ownTimeZone,
      associatedQuestId: input.associatedQuestId ?? null,
    }, todayOf(history, ownTimeZone, now))
    const habit = reminders.setReminder(created, frameOf(currentSettings(history), ownTimeZone), reminderTime, now)
    return this.d.database.transaction(async (tx) => {
      if (!(await habitRepo.insert(tx, habit, now))) return { habit: await habitRepo.get(tx, id), created: false }
      await this.d.outbox.add(tx, [{ type: 'HabitCreated', aggregateId: habit.id, version: 1,
        payload: { habitId: habit.id, avatarId: habit.avatarId, questId: habit.associatedQuestId } }])
      return { habit, created: true }
    })
  }

  async get(p: Principal, id: string): Promise<HabitSnapshot> {
    const habit = await habitRepo.get(this.d.database.current(), id)
    authorizeHabit(p, habit)
    return this.snapshot(habit, await this.history(habit.avatarId))
  }

  async completionHistory(p: Principal, id: string): Promise<string[]> {
    await this.get(p, id)
    return completionRepo.history(this.d.database.current(), id)
  }

  /** The habit's windows overlapping the days [from, to), with what became of each (see `windowsOver`). */
  async windows(p: Principal, id: string, span: { from?: string | undefined; to?: string | undefined }): Promise<WindowView[]> {
    const { habit: h, history } = await this.get(p, id)
    const to = span.to ?? addDays(todayOf(history, h.ownTimeZone, this.d.clock.now()), 1)
    const from = span.from ?? addDays(to, -WINDOWS_VIEW_DEFAULT_DAYS)
    if (!parseLocalDate(from)) throw new BadRequest(`'${from}' is not a date like 2026-03-02.`, 'invalid-date', [{ path: '/from', message: 'must be a date YYYY-MM-DD' }])
    if (!parseLocalDate(to)) throw new BadRequest(`'${to}' is not a date like 2026-03-02.`, 'invalid-date', [{ path: '/to', message: 'must be a date YYYY-MM-DD' }])
    if (to <= from) throw new BadRequest('The span is empty: to must come after from.', 'invalid-span', [{ path: '/to', message: 'must be after from' }])
    return this.windowsOf(h, history, firstWindowFrom(h, from), to)
  }

  /** The habit's windows from `first` to the day `to` (excluded), read with their completions and judgements. */
  private async windowsOf(h: Habit, history: SettingsEntry[], first: Window, to: LocalDate): Promise<WindowView[]> {
    const q = this.d.database.current()
    const [completed, judged] = await Promise.all([completionsBetween(q, h.id, first.start, to), missedRepo.between(q, h.id, first.start, to)])
    return windowsOver(h, history, { slots: completed.map((c) => c.slot), judged }, first, to, this.d.clock.now(), WINDOWS_VIEW_MAX)
  }

  /**
   * A habit's completion rates over its last 7, 30 and 365 days, its strength over the last 365,
   * its streaks and how many completions it has (stats.ts says what counts).
   */
  async stats(p: Principal, id: string): Promise<HabitStats> {
    const { habit: h, history, streak } = await this.get(p, id)
    const today = todayOf(history, h.ownTimeZone, this.d.clock.now())
    // A year of daily windows is the most there can be: WINDOWS_VIEW_MAX holds them.
    const first = firstWindowFrom(h, addDays(today, 1 - COMPLETION_RATE_SPANS.days365))
    const [windows, totalCompletions] = await Promise.all([
      this.windowsOf(h, history, first, addDays(today, 1)), completionRepo.count(this.d.database.current(), id),
    ])
    return { ...stats.habitRates(windows, today), currentStreak: streak, bestStreak: h.bestStreak, totalCompletions }
  }

  /**
   * The week or month holding `date` (default today, in the avatar's days): each habit's due windows
   * that end in it by outcome, and what the avatar earned in it (the avatar context keeps that).
   */
  async report(p: Principal, avatarId: string, asked: { period: ReportPeriod; date?: string | undefined }): Promise<AvatarReport> {
    await requireOwnedAvatar(this.d.avatars, p, avatarId, 'path')
    const history = await this.history(avatarId)
    const now = this.d.clock.now()
    const days = stats.periodHolding(asked.period, stats.reportDay(asked.date, todayOf(history, null, now)))
    const frame = frameOf(settingsFor(history, days.from), null)
    const earned = await this.d.avatars.earnings(avatarId, dayStart(days.from, frame), dayStart(days.to, frame))
    const q = this.d.database.current()
    const habits = await habitRepo.allOfAvatar(q, avatarId)
    const firsts = habits.map((h) => firstWindowFrom(h, days.from))
    const since = firsts.reduce((min, w) => (w.start < min ? w.start : min), days.from)
    const ids = habits.map((h) => h.id)
    const [slots, judged] = await Promise.all([completionRepo.slotsOfHabits(q, ids, since, days.to), missedRepo.ofHabitsBetween(q, ids, since, days.to)])
    return {
      period: asked.period,
      ...days,
      habits: habits.map((h, i) => {
        const records = { slots: slots.get(h.id) ?? [], judged: judged.get(h.id) ?? new Map<LocalDate, string>() }
        const windows = windowsOver(h, history, records, firsts[i]!, days.to, now, WINDOWS_VIEW_MAX)
        return { habitId: h.id, title: h.title, ...stats.countInPeriod(windows, days) }
      }),
      experience: earned.experience,
      money: earned.money,
    }
  }

  async listOfAvatar(p: Principal, avatarId: string, asked: PageRequest): Promise<Page<HabitSnapshot>> {
    await requireOwnedAvatar(this.d.avatars, p, avatarId, '/avatarId')
    const q = this.d.database.current()
    const [page, history] = await Promise.all([readPage(asked, {
      names: 'a habit of this list',
      positionOf: (cursor) => habitRepo.positionOf(q, avatarId, cursor),
      fetch: (after, count) => habitRepo.listOfAvatar(q, avatarId, count, after),
      keyOf: (h) => h.id,
    }), this.history(avatarId)])
    return { items: page.items.map((h) => this.snapshot(h, history)), next: page.next }
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

  /**
   * The windows change, and so do the instants of their reminders. Rest days stay only on a DAILY
   * habit. The old schedule's windows that have ended are judged first (the job may not have come
   * by yet), so a change of schedule never skips one.
   */
  async reschedule(p: Principal, id: string, recurrence: Recurrence): Promise<void> {
    await this.d.database.transaction(async (tx) => {
      const before = await habitRepo.getForUpdate(tx, id)
      authorizeHabit(p, before)
      const history = await settingsRepo.history(tx, before.avatarId)
      const now = this.d.clock.now()
      const { habit: judged } = await this.judgeHabit(tx, before, history, now)
      const changed = rules.changeRecurrence(judged, recurrence, todayOf(history, judged.ownTimeZone, now))
      await habitRepo.save(tx, { ...reminders.setReminder(changed, reminders.habitFrame(changed, history), judged.reminderTime, now), version: judged.version + 1 })
    })
  }

  /** New rest days govern the windows that start from tomorrow on. */
  setRestDays(p: Principal, id: string, restDays: string[] | null) {
    return this.change(p, id, (h, history) => {
      const days = rules.restDaysOf(h.recurrence.type, restDays)
      return rules.changeRestDays(h, days, todayOf(history, h.ownTimeZone, this.d.clock.now()))
    })
  }

  /** Sets or (with null) clears the reminder; it first falls at its next time after now. */
  setReminderTime(p: Principal, id: string, reminderTime: string | null) {
    const checked = reminders.reminderTimeOf(reminderTime)
    return this.change(p, id, (h, history) => reminders.setReminder(h, reminders.habitFrame(h, history), checked, this.d.clock.now()))
  }

  /** The avatar's day settings now (the defaults until changed). */
  async settings(p: Principal, avatarId: string): Promise<DaySettings> {
    await requireOwnedAvatar(this.d.avatars, p, avatarId, 'path')
    const { from: _from, ...now } = currentSettings(await this.history(avatarId))
    return now
  }

  /**
   * Changes the avatar's day settings; they govern the windows that start after today (its day
   * by the settings before). The reminders of its habits move with their days.
   */
  async changeSettings(p: Principal, avatarId: string, change: SettingsChange): Promise<DaySettings> {
    await requireOwnedAvatar(this.d.avatars, p, avatarId, 'path')
    return untilWritten(`settings of avatar '${avatarId}'`, () => this.d.database.transaction(async (tx) => {
      const { history, version } = await settingsRepo.historyForUpdate(tx, avatarId)
      const now = this.d.clock.now()
      const next = checkSettings(currentSettings(history), change)
      const changed = changeSettingsHistory(history, next, todayOf(history, null, now))
      if (!(await settingsRepo.save(tx, avatarId, changed, version, now))) return RACE_LOST
      for (const h of await habitRepo.withReminderOfAvatar(tx, avatarId)) {
        await habitRepo.save(tx, reminders.setReminder(h, reminders.habitFrame(h, changed), h.reminderTime, now))
      }
      return next
    }))
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
      this.d.outbox.committed(decided.writes.filter((w) => written.has(w.habit.id)).flatMap((w) => writtenEvents(w.habit.id, now, w.events)))
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
   * (habit, window): a due one missed (HabitMissed: its penalty, to the avatar, which may take it
   * with a streak freeze or not at all past the day's cap), a not-due one recorded. Habits are
   * claimed with SKIP LOCKED, so replicas share the work.
   */
  async judgeMissedWindows(): Promise<number> {
    const now = this.d.clock.now()
    // No day starts more than a day ahead of UTC's: a cheap bound for the index, refined per habit.
    const horizon = addDays(now.toISOString().slice(0, 10), 1)
    let penalties = 0
    await inBatches(MISSED_JOB_BATCH, async () => {
      const { claimed, missed } = await this.d.database.transaction(async (tx) => {
        const due = await habitRepo.claimDueForMissCheck(tx, horizon, MISSED_JOB_BATCH)
        const histories = await settingsRepo.historiesOf(tx, due.map((h) => h.avatarId))
        let missedHere = 0
        let judgedHabits = 0
        for (const before of due) {
          const history = histories.get(before.avatarId)!
          if (!hasEnded(history, before.ownTimeZone, windowContaining(before.recurrence, before.missCheckFrom), now)) continue
          judgedHabits++
          const { habit, missed } = await this.judgeHabit(tx, before, history, now)
          missedHere += missed
          await habitRepo.save(tx, habit)
        }
        return { claimed: judgedHabits, missed: missedHere }
      })
      penalties += missed
      return claimed
    })
    return penalties
  }

  /**
   * Judges a locked habit's ended windows (at most MISSED_CATCH_UP_LIMIT): records each, and a
   * HabitMissed for each missed one that was not recorded before. Answers the habit judged, its
   * version raised (an attend decided on the version before is decided again), not yet saved.
   */
  private async judgeHabit(tx: Tx, before: Habit, history: SettingsEntry[], now: Date): Promise<{ habit: Habit; missed: number }> {
    const slots = await completionRepo.windowStarts(tx, before.id)
    const judgement = rules.judgeMissedWindows(before, history, slots, now, MISSED_CATCH_UP_LIMIT)
    const habit = { ...judgement.habit, version: before.version + 1 }
    let missed = 0
    for (const { window: w, outcome } of judgement.judged) {
      if (!(await missedRepo.record(tx, habit.id, w.start, outcome, now)) || outcome !== 'MISSED') continue
      missed++
      await this.d.outbox.add(tx, [{
        type: 'HabitMissed', aggregateId: habit.id, version: habit.version,
        payload: { habitId: habit.id, avatarId: habit.avatarId, questId: habit.associatedQuestId, windowStart: w.start, windowEnd: w.end, damage: MISSED_WINDOW_DAMAGE },
      }])
    }
    return { habit, missed }
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
      await habitRepo.save(tx, { ...frozen, version: habit.version + 1 })
    })
  }

  /**
   * The reminder job: for each habit whose next reminder instant has come, a HabitReminderDue for
   * its current window when that window's reminder time has come and it is due and not done (the
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
        const histories = await settingsRepo.historiesOf(tx, due.map((h) => h.avatarId))
        const frames = due.map((h) => reminders.habitFrame(h, histories.get(h.avatarId)!))
        const current = due.map((h, i) => ({ habitId: h.id, ...reminders.currentWindow(h, frames[i]!, now) }))
        const slots = await completionRepo.slotsWithin(tx, current)
        const checks = due.map((h) => reminders.checkReminder(h, histories.get(h.avatarId)!, slots.get(h.id) ?? new Set(), now))
        const reminding = checks.flatMap((c, i) => (c.due ? [{ habit: c.habit, frame: frames[i]!, ...c.due }] : []))
        const fresh = await reminderRepo.record(tx, reminding.map((r) => ({ habitId: r.habit.id, windowStart: r.window.start, windowEnd: r.window.end })), now)
        await this.d.outbox.add(tx, reminding.filter((r) => fresh.has(r.habit.id)).map(({ habit: h, frame, window, reminderTime }) => {
          const instants = windowInstants(window, frame)
          return {
            type: 'HabitReminderDue' as const, aggregateId: h.id, version: h.version,
            payload: {
              habitId: h.id, avatarId: h.avatarId, habitTitle: h.title, questId: h.associatedQuestId,
              windowStart: instants.start.toISOString(), windowEnd: instants.end.toISOString(), reminderTime, timeZone: frame.timeZone,
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

  /** An avatar was deleted: its habits and settings go with it. */
  async deleteHabitsOfAvatar(avatarId: string): Promise<void> {
    await this.d.database.transaction(async (tx) => {
      for (const id of await habitRepo.idsOfAvatar(tx, avatarId)) await this.remove(await habitRepo.getForUpdate(tx, id))
      await settingsRepo.delete(tx, avatarId)
    })
  }

  private async remove(habit: Habit): Promise<void> {
    await this.d.database.transaction(async (tx) => {
      await habitRepo.delete(tx, habit.id)
      await this.d.outbox.add(tx, [{ type: 'HabitDeleted', aggregateId: habit.id, version: habit.version + 1,
        payload: { habitId: habit.id, avatarId: habit.avatarId, questId: habit.associatedQuestId } }])
    })
  }

  private async change(p: Principal, id: string, decide: (h: Habit, history: SettingsEntry[]) => Habit): Promise<void> {
    await this.d.database.transaction(async (tx) => {
      const before = await habitRepo.getForUpdate(tx, id)
      authorizeHabit(p, before)
      const history = await settingsRepo.history(tx, before.avatarId)
      await habitRepo.save(tx, { ...decide(before, history), version: before.version + 1 })
    })
  }
}
