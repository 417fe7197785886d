/**
 * CSV as the files of an import hold it (RFC 4180), and a refusal that names the file, the line
 * and the column at fault. Pure.
 */
import { ImportTooLarge, InvalidImport } from './errors.js'
import { IMPORT_ROWS_MAX } from './rules.js'

/** A CSV file of an import and where a refusal names it (`/Habits.csv`, `/checkmarks`). */
export interface CsvSource {
  path: string
  text: string
}

/** One record of a CSV file and the line it starts on (1 is the file's first). */
export interface CsvRecord {
  line: number
  cells: string[]
}

/** A file that cannot be read, named by its path, the line and (when one is at fault) the column. */
export const csvError = (src: CsvSource, line: number, field: string | undefined, message: string) =>
  new InvalidImport(`${src.path.slice(1)}, line ${line}${field ? `, ${field}` : ''}: ${message}.`, [{ path: src.path, message, line, ...(field ? { field } : {}) }])

/** The text without the byte order mark a spreadsheet may write first. */
export const withoutBom = (text: string) => (text.charCodeAt(0) === 0xfeff ? text.slice(1) : text)

/**
 * RFC 4180 records: fields separated by commas, quoted with `"` (a doubled `""` inside is a
 * quote; a quoted field may span lines), records ended by LF or CRLF. Blank lines are skipped.
 * `firstLine` is the number of the text's first line in its file (a text cut after its header).
 */
export function parseCsv(src: CsvSource, options: { maxRecords?: number; firstLine?: number } = {}): CsvRecord[] {
  const maxRecords = options.maxRecords ?? IMPORT_ROWS_MAX + 1
  const text = withoutBom(src.text)
  const records: CsvRecord[] = []
  let cells: string[] = []
  let cell = ''
  let quoted = false
  let line = options.firstLine ?? 1
  let startLine = line
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
  if (quoted) throw csvError(src, line, undefined, 'has a quoted field that is never closed')
  endRecord()
  return records
}

/** The file's first line as written (no CSV reading: a header may hold what CSV would quote) and the text after it. */
export function splitFirstLine(text: string): { first: string; rest: string } {
  const body = withoutBom(text)
  const end = body.indexOf('\n')
  const first = end < 0 ? body : body.slice(0, end)
  return { first: first.endsWith('\r') ? first.slice(0, -1) : first, rest: end < 0 ? '' : body.slice(end + 1) }
}
