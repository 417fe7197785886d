import { inBatches } from '../../../platform/jobs/batches.js'
import { windowInstants } from '../../../platform/time/index.js'
import type { TrackingDraft } from '../../../contracts/events/tracking.js'
import { missCheckAt, type Habit } from '../domain/habit.js'
import * as reminders from '../domain/reminder.js'
import { MISSED_JOB_BATCH, REMINDER_JOB_BATCH } from '../domain/rules.js'
import { habitRepo } from '../store/habits.js'
import { settingsRepo } from '../store/settings.js'
import { completionRepo, reminderRepo } from '../store/window-records.js'
import type { TrackingDeps } from './deps.js'
import { judgeEndedWindows } from './judging.js'

/** The tracking context's periodic jobs: the missed-window judgement and the reminders. Replicas share their work. */
export class TrackingJobs {
  constructor(private readonly d: Pick<TrackingDeps, 'database' | 'clock' | 'habits'>) {}

  /**
   * The missed-window job: judges every window that has ended since the last run, once per
   * (habit, window): a due one missed (HabitMissed: its penalty, to the avatar, which may take it
   * with a streak freeze or not at all past the day's cap), a not-due one recorded. Habits are
   * claimed by the instant their next window to judge ends, first ended first, with SKIP LOCKED,
   * so replicas share the work and no habit waiting for its window holds back one whose window has
   * ended. A habit claimed whose window has not ended after all (its instant was a bound written
   * early, or its avatar's settings moved the end) gets the exact instant, later than now: it is
   * claimed again only then, and a run ends.
   */
  async judgeMissedWindows(): Promise<number> {
    const now = this.d.clock.now()
    let penalties = 0
    await inBatches(MISSED_JOB_BATCH, async () => {
      const { claimed, missed } = await this.d.database.transaction(async (tx) => {
        const due = await habitRepo.claimDueForMissCheck(tx, now, MISSED_JOB_BATCH)
        const histories = await settingsRepo.historiesOf(tx, due.map((h) => h.avatarId))
        const changes: { before: Habit; after: Habit; events: TrackingDraft[] }[] = []
        let missedHere = 0
        for (const before of due) {
          const history = histories.get(before.avatarId)!
          const endsAt = missCheckAt(before, history)
          if (endsAt > now) {
            changes.push({ before, after: { ...before, missCheckAt: endsAt }, events: [] })
            continue
          }
          const { habit, missed } = await judgeEndedWindows(tx, before, history, now)
          missedHere += missed.length
          changes.push({ before, after: habit, events: missed })
        }
        await this.d.habits.saveMany(tx, changes)
        return { claimed: due.length, missed: missedHere }
      })
      penalties += missed
      return claimed
    })
    return penalties
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
        const told = new Map(reminding.filter((r) => fresh.has(r.habit.id)).map(({ habit: h, frame, window, reminderTime }) => {
          const instants = windowInstants(window, frame)
          return [h.id, {
            type: 'HabitReminderDue' as const,
            payload: {
              habitId: h.id, avatarId: h.avatarId, habitTitle: h.title, questId: h.associatedQuestId,
              windowStart: instants.start.toISOString(), windowEnd: instants.end.toISOString(), reminderTime, timeZone: frame.timeZone,
            },
          }]
        }))
        // Each habit claimed has its next reminder instant moved past now, with its reminder if one is told.
        await this.d.habits.saveMany(tx, due.map((before, i) => ({ before, after: { ...before, remindAt: checks[i]!.habit.remindAt }, events: [told.get(before.id)].flatMap((e) => (e ? [e] : [])) })))
        return { claimed: due.length, reminded: fresh.size }
      })
      sent += reminded
      return claimed
    })
    return sent
  }
}
