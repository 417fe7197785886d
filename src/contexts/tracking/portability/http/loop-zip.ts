/**
 * A Loop Habit Tracker CSV export as its app writes it (a zip: `Habits.csv`, a folder per habit
 * `001 Name/` with its `Checkmarks.csv`, and a top-level `Checkmarks.csv`), opened into the files
 * the Loop import reads. Entries it does not read (Scores.csv) are never inflated; the inflated
 * size is bounded like the upload.
 */
import { unzipSync } from 'fflate'
import { InvalidImport, ImportTooLarge } from '../domain/errors.js'
import type { CsvSource } from '../domain/csv.js'
import type { LoopFiles } from '../domain/loop-plans.js'
import { IMPORT_BODY_MAX_BYTES } from '../domain/rules.js'

const HABITS = /(^|\/)Habits\.csv$/
/**
 * A habit's own checkmarks: `<position> <name>/Checkmarks.csv`, the position as in Habits.csv
 * (`001`) and the name kept to letters, digits, spaces and `._-` (a name with none of them leaves
 * the folder `001`).
 */
const HABIT_CHECKMARKS = /^(\d+)(?: [^/]*)?\/Checkmarks\.csv$/

export function loopFilesOfZip(bytes: Uint8Array): LoopFiles {
  let inflated = 0
  let entries: Record<string, Uint8Array>
  try {
    entries = unzipSync(bytes, {
      filter: (file) => {
        if (!file.name.endsWith('.csv') || file.name.endsWith('Scores.csv')) return false
        inflated += file.originalSize
        if (inflated > IMPORT_BODY_MAX_BYTES) throw new ImportTooLarge(`The zip's files hold more than ${IMPORT_BODY_MAX_BYTES} bytes.`, 'body')
        return true
      },
    })
  } catch (e) {
    if (e instanceof ImportTooLarge) throw e
    throw new InvalidImport('The body is not a zip file that can be read.', [{ path: 'body', message: 'must be a zip file (a Loop Habit Tracker CSV export)' }])
  }
  const names = Object.keys(entries)
  // The shortest path to Habits.csv is the export's root (a zip made again by hand may nest it in a folder).
  const habitsName = names.filter((n) => HABITS.test(n)).sort((a, b) => a.length - b.length)[0]
  if (habitsName === undefined) throw new InvalidImport('The zip holds no Habits.csv.', [{ path: '/Habits.csv', message: 'is required in the zip' }])
  const root = habitsName.slice(0, habitsName.length - 'Habits.csv'.length)
  const source = (name: string): CsvSource => ({ path: `/${name.slice(root.length)}`, text: new TextDecoder().decode(entries[name]) })
  const perHabit = new Map<number, CsvSource>()
  for (const name of names) {
    const m = name.startsWith(root) ? HABIT_CHECKMARKS.exec(name.slice(root.length)) : null
    if (m) perHabit.set(Number(m[1]), source(name))
  }
  const checkmarks = names.includes(`${root}Checkmarks.csv`) ? source(`${root}Checkmarks.csv`) : undefined
  return { habits: source(habitsName), checkmarks, perHabit }
}
