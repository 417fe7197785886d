/**
 * Loop Habit Tracker's Habits.csv: one habit a row, and the schedule each takes here. Loop writes
 * the columns Position (`001`), Name, Type (YES_NO or NUMERICAL), Question, Description,
 * FrequencyNumerator, FrequencyDenominator, Color, Unit, Target Type (AT_LEAST or AT_MOST), Target
 * Value (a decimal, `2.0`; Unit and the targets are empty for a yes/no habit) and Archived?
 * (`true`/`false`); older versions Position, Name, Question, Description, NumRepetitions,
 * Interval, Color (yes/no habits only). Pure.
 */
import { type Recurrence } from '../../../../platform/time/index.js'
import { DESCRIPTION_MAX, EVERY_N_DAYS_MAX, EVERY_N_DAYS_MIN, TIMES_PER_WEEK_MAX, TITLE_MAX } from '../../domain/rules.js'
import { BEGINNING } from '../../domain/settings.js'
import { csvError, parseCsv, type CsvRecord, type CsvSource } from './csv.js'

/** A numerical habit's target: the sum of its values over its window (a day, a week, a month), at least or at most `value` units. */
export interface LoopTarget {
  type: 'AT_LEAST' | 'AT_MOST'
  value: number
  unit: string
}

/** A habit as Habits.csv describes it, with the line it is on. */
export interface LoopHabit {
  line: number
  /** Its place in Loop's list (1 for `001`): the number its folder of the export starts with. */
  position: number
  /** The name exactly as Loop wrote it: the top-level Checkmarks.csv repeats it, unquoted, in its header. */
  rawName: string
  name: string
  description: string
  /** A numerical habit's target; null for a yes/no habit. */
  target: LoopTarget | null
  numerator: number
  denominator: number
  archived: boolean
}

/** Days of Loop's frequencies that mean a week, and a month (its month-long intervals). */
const LOOP_WEEK_DAYS = 7
const LOOP_MONTH_DAYS = [30, 31]

/** Reads a header into column indexes by name; `required` must be there. */
export function columnsOf(src: CsvSource, header: CsvRecord | undefined, required: string[]): Map<string, number> {
  if (!header) throw csvError(src, 1, undefined, 'is empty: it needs a header line')
  const columns = new Map(header.cells.map((c, i) => [c.trim(), i]))
  for (const name of required) if (!columns.has(name)) throw csvError(src, header.line, name, `needs a '${name}' column`)
  return columns
}

export function readLoopHabits(src: CsvSource): LoopHabit[] {
  const [header, ...rows] = parseCsv(src)
  const col = columnsOf(src, header, ['Name'])
  const rawCell = (r: CsvRecord, name: string) => (col.has(name) ? (r.cells[col.get(name)!] ?? '') : '')
  const cellOf = (r: CsvRecord, name: string) => rawCell(r, name).trim()
  const numberOf = (r: CsvRecord, names: string[]): number => {
    const name = names.find((n) => col.has(n))
    if (name === undefined) return 1
    const n = Number(cellOf(r, name))
    if (!Number.isInteger(n) || n < 1 || n > EVERY_N_DAYS_MAX) throw csvError(src, r.line, name, `must be a whole number from 1 to ${EVERY_N_DAYS_MAX}`)
    return n
  }
  const positions = new Set<number>()
  return rows.map((r, i) => {
    const rawName = rawCell(r, 'Name')
    const name = rawName.trim()
    if (name.length === 0 || name.length > TITLE_MAX) throw csvError(src, r.line, 'Name', `must be 1–${TITLE_MAX} characters`)
    const description = [cellOf(r, 'Question'), cellOf(r, 'Description')].filter((t) => t !== '').join('\n')
    if (description.length > DESCRIPTION_MAX) throw csvError(src, r.line, 'Description', `must be at most ${DESCRIPTION_MAX} characters`)
    const positionText = cellOf(r, 'Position')
    if (positionText !== '' && !/^\d{1,6}$/.test(positionText)) throw csvError(src, r.line, 'Position', 'must be a whole number')
    const position = positionText === '' ? i + 1 : Number(positionText)
    if (positions.has(position)) throw csvError(src, r.line, 'Position', 'must not repeat an earlier habit\'s')
    positions.add(position)
    return {
      line: r.line, position, rawName, name, description, target: targetOf(src, r, (column) => cellOf(r, column)), archived: archivedOf(src, r, cellOf(r, 'Archived?')),
      numerator: numberOf(r, ['FrequencyNumerator', 'NumRepetitions']), denominator: numberOf(r, ['FrequencyDenominator', 'Interval']),
    }
  })
}

/** A numerical habit's target (Type NUMERICAL); null for a yes/no one (Type YES_NO, or none in older exports). */
function targetOf(src: CsvSource, r: CsvRecord, cell: (column: string) => string): LoopTarget | null {
  const type = cell('Type')
  if (type === '' || type === 'YES_NO') return null
  if (type !== 'NUMERICAL') throw csvError(src, r.line, 'Type', 'must be YES_NO or NUMERICAL')
  const targetType = cell('Target Type')
  if (targetType !== 'AT_LEAST' && targetType !== 'AT_MOST') throw csvError(src, r.line, 'Target Type', 'must be AT_LEAST or AT_MOST for a NUMERICAL habit')
  // Loop writes a decimal as Java does: `2.0`, `0.5`, `1.0E7`.
  const text = cell('Target Value')
  const value = Number(text)
  if (text === '' || !Number.isFinite(value) || value < 0) throw csvError(src, r.line, 'Target Value', 'must be a number, 0 or more, for a NUMERICAL habit')
  return { type: targetType, value, unit: cell('Unit') }
}

function archivedOf(src: CsvSource, r: CsvRecord, text: string): boolean {
  if (text === '' || text === 'false') return false
  if (text === 'true') return true
  throw csvError(src, r.line, 'Archived?', 'must be true or false')
}

/**
 * Loop's frequency (numerator times per denominator days) as a recurrence: once a day (or more)
 * DAILY; n times a week TIMES_PER_WEEK n; once every n days EVERY_N_DAYS n (counted from its
 * earliest history); any other rate the nearest TIMES_PER_WEEK (at least once a week).
 */
export function recurrenceOfFrequency(numerator: number, denominator: number): Recurrence {
  if (numerator >= denominator) return { type: 'DAILY' }
  if (denominator === LOOP_WEEK_DAYS) return { type: 'TIMES_PER_WEEK', timesPerWeek: numerator }
  if (numerator === 1 && denominator >= EVERY_N_DAYS_MIN && denominator <= EVERY_N_DAYS_MAX) return { type: 'EVERY_N_DAYS', everyNDays: denominator, anchor: BEGINNING }
  return { type: 'TIMES_PER_WEEK', timesPerWeek: Math.min(TIMES_PER_WEEK_MAX, Math.max(1, Math.round((LOOP_WEEK_DAYS * numerator) / denominator))) }
}

/**
 * The recurrence a Loop habit takes. A yes/no habit's is its frequency's. A numerical habit's
 * target is a sum over its denominator's days (Loop asks for it per day, week or month): its
 * window is that span, a day (DAILY), a week (TIMES_PER_WEEK 1, done once the week's sum meets
 * the target), a calendar month (MONTHLY on the 1st) or, for another span, every n days.
 */
export function loopRecurrence(h: Pick<LoopHabit, 'target' | 'numerator' | 'denominator'>): Recurrence {
  if (h.target === null) return recurrenceOfFrequency(h.numerator, h.denominator)
  if (h.denominator === LOOP_WEEK_DAYS) return { type: 'TIMES_PER_WEEK', timesPerWeek: 1 }
  if (LOOP_MONTH_DAYS.includes(h.denominator)) return { type: 'MONTHLY', dayOfMonth: 1 }
  return recurrenceOfFrequency(1, h.denominator)
}
