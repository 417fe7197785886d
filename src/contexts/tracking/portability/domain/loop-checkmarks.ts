/**
 * The days of a Loop Habit Tracker export: each exported habit's values by date, from its own
 * `Checkmarks.csv` (in its folder `001 Name/`: Date, Value, Notes; the days Loop knows, newest
 * first) or from its column of the top-level `Checkmarks.csv` (Date, then one column per exported
 * habit, every day from the oldest entry to the day of the export, newest first). Loop writes that
 * file's header unquoted, each name followed by a comma (`Date,Read, write,Run,`), so its columns
 * are found by the names of Habits.csv, not by reading the header as CSV.
 *
 * A value is Loop's number for the day, written as a word when it is one of Loop's marks:
 * UNKNOWN -1 (nothing known), NO 0, YES_AUTO 1 (not done, not expected by the frequency),
 * YES_MANUAL 2, SKIP 3. A numerical habit's value is thousandths of its unit (2.5 km is 2500), the
 * same words standing for the same numbers. Pure.
 */
import { parseLocalDate, type LocalDate } from '../../../../platform/time/index.js'
import { csvError, parseCsv, splitFirstLine, type CsvRecord, type CsvSource } from './csv.js'
import { InvalidImport } from './errors.js'
import { columnsOf, type LoopHabit } from './loop-habits.js'

/** Loop's values of a day (Entry in Loop). */
export const LOOP_UNKNOWN = -1
export const LOOP_NO = 0
export const LOOP_YES_AUTO = 1
export const LOOP_YES_MANUAL = 2
export const LOOP_SKIP = 3

/** A numerical habit's values are thousandths of its unit. */
export const LOOP_VALUE_SCALE = 1000

const LOOP_WORDS: Record<string, number> = { UNKNOWN: LOOP_UNKNOWN, NO: LOOP_NO, YES_AUTO: LOOP_YES_AUTO, YES_MANUAL: LOOP_YES_MANUAL, SKIP: LOOP_SKIP }

export interface LoopFiles {
  habits: CsvSource
  /** The top-level Checkmarks.csv (one column per exported habit), read when there is no file per habit. */
  checkmarks?: CsvSource | undefined
  /** Each exported habit's own Checkmarks.csv, by its position in Habits.csv (1 for the folder `001 Name`). */
  perHabit?: Map<number, CsvSource>
}

/** An exported habit and its known days: Loop's value of each (UNKNOWN days left out). */
export interface LoopHistory {
  habit: LoopHabit
  days: Map<LocalDate, number>
}

/** Loop's number a cell holds, or undefined when it is none Loop writes for this habit. */
function valueOf(h: LoopHabit, text: string): number | undefined {
  const v = text.trim()
  if (v === '') return LOOP_UNKNOWN
  const word = LOOP_WORDS[v.toUpperCase()]
  if (word !== undefined) return word
  if (!/^-?\d{1,12}$/.test(v)) return undefined
  const n = Number(v)
  if (n < LOOP_UNKNOWN) return undefined
  return h.target !== null || n <= LOOP_SKIP ? n : undefined
}

/** A date of the checkmarks as Loop writes it (YYYY-MM-DD), checked like any imported history. */
function dayOf(src: CsvSource, r: CsvRecord, text: string, span: { from: string; to: string }): LocalDate {
  const date = parseLocalDate(text.trim())
  if (!date) throw csvError(src, r.line, 'Date', 'must be a date YYYY-MM-DD')
  if (date < span.from || date > span.to) throw csvError(src, r.line, 'Date', `must lie from ${span.from} to ${span.to}`)
  return date
}

/**
 * The habits the export holds days of (those with a folder, or else a column of the top-level
 * file: a Loop export of some habits lists them all in Habits.csv), in the order of Habits.csv,
 * each with its days. Each value and date is checked (400 naming the file, line and column).
 */
export function readLoopHistories(files: LoopFiles, list: LoopHabit[], span: { from: string; to: string }): LoopHistory[] {
  const histories: LoopHistory[] = []
  const record = (history: LoopHistory, src: CsvSource, r: CsvRecord, dateText: string, text: string, field: string) => {
    const value = valueOf(history.habit, text)
    if (value === undefined) {
      throw csvError(src, r.line, field, history.habit.target !== null
        ? 'must be a whole number of thousandths (Loop writes 2.5 as 2500), or UNKNOWN, SKIP'
        : 'must be YES_MANUAL, YES_AUTO, NO, SKIP or UNKNOWN')
    }
    const day = dayOf(src, r, dateText, span)
    if (value !== LOOP_UNKNOWN) history.days.set(day, value)
  }
  const perHabit = files.perHabit ?? new Map<number, CsvSource>()
  if (perHabit.size > 0) {
    const byPosition = new Map(list.map((h) => [h.position, h]))
    for (const [position, src] of perHabit) {
      if (!byPosition.has(position)) throw csvError(src, 1, undefined, `is the file of habit ${position}, which Habits.csv does not list`)
    }
    for (const h of list) {
      const src = perHabit.get(h.position)
      if (!src) continue
      const history: LoopHistory = { habit: h, days: new Map() }
      const [header, ...rows] = parseCsv(src)
      const col = columnsOf(src, header, ['Date', 'Value'])
      for (const r of rows) record(history, src, r, r.cells[col.get('Date')!] ?? '', r.cells[col.get('Value')!] ?? '', 'Value')
      histories.push(history)
    }
    return histories
  }
  if (!files.checkmarks) throw new InvalidImport('A Loop import needs Checkmarks.csv.', [{ path: '/Checkmarks.csv', message: 'is required' }])
  const src = files.checkmarks
  const { first, rest } = splitFirstLine(src.text)
  const columns = columnsOfHeader(src, first, list)
  const byColumn = columns.map((habit) => ({ habit, days: new Map<LocalDate, number>() }))
  for (const r of parseCsv({ path: src.path, text: rest }, { firstLine: 2 })) {
    byColumn.forEach((history, i) => record(history, src, r, r.cells[0] ?? '', r.cells[i + 1] ?? '', history.habit.name))
  }
  return byColumn.sort((a, b) => list.indexOf(a.habit) - list.indexOf(b.habit))
}

/**
 * The habits the top-level file's columns hold, in its order. As Loop writes it, the header is
 * `Date,` and each exported habit's name followed by a comma, the habits in the order of
 * Habits.csv: the one way to cut it into those names is found, commas in names and all. A header
 * written otherwise (a spreadsheet's, quoted as CSV) is read as CSV, each column naming a habit.
 */
function columnsOfHeader(src: CsvSource, header: string, list: LoopHabit[]): LoopHabit[] {
  const dateColumn = /^\s*"?Date"?\s*(,|$)/.exec(header)
  if (!dateColumn) throw csvError(src, 1, 'Date', "needs a 'Date' column first")
  const asLoopWrites = namesInOrder(header.slice(dateColumn[0].length), list)
  if (asLoopWrites) return asLoopWrites
  const [cells] = parseCsv({ path: src.path, text: header })
  const unmatched = [...list]
  return (cells?.cells ?? []).slice(1).flatMap((cell) => {
    const name = cell.trim()
    if (name === '') return []
    const at = unmatched.findIndex((h) => h.name === name)
    if (at < 0) throw csvError(src, 1, name, 'must name a habit of Habits.csv')
    return [unmatched.splice(at, 1)[0]!]
  })
}

/**
 * The habits, taken in order from `list` (some may be left out), whose names, each followed by a
 * comma (the last one's comma optional), make `text`; undefined when none do. Each (place in the
 * text, place in the list) is tried once, so the search is bounded by their product.
 */
function namesInOrder(text: string, list: LoopHabit[]): LoopHabit[] | undefined {
  const failed = new Set<string>()
  const from = (offset: number, next: number): LoopHabit[] | undefined => {
    if (offset === text.length) return []
    const key = `${offset}:${next}`
    if (failed.has(key)) return undefined
    for (let i = next; i < list.length; i++) {
      const name = list[i]!.rawName
      if (!text.startsWith(name, offset)) continue
      const end = offset + name.length
      if (end === text.length) return [list[i]!]
      if (text[end] !== ',') continue
      const tail = from(end + 1, i + 1)
      if (tail) return [list[i]!, ...tail]
    }
    failed.add(key)
    return undefined
  }
  return text.trim() === '' ? [] : from(0, 0)
}
