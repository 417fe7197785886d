/**
 * A Loop Habit Tracker CSV export built as Loop's exporter writes it (HabitsCSVExporter and
 * HabitList.writeCSV in uhabits-core), for the import's tests:
 * - Habits.csv: every habit of the list, by opencsv's CSVWriter (a field is quoted only when it
 *   holds a quote, a comma or a line break; a quote inside is doubled; lines end with LF);
 *   Position `%03d`, Type, the numerical columns empty for a yes/no habit, Target Value as Java
 *   prints a double (`2.0`), Archived? `true`/`false`;
 * - a folder per exported habit, `NNN <name kept to [ a-zA-Z0-9._-], at most 100>` trimmed,
 *   holding Scores.csv and Checkmarks.csv (Date,Value,Notes: the known days, newest first, by
 *   CSVWriter);
 * - the top-level Scores.csv and Checkmarks.csv, written by hand: `Date,` then each exported
 *   habit's name and a comma, unquoted, then a line per day from the oldest entry to today, newest
 *   first, each value followed by a comma;
 * - a zip of them in that order, as java.util.zip.ZipOutputStream writes it: deflated entries with
 *   the UTF-8 flag and a data descriptor after each (sizes and CRC 0 in the local headers).
 * A value is Loop's number (YES_MANUAL 2, NO 0, …; a numerical habit's in thousandths), written as
 * its word when it is one of Loop's marks, as Loop does.
 */
import { crc32, deflateRawSync } from 'node:zlib'

export const YES_MANUAL = 2
export const YES_AUTO = 1
export const NO = 0
export const SKIP = 3
const UNKNOWN = -1

export interface LoopEntry {
  date: string
  value: number
  notes?: string
}

export interface LoopHabitFixture {
  name: string
  question?: string
  description?: string
  /** Times per `denominator` days (1 / 1 by default). */
  numerator?: number
  denominator?: number
  color?: string
  numerical?: { unit: string; targetType: 'AT_LEAST' | 'AT_MOST'; targetValue: number }
  archived?: boolean
  /** Its days as Loop computes them (with YES_AUTO where its frequency fills in), in any order. */
  entries: LoopEntry[]
}

export interface LoopExport {
  /** Each file's path in the zip and its text, in the zip's order. */
  files: [string, string][]
  zip: Uint8Array
  text(path: string): string
}

const WORDS: Record<number, string> = { [YES_MANUAL]: 'YES_MANUAL', [YES_AUTO]: 'YES_AUTO', [NO]: 'NO', [SKIP]: 'SKIP', [UNKNOWN]: 'UNKNOWN' }
const formattedValue = (value: number) => WORDS[value] ?? String(value)

/** A record as opencsv's CSVWriter writes it with applyQuotesToAll false. */
const csvLine = (cells: string[]) => `${cells.map((c) => (/[",\n\r]/.test(c) ? `"${c.replace(/"/g, '""')}"` : c)).join(',')}\n`

/** A double as Java's Double.toString prints it (for the values a test uses: `2.0`, `0.5`). */
const javaDouble = (n: number) => (Number.isInteger(n) ? n.toFixed(1) : String(n))

const folderOf = (index: number, name: string) => `${`${String(index + 1).padStart(3, '0')} ${name.replace(/[^ a-zA-Z0-9._-]+/g, '').slice(0, 100)}`.trim()}/`

const addDays = (date: string, days: number) => new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10)

/** The export of `habits` (the list, in its order) made on `today`, of those `exported` (all by default). */
export function loopExport(habits: LoopHabitFixture[], today: string, exported: LoopHabitFixture[] = habits): LoopExport {
  const files: [string, string][] = [['Habits.csv', habitsCsv(habits)]]
  for (const h of exported) {
    const folder = folderOf(habits.indexOf(h), h.name)
    const known = [...h.entries].sort((a, b) => (a.date < b.date ? 1 : -1))
    files.push([`${folder}Scores.csv`, csvLine(['Date', 'Score']) + known.map((e) => csvLine([e.date, '0.0000'])).join('')])
    files.push([`${folder}Checkmarks.csv`, csvLine(['Date', 'Value', 'Notes']) + known.map((e) => csvLine([e.date, formattedValue(e.value), e.notes ?? ''])).join('')])
  }
  const dates = exported.flatMap((h) => h.entries.map((e) => e.date)).sort()
  const days: string[] = []
  for (let d = today; dates.length > 0 && d >= dates[0]!; d = addDays(d, -1)) days.push(d)
  const header = `Date,${exported.map((h) => `${h.name},`).join('')}\n`
  const valueOn = (h: LoopHabitFixture, date: string) => h.entries.find((e) => e.date === date)?.value ?? UNKNOWN
  files.push(['Scores.csv', header + days.map((d) => `${d},${exported.map(() => '0.0000,').join('')}\n`).join('')])
  files.push(['Checkmarks.csv', header + days.map((d) => `${d},${exported.map((h) => `${formattedValue(valueOn(h, d))},`).join('')}\n`).join('')])
  return { files, zip: javaZip(files), text: (path) => files.find(([p]) => p === path)?.[1] ?? '' }
}

function habitsCsv(habits: LoopHabitFixture[]): string {
  const header = ['Position', 'Name', 'Type', 'Question', 'Description', 'FrequencyNumerator', 'FrequencyDenominator', 'Color', 'Unit', 'Target Type', 'Target Value', 'Archived?']
  return csvLine(header) + habits.map((h, i) => csvLine([
    String(i + 1).padStart(3, '0'), h.name, h.numerical ? 'NUMERICAL' : 'YES_NO', h.question ?? '', h.description ?? '',
    String(h.numerator ?? 1), String(h.denominator ?? 1), h.color ?? '#FF8F00',
    h.numerical?.unit ?? '', h.numerical?.targetType ?? '', h.numerical ? javaDouble(h.numerical.targetValue) : '', String(h.archived ?? false),
  ])).join('')
}

/** Local header, data descriptor and central directory entries of ZipOutputStream: deflated, UTF-8 names, sizes after the data. */
function javaZip(files: [string, string][]): Uint8Array {
  const FLAGS = 0x0808
  const DEFLATED = 8
  const VERSION = 20
  // 1 March 2026, 12:00, in DOS time and date.
  const TIME = 12 << 11
  const DATE = ((2026 - 1980) << 9) | (3 << 5) | 1
  const parts: Buffer[] = []
  const central: Buffer[] = []
  let offset = 0
  for (const [path, text] of files) {
    const name = Buffer.from(path, 'utf8')
    const data = Buffer.from(text, 'utf8')
    const deflated = deflateRawSync(data)
    const crc = crc32(data)
    const local = Buffer.alloc(30)
    local.writeUInt32LE(0x04034b50, 0)
    local.writeUInt16LE(VERSION, 4)
    local.writeUInt16LE(FLAGS, 6)
    local.writeUInt16LE(DEFLATED, 8)
    local.writeUInt16LE(TIME, 10)
    local.writeUInt16LE(DATE, 12)
    local.writeUInt16LE(name.length, 26)
    const descriptor = Buffer.alloc(16)
    descriptor.writeUInt32LE(0x08074b50, 0)
    descriptor.writeUInt32LE(crc, 4)
    descriptor.writeUInt32LE(deflated.length, 8)
    descriptor.writeUInt32LE(data.length, 12)
    const entry = Buffer.alloc(46)
    entry.writeUInt32LE(0x02014b50, 0)
    entry.writeUInt16LE(VERSION, 4)
    entry.writeUInt16LE(VERSION, 6)
    entry.writeUInt16LE(FLAGS, 8)
    entry.writeUInt16LE(DEFLATED, 10)
    entry.writeUInt16LE(TIME, 12)
    entry.writeUInt16LE(DATE, 14)
    entry.writeUInt32LE(crc, 16)
    entry.writeUInt32LE(deflated.length, 20)
    entry.writeUInt32LE(data.length, 24)
    entry.writeUInt16LE(name.length, 28)
    entry.writeUInt32LE(offset, 42)
    central.push(entry, name)
    parts.push(local, name, deflated, descriptor)
    offset += local.length + name.length + deflated.length + descriptor.length
  }
  const directory = Buffer.concat(central)
  const end = Buffer.alloc(22)
  end.writeUInt32LE(0x06054b50, 0)
  end.writeUInt16LE(files.length, 8)
  end.writeUInt16LE(files.length, 10)
  end.writeUInt32LE(directory.length, 12)
  end.writeUInt32LE(offset, 16)
  return new Uint8Array(Buffer.concat([...parts, directory, end]))
}
