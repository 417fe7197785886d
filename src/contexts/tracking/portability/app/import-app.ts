/**
 * Importing habits with their history onto an avatar (DESIGN §9.4): from an export document or a
 * Loop Habit Tracker export. Owner only. Everything is read and checked first, then written in one
 * transaction: nothing is half-imported. A habit the avatar has already (domain/known-habits.ts) is
 * not made again: importing the same file twice makes its habits once, and the second import
 * answers which they are. An import never rewards: no HabitAttended (so no experience, money,
 * quest or guild points) for imported completions; each habit is announced by a HabitCreated, as
 * a new habit is.
 */
import type { TrackingDraft } from '../../../../contracts/events/tracking.js'
import type { Principal } from '../../../../platform/auth/principal.js'
import type { Clock } from '../../../../platform/clock.js'
import type { Database } from '../../../../platform/db/database.js'
import type { AggregateWriter } from '../../../../platform/writer/writer.js'
import type { Habit } from '../../domain/habit.js'
import { newId } from '../../../../platform/ids.js'
import { requireOwnedAvatar, type AvatarClient } from '../../../avatar/client.js'
import { withJobInstants } from '../../domain/job-instants.js'
import * as reminders from '../../domain/reminder.js'
import { currentSettings, frameOf, todayOf } from '../../domain/settings.js'
import { habitRepo } from '../../store/habits.js'
import { settingsRepo } from '../../store/settings.js'
import { chooseAvatar, importedHabit, plansFromDocument, type HabitPlan, type ImportDocument } from '../domain/import.js'
import { plansFromLoop, type LoopFiles } from '../domain/loop-plans.js'
import { matchKnownHabits } from '../domain/known-habits.js'
import { historyRows } from '../store/history-rows.js'
import { lockImportsOnto } from '../store/import-lock.js'

export type ImportSource =
  | { format: 'questline'; document: ImportDocument; avatar?: string | undefined }
  | { format: 'loop'; files: LoopFiles }

export interface ImportDeps {
  database: Database
  clock: Clock
  avatars: AvatarClient
  habits: AggregateWriter<Habit, TrackingDraft>
}

/** The habits an import made, with new ids, and those of its file the avatar had already; each in the file's order. */
export interface ImportResult {
  habitIds: string[]
  existing: { habitId: string; title: string }[]
}

export class ImportApp {
  constructor(private readonly d: ImportDeps) {}

  /** Makes the habits the source describes that the avatar has not already, with new ids. */
  async importHabits(p: Principal, avatarId: string, source: ImportSource): Promise<ImportResult> {
    const ownerId = await requireOwnedAvatar(this.d.avatars, p, avatarId, 'path')
    const history = await settingsRepo.history(this.d.database.current(), avatarId)
    const now = this.d.clock.now()
    const frame = { today: todayOf(history, null, now), dayStartHour: currentSettings(history).dayStartHour }
    const plans: HabitPlan[] = source.format === 'loop'
      ? plansFromLoop(source.files, frame)
      : plansFromDocument(source.document, chooseAvatar(source.document, source.avatar), frame)
    const made = plans.map((plan) => {
      const habit = importedHabit(plan, { id: newId(), avatarId, ownerId }, history, todayOf(history, plan.ownTimeZone, now))
      return { plan, habit: reminders.setReminder(habit, frameOf(currentSettings(history), habit.ownTimeZone), plan.reminderTime, now) }
    })
    return this.d.database.transaction(async (tx) => {
      await lockImportsOnto(tx, avatarId)
      const known = matchKnownHabits(made.map(({ plan }) => plan), await habitRepo.allOfAvatar(tx, avatarId))
      const existing = known.flatMap((h) => (h ? [{ habitId: h.id, title: h.title }] : []))
      const fresh = made.filter((_, i) => known[i] === undefined)
      // The jobs' instants by the settings read again under a share lock, as for a habit made by hand (HabitCommands.insert).
      const settled = await settingsRepo.historyForShare(tx, avatarId)
      for (const { habit } of fresh) {
        await this.d.habits.insert(tx, withJobInstants(habit, settled, now), [{ type: 'HabitCreated', payload: { habitId: habit.id, avatarId: habit.avatarId, questId: null } }],
          { createdAt: now })
      }
      await historyRows.insertCompletions(tx, fresh.flatMap(({ plan, habit }) =>
        plan.completions.map((c) => ({ habitId: habit.id, windowStart: c.slot, attendedAt: c.attendedAt }))), now)
      await historyRows.insertJudged(tx, fresh.flatMap(({ plan, habit }) =>
        plan.judged.map((j) => ({ habitId: habit.id, windowStart: j.windowStart, outcome: j.outcome }))), now)
      return { habitIds: fresh.map(({ habit }) => habit.id), existing }
    })
  }
}
