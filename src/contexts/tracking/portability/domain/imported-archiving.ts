/**
 * An imported habit's archiving (archive.ts), as an export document gives it: whether it is
 * archived, and the spans of days its windows started on while it was. Checked here (400 naming
 * the field), applied as the habit is made.
 */
import { parseLocalDate, type LocalDate } from '../../../../platform/time/index.js'
import { setArchived, type ArchivedSpan } from '../../domain/archive.js'
import type { Habit } from '../../domain/habit.js'
import { ARCHIVED_SPANS_KEPT } from '../../domain/rules.js'
import { InvalidImport } from './errors.js'

export interface ImportedArchiving {
  archived: boolean
  spans: ArchivedSpan[]
}

const invalid = (path: string, message: string) => new InvalidImport(`${path} ${message}.`, [{ path, message }])

/**
 * The archiving a habit record gives (`at` is the record's habit): real dates, each span ending
 * after it starts and after the one before ends, only the last one open (`until` null).
 */
export function archivingOf(h: { archived?: boolean | undefined; archivedSpans?: { from: string; until: string | null }[] | undefined }, at: string): ImportedArchiving {
  const given = h.archivedSpans ?? []
  const spans = given.map((s, k): ArchivedSpan => {
    const from = parseLocalDate(s.from)
    if (!from) throw invalid(`${at}/archivedSpans/${k}/from`, 'must be a date YYYY-MM-DD')
    if (s.until === null) {
      if (k < given.length - 1) throw invalid(`${at}/archivedSpans/${k}/until`, 'may be null only in the last span')
      return { from, until: null }
    }
    const until = parseLocalDate(s.until)
    if (!until) throw invalid(`${at}/archivedSpans/${k}/until`, 'must be a date YYYY-MM-DD')
    if (until <= from) throw invalid(`${at}/archivedSpans/${k}/until`, 'must be after from')
    return { from, until }
  })
  spans.forEach((s, k) => {
    const before = spans[k - 1]
    if (before?.until && s.from < before.until) throw invalid(`${at}/archivedSpans/${k}/from`, 'must not be before the span before ends')
  })
  return { archived: h.archived ?? false, spans: spans.slice(-ARCHIVED_SPANS_KEPT) }
}

/**
 * The habit with the archiving it was imported with, on its day `today`: its spans kept; archived,
 * it stays so (archived on `today` when the document gives no open span); not archived, an open span
 * ends after the window under way, as when a habit is brought back.
 */
export function withArchiving(h: Habit, archiving: ImportedArchiving | undefined, today: LocalDate): Habit {
  if (!archiving) return h
  const { archived, spans } = archiving
  return setArchived({ ...h, archived: spans.at(-1)?.until === null, archivedSpans: spans }, archived, today)
}
