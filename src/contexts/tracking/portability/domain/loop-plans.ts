/**
 * A Loop Habit Tracker CSV export read into habit plans (DESIGN §9.4, `?format=loop`): each
 * exported habit (loop-habits.ts) with its days (loop-checkmarks.ts) turned into the history of
 * its windows. Pure: the zip, if any, was opened before.
 *
 * What Loop's days make of a window:
 * - done: a yes/no habit's YES_MANUAL day (TIMES_PER_WEEK: each one, the week done at its count);
 *   a numerical habit's window whose values sum to its target, at least (AT_LEAST) or at most
 *   (AT_MOST, with some value entered), as Loop judges a day against its target. Each done window
 *   is a completion, attended at the start of the day that made it;
 * - MISSED: a window ended before today, not done, with a day Loop says was not done (NO; a
 *   numerical value that falls short of its target). Judged so on import, never penalised: the
 *   missed-window job starts from today's window, as for any imported habit;
 * - NOT_DUE: a DAILY habit's skipped day (SKIP);
 * - nothing else (YES_AUTO, UNKNOWN, days Loop knows nothing of) judges a window: Loop has no
 *   answer for it.
 */
import { anchoredAt, recurrenceFields, windowContaining, type LocalDate, type Recurrence, type Window } from '../../../../platform/time/index.js'
import * as fields from '../../domain/habit-fields.js'
import { slotOf } from '../../domain/habit.js'
import { checkHistory, checkImportSize, historySpan, type HabitPlan, type ImportFrame } from './import.js'
import { LOOP_NO, LOOP_SKIP, LOOP_VALUE_SCALE, LOOP_YES_MANUAL, readLoopHistories, type LoopFiles, type LoopHistory } from './loop-checkmarks.js'
import { loopRecurrence, readLoopHabits, type LoopHabit, type LoopTarget } from './loop-habits.js'

export type { LoopFiles } from './loop-checkmarks.js'

/** The habits of a Loop export as plans, in the order of Habits.csv: each exported habit with its history. */
export function plansFromLoop(files: LoopFiles, frame: ImportFrame): HabitPlan[] {
  const list = readLoopHabits(files.habits)
  checkImportSize(list.length, 0, files.habits.path)
  const histories = readLoopHistories(files, list, historySpan(frame.today))
  checkImportSize(histories.length, histories.reduce((n, h) => n + h.days.size, 0), files.habits.path)
  return histories.map((history) => planOf(history, frame, files.habits.path))
}

/** One window's days, oldest first, as Loop's values. */
interface WindowDays {
  window: Window
  days: [LocalDate, number][]
}

/** What became of a window: the days its completions were attended on, and its judgement when not done. */
interface WindowOutcome {
  completedOn: LocalDate[]
  judged?: 'MISSED' | 'NOT_DUE' | undefined
}

function planOf({ habit, days }: LoopHistory, frame: ImportFrame, at: string): HabitPlan {
  const ordered = [...days].sort(([a], [b]) => (a < b ? -1 : 1))
  const template = fields.habitTemplate({ title: habit.name, description: habit.description, tags: [], recurrence: recurrenceFields(loopRecurrence(habit)) }, '')
  const recurrence = anchoredAt(loopRecurrence(habit), anchorDayOf(habit, ordered) ?? frame.today)
  const completions: HabitPlan['completions'] = []
  const judged: HabitPlan['judged'] = []
  for (const w of windowsOf(recurrence, ordered)) {
    const outcome = habit.target === null ? yesNoOutcome(recurrence, w) : numericalOutcome(habit.target, recurrence, w)
    for (const day of outcome.completedOn) {
      completions.push({ slot: slotOf(recurrence, day, w.window), attendedAt: `${day}T${String(frame.dayStartHour).padStart(2, '0')}:00:00` })
    }
    const ended = w.window.end <= frame.today
    if (outcome.judged === 'NOT_DUE' || (outcome.judged === 'MISSED' && ended)) judged.push({ windowStart: w.window.start, outcome: outcome.judged })
  }
  const plan: HabitPlan = { template: { ...template, recurrence }, ownTimeZone: null, restDays: [], reminderTime: null, firstWindowStart: null, completions, judged }
  // Archived in Loop: archived here from the import's day on (its history stays as Loop judged it).
  if (habit.archived) plan.archiving = { archived: true, spans: [] }
  checkHistory(plan, { completion: () => at, judged: () => at })
  return plan
}

/**
 * Where an EVERY_N_DAYS habit counts its windows from: its first done day (yes/no) or first day
 * with a value (numerical), else its first known day; undefined with no day at all.
 */
function anchorDayOf(habit: LoopHabit, ordered: [LocalDate, number][]): LocalDate | undefined {
  const first = ordered.find(([, v]) => (habit.target === null ? v === LOOP_YES_MANUAL : v !== LOOP_SKIP))
  return (first ?? ordered[0])?.[0]
}

/** The windows holding the days, oldest first, each with its days. */
function windowsOf(recurrence: Recurrence, ordered: [LocalDate, number][]): WindowDays[] {
  const out: WindowDays[] = []
  for (const day of ordered) {
    const last = out.at(-1)
    if (last && day[0] < last.window.end) last.days.push(day)
    else out.push({ window: windowContaining(recurrence, day[0]), days: [day] })
  }
  return out
}

/** A yes/no habit's window: done by a YES_MANUAL day (TIMES_PER_WEEK: by as many as its count). */
function yesNoOutcome(recurrence: Recurrence, w: WindowDays): WindowOutcome {
  const yes = w.days.filter(([, v]) => v === LOOP_YES_MANUAL).map(([day]) => day)
  const done = recurrence.type === 'TIMES_PER_WEEK' ? yes.length >= recurrence.timesPerWeek : yes.length > 0
  const completedOn = recurrence.type === 'TIMES_PER_WEEK' ? yes : yes.slice(0, 1)
  if (done) return { completedOn }
  return { completedOn, judged: judgementOf(recurrence, w, w.days.some(([, v]) => v === LOOP_NO)) }
}

/**
 * A numerical habit's window: the sum of its values (thousandths) against the target, as Loop
 * compares them (value / 1000 against the target). AT_LEAST is done on the day the sum reaches
 * it; AT_MOST, with some value entered and the sum within it, on the last day with a value.
 */
function numericalOutcome(target: LoopTarget, recurrence: Recurrence, w: WindowDays): WindowOutcome {
  const entered = w.days.filter(([, v]) => v !== LOOP_SKIP)
  let sum = 0
  for (const [day, value] of entered) {
    sum += value
    if (target.type === 'AT_LEAST' && sum / LOOP_VALUE_SCALE >= target.value) return { completedOn: [day] }
  }
  if (target.type === 'AT_MOST' && entered.length > 0 && sum / LOOP_VALUE_SCALE <= target.value) return { completedOn: [entered.at(-1)![0]] }
  return { completedOn: [], judged: judgementOf(recurrence, w, entered.length > 0) }
}

/** A window not done: missed when Loop says it fell short; a DAILY habit's skipped day is not due. */
function judgementOf(recurrence: Recurrence, w: WindowDays, fellShort: boolean): WindowOutcome['judged'] {
  if (fellShort) return 'MISSED'
  if (recurrence.type === 'DAILY' && w.days.some(([, v]) => v === LOOP_SKIP)) return 'NOT_DUE'
  return undefined
}
