import type { Tx } from '../../../platform/db/database.js'
import type { Habit } from '../domain/habit.js'
import { judgeMissedWindows } from '../domain/missed-windows.js'
import { MISSED_CATCH_UP_LIMIT, MISSED_WINDOW_DAMAGE } from '../domain/rules.js'
import type { SettingsEntry } from '../domain/settings.js'
import type { TrackingDraft } from '../../../contracts/events/tracking.js'
import { completionRepo, missedRepo } from '../store/window-records.js'

/**
 * Judges a locked habit's ended windows (at most MISSED_CATCH_UP_LIMIT): records each, and answers
 * the habit judged (not yet saved) with a HabitMissed for each missed one not recorded before, for
 * the save that writes it (an attend decided on the version before is then decided again). The
 * missed-window job judges with it, and so does a change of schedule before it moves the windows.
 */
export async function judgeEndedWindows(tx: Tx, before: Habit, history: SettingsEntry[], now: Date): Promise<{ habit: Habit; missed: TrackingDraft[] }> {
  const slots = await completionRepo.windowStarts(tx, before.id)
  const judgement = judgeMissedWindows(before, history, slots, now, MISSED_CATCH_UP_LIMIT)
  const habit = judgement.habit
  const missed: TrackingDraft[] = []
  for (const { window: w, outcome } of judgement.judged) {
    if (!(await missedRepo.record(tx, habit.id, w.start, outcome, now)) || outcome !== 'MISSED') continue
    missed.push({
      type: 'HabitMissed',
      payload: { habitId: habit.id, avatarId: habit.avatarId, questId: habit.associatedQuestId, windowStart: w.start, windowEnd: w.end, damage: MISSED_WINDOW_DAMAGE },
    })
  }
  return { habit, missed }
}
