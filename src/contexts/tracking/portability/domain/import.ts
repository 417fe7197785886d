/**
 * Importing habits with their history (DESIGN §9.4): reading an export document's habits into
 * plans, checked field by field, and making the habit a plan describes with its state (last
 * completion, streak, best streak) worked out from its history. Pure: no I/O. An import never
 * rewards: these rules decide no reward, and the app emits no completion event.
 */
import {
  addDays, isValidTimeZone, nextWindow, parseLocalDate, parseLocalDateTime, windowContaining, type LocalDate, type LocalDateTime, type Recurrence, type RecurrenceType, type Window,
} from '../../../../platform/time/index.js'
import * as fields from '../../domain/habit-fields.js'
import * as habits from '../../domain/habit.js'
import type { Habit } from '../../domain/habit.js'
import { reminderTimeOf } from '../../domain/reminder.js'
import { FROZEN_WINDOWS_KEPT } from '../../domain/rules.js'
import { BEGINNING, type SettingsEntry } from '../../domain/settings.js'
import { ImportTooLarge, InvalidImport } from './errors.js'
import { archivingOf, withArchiving, type ImportedArchiving } from './imported-archiving.js'
import { IMPORT_HABITS_MAX, IMPORT_HISTORY_MAX_DAYS, IMPORT_ROWS_MAX } from './rules.js'

export type JudgedOutcome = 'MISSED' | 'NOT_DUE' | 'FROZEN'

/** A habit record of an export document, as an import reads it (its schema: http/export-schemas.ts, ImportDocument). */
export interface ImportedRecord {
  habit: {
    title: string
    description?: string | undefined
    tags?: string[] | undefined
    recurrence: { type: RecurrenceType } & fields.ScheduleFields
    anchor?: string | null | undefined
    timeZone?: string | null | undefined
    restDays?: string[] | null | undefined
    reminderTime?: string | null | undefined
    firstWindowStart?: string | undefined
    archived?: boolean | undefined
    archivedSpans?: { from: string; until: string | null }[] | undefined
  }
  completions: { windowStart: string; attendedAt: string }[]
  missed?: { windowStart: string; outcome: 'MISSED' | 'NOT_DUE' }[] | undefined
  frozen?: { windowStart: string }[] | undefined
}

/** The part of an export document an import reads: each avatar's id and habits. */
export interface ImportDocument {
  avatars: { avatar?: { id?: string | undefined } | undefined; habits: ImportedRecord[] }[]
}

/** A habit to make, with its history, as read from a file. */
export interface HabitPlan {
  template: fields.HabitTemplate
  ownTimeZone: string | null
  restDays: habits.Habit['restDays']
  reminderTime: string | null
  /** Where its first window starts, when the file says; else the window of its earliest history. */
  firstWindowStart: LocalDate | null
  completions: { slot: LocalDate; attendedAt: LocalDateTime }[]
  judged: { windowStart: LocalDate; outcome: JudgedOutcome }[]
  /** Whether it is archived and the days its windows started on while it was; absent: never archived. */
  archiving?: ImportedArchiving
}

/** What an import is checked against: the importing avatar's day now. */
export interface ImportFrame {
  today: LocalDate
  /** The hour its days start at: a file that gives only a day is attended at its start. */
  dayStartHour: number
}

/** The span history may lie in: not before IMPORT_HISTORY_MAX_DAYS ago, not after tomorrow (an attend may be a day ahead). */
export const historySpan = (today: LocalDate) => ({ from: addDays(today, -IMPORT_HISTORY_MAX_DAYS), to: addDays(today, 1) })

/** Refuses an import of more habits or history rows than one import takes. */
export function checkImportSize(habitCount: number, rows: number, at: string): void {
  if (habitCount > IMPORT_HABITS_MAX) throw new ImportTooLarge(`An import makes at most ${IMPORT_HABITS_MAX} habits; this one has ${habitCount}.`, at)
  if (rows > IMPORT_ROWS_MAX) throw new ImportTooLarge(`An import writes at most ${IMPORT_ROWS_MAX} history rows; this one has ${rows}.`, at)
}

/**
 * Which avatar of an export document to import the habits of: `?avatar=` names its index in
 * `avatars` (0 is the first) or its avatar id; absent, the first.
 */
export function chooseAvatar(doc: ImportDocument, asked: string | undefined): number {
  if (asked === undefined) return 0
  const byId = doc.avatars.findIndex((a) => a.avatar?.id === asked)
  if (byId >= 0) return byId
  const index = /^\d{1,6}$/.test(asked) ? Number(asked) : -1
  if (index >= 0 && index < doc.avatars.length) return index
  throw new InvalidImport(`The document has no avatar '${asked}' (an index from 0 to ${doc.avatars.length - 1}, or an avatar id).`,
    [{ path: 'querystring/avatar', message: 'must name an avatar of the document, by index or id' }])
}

/** The habits of one avatar of an export document, as plans; every field checked (400 naming its pointer). */
export function plansFromDocument(doc: ImportDocument, avatarIndex: number, frame: ImportFrame): HabitPlan[] {
  const at = `/avatars/${avatarIndex}/habits`
  const records = doc.avatars[avatarIndex]!.habits
  const rows = records.reduce((n, r) => n + r.completions.length + (r.missed?.length ?? 0) + (r.frozen?.length ?? 0), 0)
  checkImportSize(records.length, rows, at)
  return records.map((r, i) => planOfRecord(r, `${at}/${i}`, frame))
}

function planOfRecord(r: ImportedRecord, at: string, frame: ImportFrame): HabitPlan {
  const h = r.habit
  const template = fields.habitTemplate({ ...h, recurrence: h.recurrence }, `${at}/habit`)
  const anchor = h.anchor ?? null
  if (anchor !== null && !parseLocalDate(anchor)) throw invalid(`${at}/habit/anchor`, 'must be a date YYYY-MM-DD')
  const span = historySpan(frame.today)
  const completions = r.completions.map((c, k) => {
    const where = `${at}/completions/${k}`
    const attendedAt = parseLocalDateTime(c.attendedAt)
    if (!attendedAt) throw invalid(`${where}/attendedAt`, 'must be a local date-time YYYY-MM-DDTHH:mm:ss[.SSS]')
    return { slot: dateWithin(c.windowStart, span, `${where}/windowStart`), attendedAt }
  })
  const judged = [
    ...(r.missed ?? []).map((m, k) => ({ windowStart: dateWithin(m.windowStart, span, `${at}/missed/${k}/windowStart`), outcome: m.outcome })),
    ...(r.frozen ?? []).map((f, k) => ({ windowStart: dateWithin(f.windowStart, span, `${at}/frozen/${k}/windowStart`), outcome: 'FROZEN' as const })),
  ]
  const first = h.firstWindowStart === undefined ? null : dateWithin(h.firstWindowStart, span, `${at}/habit/firstWindowStart`)
  const plan: HabitPlan = {
    template: { ...template, recurrence: withAnchor(template.recurrence, anchor) },
    ownTimeZone: ownTimeZoneAt(h.timeZone, `${at}/habit/timeZone`),
    restDays: fields.restDaysOf(template.recurrence.type, h.restDays, `${at}/habit/restDays`),
    reminderTime: reminderTimeOf(h.reminderTime, `${at}/habit/reminderTime`),
    firstWindowStart: first,
    completions,
    judged,
    archiving: archivingOf(h, `${at}/habit`),
  }
  checkHistory(plan, {
    completion: (k) => `${at}/completions/${k}/windowStart`,
    judged: (k) => (k < (r.missed?.length ?? 0) ? `${at}/missed/${k}/windowStart` : `${at}/frozen/${k - (r.missed?.length ?? 0)}/windowStart`),
  })
  return plan
}

/** An EVERY_N_DAYS recurrence counted from the document's anchor (absent: from its earliest history, later). */
const withAnchor = (r: Recurrence, anchor: LocalDate | null): Recurrence => (r.type === 'EVERY_N_DAYS' ? { ...r, anchor: anchor ?? BEGINNING } : r)

function dateWithin(text: string, span: { from: LocalDate; to: LocalDate }, at: string): LocalDate {
  const date = parseLocalDate(text)
  if (!date) throw invalid(at, 'must be a date YYYY-MM-DD')
  if (date < span.from || date > span.to) throw invalid(at, `must lie from ${span.from} to ${span.to}`)
  return date
}

/** The habit's own zone, refused at its pointer when it is no IANA zone. */
function ownTimeZoneAt(zone: string | null | undefined, at: string): string | null {
  if (zone !== undefined && zone !== null && !isValidTimeZone(zone)) throw invalid(at, 'must be an IANA time zone, like Europe/Paris')
  return fields.ownTimeZoneOf(zone)
}

const invalid = (path: string, message: string) => new InvalidImport(`${path} ${message}.`, [{ path, message }])

/**
 * History that could not have happened, refused before it is stored: a completion that is not at
 * its window's start (for TIMES_PER_WEEK: any day, one a day), two completions of one slot, a
 * window judged twice. `where` names the entry at fault.
 */
export function checkHistory(plan: HabitPlan, where: { completion: (k: number) => string; judged: (k: number) => string }): void {
  const recurrence = resolvedRecurrence(plan)
  const slots = new Set<LocalDate>()
  plan.completions.forEach((c, k) => {
    if (recurrence.type !== 'TIMES_PER_WEEK' && windowContaining(recurrence, c.slot).start !== c.slot) {
      throw invalid(where.completion(k), `must be the start of a window of this habit (${windowContaining(recurrence, c.slot).start})`)
    }
    if (slots.has(c.slot)) throw invalid(where.completion(k), 'must not repeat an earlier completion')
    slots.add(c.slot)
  })
  const judged = new Set<LocalDate>()
  plan.judged.forEach((j, k) => {
    if (windowContaining(recurrence, j.windowStart).start !== j.windowStart) {
      throw invalid(where.judged(k), `must be the start of a window of this habit (${windowContaining(recurrence, j.windowStart).start})`)
    }
    if (judged.has(j.windowStart)) throw invalid(where.judged(k), 'must not repeat a window judged before')
    judged.add(j.windowStart)
  })
}

/** The earliest day of a plan's history, if it has any. */
function earliestOf(plan: HabitPlan): LocalDate | undefined {
  let earliest: LocalDate | undefined
  for (const d of [...plan.completions.map((c) => c.slot), ...plan.judged.map((j) => j.windowStart)]) if (earliest === undefined || d < earliest) earliest = d
  return earliest
}

/** The plan's recurrence with its anchor settled: an EVERY_N_DAYS one without an anchor counts from its earliest history (or today's first window). */
export function resolvedRecurrence(plan: HabitPlan, today?: LocalDate): Recurrence {
  const r = plan.template.recurrence
  if (r.type !== 'EVERY_N_DAYS' || r.anchor !== BEGINNING) return r
  return { ...r, anchor: plan.firstWindowStart ?? earliestOf(plan) ?? today ?? BEGINNING }
}

/**
 * The habit a plan makes, new (`newHabit`, its id and owner given) with its state worked out from
 * its history: its first window reaches back to its earliest history, its last completion and
 * done window are the latest ones, and its streak and best streak are the runs of done windows
 * over windows a streak carries over (frozen, not due). The missed-window job starts with
 * today's window, as for a new habit: an imported past is never judged, so never penalised. Its
 * reminder is set after (`setReminder`), as for a new habit.
 */
export function importedHabit(
  plan: HabitPlan,
  ids: Pick<Habit, 'id' | 'avatarId' | 'ownerId'>,
  history: readonly SettingsEntry[],
  today: LocalDate,
): Habit {
  const recurrence = resolvedRecurrence(plan, today)
  const created = habits.newHabit({
    ...ids, title: plan.template.title, description: plan.template.description, tags: plan.template.tags, recurrence,
    ownTimeZone: plan.ownTimeZone, restDays: plan.restDays, associatedQuestId: null,
  }, today, history)
  const earliest = [plan.firstWindowStart, earliestOf(plan)].filter((d): d is LocalDate => d !== null && d !== undefined).sort()[0]
  const firstWindowStart = earliest !== undefined && earliest < created.firstWindowStart ? windowContaining(recurrence, earliest).start : created.firstWindowStart
  const frozen = plan.judged.filter((j) => j.outcome === 'FROZEN').map((j) => j.windowStart).sort()
  const habit: Habit = withArchiving({ ...created, firstWindowStart, frozenWindows: frozen.slice(-FROZEN_WINDOWS_KEPT) }, plan.archiving, today)
  const lastAttendedAt = plan.completions.reduce<LocalDateTime | null>((latest, c) => (latest === null || c.attendedAt > latest ? c.attendedAt : latest), null)
  const notDue = new Set(plan.judged.filter((j) => j.outcome !== 'MISSED').map((j) => j.windowStart))
  const runs = streaksOf(recurrence, firstWindowStart, habits.doneWindows(recurrence, plan.completions.map((c) => c.slot)),
    (w) => notDue.has(w.start) || !habits.isDue(habit, history, w))
  return { ...habit, lastAttendedAt, ...runs }
}

/**
 * The latest done window, the run of done windows ending there and the longest run, walking every
 * window from the first to the latest done one: a done window adds one, a window a streak carries
 * over (`passable`) keeps the run, any other ends it.
 */
export function streaksOf(
  recurrence: Recurrence, firstWindowStart: LocalDate, done: ReadonlySet<LocalDate>, passable: (w: Window) => boolean,
): Pick<Habit, 'lastCompletedWindowStart' | 'streak' | 'bestStreak'> {
  const latest = [...done].sort().at(-1)
  if (latest === undefined) return { lastCompletedWindowStart: null, streak: 0, bestStreak: 0 }
  let run = 0
  let best = 0
  for (let w = windowContaining(recurrence, firstWindowStart); w.start <= latest; w = nextWindow(recurrence, w)) {
    if (done.has(w.start)) best = Math.max(best, ++run)
    else if (!passable(w)) run = 0
  }
  return { lastCompletedWindowStart: latest, streak: run, bestStreak: best }
}
