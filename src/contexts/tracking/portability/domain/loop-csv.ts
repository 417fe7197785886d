/**
 * Reading a Loop Habit Tracker CSV export (DESIGN §9.4, `?format=loop`) into habit plans. Loop
 * writes `Habits.csv` (Position, Name, Type, Question, Description, FrequencyNumerator,
 * FrequencyDenominator, Color, Unit, Target Type, Target Value, Archived?; older versions: Position,
 * Name, Description, NumRepetitions, Interval, Color), a folder per habit (`001 Name/`) holding
 * `Checkmarks.csv` (Date, Value[, Notes]), and a top-level `Checkmarks.csv` with a Date column and
 * one column per habit, in the order of Habits.csv. Values are YES_MANUAL, YES_AUTO, NO, SKIP,
 * UNKNOWN (older versions: 2, 1, 0, -3, -1); a numerical habit's value is its number.
 * Pure: the zip, if any, was opened before.
 */
import { anchoredAt, recurrenceFields, windowContaining, type Recurrence } from '../../../../platform/time/index.js'
import * as fields from '../../domain/habit-fields.js'
import * as habits from '../../domain/habit.js'
import { DESCRIPTION_MAX, EVERY_N_DAYS_MAX, EVERY_N_DAYS_MIN, TIMES_PER_WEEK_MAX, TITLE_MAX } from '../../domain/rules.js'
import { BEGINNING } from '../../domain/settings.js'
import { ImportTooLarge, InvalidImport } from './errors.js'
import { checkHistory, checkImportSize, historySpan, type HabitPlan, type ImportFrame } from './import.js'
import { IMPORT_ROWS_MAX } from './rules.js'

/** A CSV file of the export and where a refusal names it (`/Habits.csv`, `/checkmarks`). */
export interface CsvSource {
  path: string
  text: string
}

export interface LoopFiles {
  habits: CsvSource
  /** The top-level Checkmarks.csv (one column per habit), when there is no file per habit. */
  checkmarks?: CsvSource | undefined
  /** Each habit's own Checkmarks.csv, by its position in Habits.csv as a number (`1` for `001`). */
  perHabit?: Map<string, CsvSource>
}

/** One record of a CSV file and the line it starts on (1 is the header). */
export interface CsvRecord {
  line: number
  cells: string[]
}

/**
 * RFC 4180 records: fields separated by commas, quoted with `"` (a doubled `""` inside is a
 * quote; a quoted field may span lines), records ended by LF or CRLF. Blank lines are skipped.
 */
export function parseCsv(src: CsvSource, maxRecords = IMPORT_ROWS_MAX + 1): CsvRecord[] {
  const text = src.text.charCodeAt(0) === 0xfeff ? src.text.slice(1) : src.text
  const records: CsvRecord[] = []
  let cells: string[] = []
  let cell = ''
  let quoted = false
  let line = 1
  let startLine = 1
  let touched = false
  const endRecord = () => {
    if (touched) records.push({ line: startLine, cells: [...cells, cell] })
    if (records.length > maxRecords) throw new ImportTooLarge(`${src.path} has more than ${maxRecords - 1} lines.`, src.path)
    cells = []
    cell = ''
    touched = false
  }
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!
    if (quoted) {
      if (ch !== '"') {
        if (ch === '\n') line++
        cell += ch
      } else if (text[i + 1] === '"') {
        cell += '"'
        i++
      } else {
        quoted = false
      }
      continue
    }
    if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && text[i + 1] === '\n') i++
      endRecord()
      line++
      startLine = line
      continue
    }
    // Anything else (a quote, a comma, a character) makes this line a record, not a blank one.
    touched = true
    if (ch === '"' && cell === '') {
      quoted = true
    } else if (ch === ',') {
      cells.push(cell)
      cell = ''
    } else {
      cell += ch
    }
  }
  if (quoted) throw loopError(src, line, undefined, 'has a quoted field that is never closed')
  endRecord()
  return records
}

const loopError = (src: CsvSource, line: number, field: string | undefined, message: string) =>
  new InvalidImport(`${src.path.slice(1)}, line ${line}${field ? `, ${field}` : ''}: ${message}.`, [{ path: src.path, message, line, ...(field ? { field } : {}) }])

/** A habit as Habits.csv describes it, with the line it is on. */
interface LoopHabit {
  line: number
  position: string
  name: string
  description: string
  numerical: boolean
  numerator: number
  denominator: number
}

/** Reads a header into column indexes by name; `required` must be there. */
function columnsOf(src: CsvSource, header: CsvRecord | undefined, required: string[]): Map<string, number> {
  if (!header) throw loopError(src, 1, undefined, 'is empty: it needs a header line')
  const columns = new Map(header.cells.map((c, i) => [c.trim(), i]))
  for (const name of required) if (!columns.has(name)) throw loopError(src, header.line, name, `needs a '${name}' column`)
  return columns
}

function readHabits(src: CsvSource): LoopHabit[] {
  const [header, ...rows] = parseCsv(src)
  const col = columnsOf(src, header, ['Name'])
  const cellOf = (r: CsvRecord, name: string) => (col.has(name) ? (r.cells[col.get(name)!] ?? '').trim() : '')
  const numberOf = (r: CsvRecord, names: string[]): number => {
    const name = names.find((n) => col.has(n))
    if (name === undefined) return 1
    const n = Number(cellOf(r, name))
    if (!Number.isInteger(n) || n < 1 || n > EVERY_N_DAYS_MAX) throw loopError(src, r.line, name, `must be a whole number from 1 to ${EVERY_N_DAYS_MAX}`)
    return n
  }
  return rows.map((r, i) => {
    const name = cellOf(r, 'Name')
    if (name.length === 0 || name.length > TITLE_MAX) throw loopError(src, r.line, 'Name', `must be 1–${TITLE_MAX} characters`)
    const description = [cellOf(r, 'Question'), cellOf(r, 'Description')].filter((t) => t !== '').join('\n')
    if (description.length > DESCRIPTION_MAX) throw loopError(src, r.line, 'Description', `must be at most ${DESCRIPTION_MAX} characters`)
    const position = cellOf(r, 'Position') || String(i + 1).padStart(3, '0')
    return {
      line: r.line, position, name, description, numerical: cellOf(r, 'Type') === 'NUMERICAL',
      numerator: numberOf(r, ['FrequencyNumerator', 'NumRepetitions']), denominator: numberOf(r, ['FrequencyDenominator', 'Interval']),
    }
  })
}

/**
 * Loop's frequency (numerator times per denominator days) as a recurrence: once a day (or more)
 * DAILY; n times a week TIMES_PER_WEEK n; once every n days EVERY_N_DAYS n (counted from its
 * earliest history); any other rate the nearest TIMES_PER_WEEK (at least once a week).
 */
export function recurrenceOfFrequency(numerator: number, denominator: number): Recurrence {
  if (numerator >= denominator) return { type: 'DAILY' }
  if (denominator === 7) return { type: 'TIMES_PER_WEEK', timesPerWeek: numerator }
  if (numerator === 1 && denominator >= EVERY_N_DAYS_MIN && denominator <= EVERY_N_DAYS_MAX) return { type: 'EVERY_N_DAYS', everyNDays: denominator, anchor: BEGINNING }
  return { type: 'TIMES_PER_WEEK', timesPerWeek: Math.min(TIMES_PER_WEEK_MAX, Math.max(1, Math.round((7 * numerator) / denominator))) }
}

/** What a day's value means: done (a completion), skipped (not due, for a DAILY habit) or nothing recorded. */
type DayMark = 'DONE' | 'SKIP' | 'NONE'

const YES_NO_VALUES: Record<string, DayMark> = {
  YES_MANUAL: 'DONE', 2: 'DONE', YES_AUTO: 'NONE', 1: 'NONE', NO: 'NONE', 0: 'NONE', UNKNOWN: 'NONE', '-1': 'NONE', SKIP: 'SKIP', '-3': 'SKIP', '': 'NONE',
}

function markOf(h: LoopHabit, value: string): DayMark | undefined {
  const v = value.trim()
  if (!h.numerical) return YES_NO_VALUES[v.toUpperCase()]
  if (v === '' || v.toUpperCase() === 'UNKNOWN') return 'NONE'
  if (v.toUpperCase() === 'SKIP') return 'SKIP'
  const n = Number(v)
  return Number.isFinite(n) ? (n > 0 ? 'DONE' : 'NONE') : undefined
}

/** A date of the checkmarks as Loop writes it (YYYY-MM-DD), checked like any imported history. */
function dayOf(src: CsvSource, r: CsvRecord, text: string, span: { from: string; to: string }): string {
  const date = text.trim()
  if (!/^\d{4}-\d{2}-\d{2}$/.test(date) || Number.isNaN(Date.parse(`${date}T00:00:00Z`)) || new Date(`${date}T00:00:00Z`).toISOString().slice(0, 10) !== date) {
    throw loopError(src, r.line, 'Date', 'must be a date YYYY-MM-DD')
  }
  if (date < span.from || date > span.to) throw loopError(src, r.line, 'Date', `must lie from ${span.from} to ${span.to}`)
  return date
}

/** Each habit's marked days, from its own Checkmarks.csv or its column of the top-level one. */
function readMarks(files: LoopFiles, list: LoopHabit[], span: { from: string; to: string }): Map<LoopHabit, Map<string, DayMark>> {
  const marks = new Map(list.map((h) => [h, new Map<string, DayMark>()]))
  const record = (h: LoopHabit, src: CsvSource, r: CsvRecord, dateText: string, value: string, field: string) => {
    const mark = markOf(h, value)
    if (mark === undefined) throw loopError(src, r.line, field, h.numerical ? 'must be a number' : 'must be YES_MANUAL, YES_AUTO, NO, SKIP or UNKNOWN')
    const day = dayOf(src, r, dateText, span)
    if (mark !== 'NONE') marks.get(h)!.set(day, mark)
  }
  const perHabit = files.perHabit ?? new Map<string, CsvSource>()
  if (perHabit.size > 0) {
    for (const h of list) {
      const src = perHabit.get(String(Number(h.position)))
      if (!src) continue
      const [header, ...rows] = parseCsv(src)
      const col = columnsOf(src, header, ['Date', 'Value'])
      for (const r of rows) record(h, src, r, r.cells[col.get('Date')!] ?? '', r.cells[col.get('Value')!] ?? '', 'Value')
    }
    return marks
  }
  if (!files.checkmarks) throw new InvalidImport('A Loop import needs Checkmarks.csv.', [{ path: '/Checkmarks.csv', message: 'is required' }])
  const src = files.checkmarks
  const [header, ...rows] = parseCsv(src)
  columnsOf(src, header, ['Date'])
  // One column per exported habit, named as in Habits.csv (a trailing comma leaves an empty last one).
  const unmatched = [...list]
  const columns = header!.cells.slice(1).flatMap((cell, i) => {
    const name = cell.trim()
    if (name === '') return []
    const at = unmatched.findIndex((h) => h.name === name)
    if (at < 0) throw loopError(src, header!.line, name, 'must name a habit of Habits.csv')
    return [{ habit: unmatched.splice(at, 1)[0]!, index: i + 1 }]
  })
  for (const r of rows) {
    for (const c of columns) record(c.habit, src, r, r.cells[0] ?? '', r.cells[c.index] ?? '', c.habit.name)
  }
  return marks
}

/** The habits of a Loop export as plans: each habit with its completions, and its skipped days as not-due windows (DAILY). */
export function plansFromLoop(files: LoopFiles, frame: ImportFrame): HabitPlan[] {
  const list = readHabits(files.habits)
  checkImportSize(list.length, 0, files.habits.path)
  const marks = readMarks(files, list, historySpan(frame.today))
  checkImportSize(list.length, [...marks.values()].reduce((n, m) => n + m.size, 0), files.habits.path)
  return list.map((h) => {
    const days = [...marks.get(h)!].sort(([a], [b]) => (a < b ? -1 : 1))
    const doneDays = days.filter(([, m]) => m === 'DONE').map(([day]) => day)
    const frequency = recurrenceOfFrequency(h.numerator, h.denominator)
    const template = fields.habitTemplate({ title: h.name, description: h.description, tags: [], recurrence: recurrenceFields(frequency) }, '')
    // Every N days counts its windows from the first done day (or today, with none).
    const recurrence = anchoredAt(frequency, doneDays[0] ?? frame.today)
    const plan: HabitPlan = {
      template: { ...template, recurrence },
      ownTimeZone: null,
      restDays: [],
      reminderTime: null,
      firstWindowStart: null,
      completions: completionsOf(recurrence, doneDays, frame),
      // Loop's skip is a day the habit was not due: for a DAILY habit, its window.
      judged: recurrence.type === 'DAILY' ? days.filter(([, m]) => m === 'SKIP').map(([day]) => ({ windowStart: day, outcome: 'NOT_DUE' as const })) : [],
    }
    checkHistory(plan, { completion: () => files.habits.path, judged: () => files.habits.path })
    return plan
  })
}

/**
 * The completions a Loop habit's done days make: for TIMES_PER_WEEK each day, for the others the
 * first done day of each window (stored at its window's start), attended at the start of that day.
 */
function completionsOf(recurrence: Recurrence, doneDays: string[], frame: ImportFrame): HabitPlan['completions'] {
  const bySlot = new Map<string, string>()
  for (const day of doneDays) {
    const slot = habits.slotOf(recurrence, day, windowContaining(recurrence, day))
    if (!bySlot.has(slot)) bySlot.set(slot, day)
  }
  return [...bySlot].map(([slot, day]) => ({ slot, attendedAt: `${day}T${String(frame.dayStartHour).padStart(2, '0')}:00:00` }))
}
