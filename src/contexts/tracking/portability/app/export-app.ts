/**
 * Tracking's part of a player's export (DESIGN §9.4): an avatar's settings, its habits page by
 * page, and each habit's whole history page by page, so the edge can write a large account
 * progressively. Callers are trusted (the port): the edge has checked whose data it is.
 */
import type { Clock } from '../../../../platform/clock.js'
import type { Database } from '../../../../platform/db/database.js'
import { readPage, type Page } from '../../../../platform/paging.js'
import type { LocalDate } from '../../../../platform/time/index.js'
import { currentSettings, type DaySettings } from '../../domain/settings.js'
import { habitRepo } from '../../store/habits.js'
import { settingsRepo } from '../../store/settings.js'
import { habitRecord, type HabitRecord, type HistoryKind } from '../domain/export-records.js'
import { historyRows, type JudgedOutcome } from '../store/history-rows.js'

/** A row of a habit's history, as an export pages through it. */
export type HistoryRecord = { windowStart: LocalDate; attendedAt: string } | { windowStart: LocalDate; outcome: JudgedOutcome }

export class TrackingExport {
  constructor(private readonly d: { database: Database; clock: Clock }) {}

  async settings(avatarId: string): Promise<DaySettings> {
    const { from: _from, ...now } = currentSettings(await settingsRepo.history(this.d.database.current(), avatarId))
    return now
  }

  /** A page of the avatar's habits, oldest first; `cursor` is the `next` of the page before. */
  async habits(avatarId: string, cursor: string | undefined, limit: number): Promise<Page<HabitRecord>> {
    const q = this.d.database.current()
    const [page, history] = await Promise.all([readPage({ limit, cursor }, {
      names: 'a habit of this avatar',
      positionOf: (id) => habitRepo.positionOf(q, avatarId, id),
      fetch: (after, count) => habitRepo.listOfAvatar(q, avatarId, count, after),
      keyOf: (h) => h.id,
    }), settingsRepo.history(q, avatarId)])
    const now = this.d.clock.now()
    return { items: page.items.map((h) => habitRecord(h, history, now)), next: page.next }
  }

  /** A page of one kind of a habit's history, oldest first; `after` is the `next` of the page before (a window start). */
  async history(habitId: string, kind: HistoryKind, after: string | undefined, limit: number): Promise<Page<HistoryRecord>> {
    const q = this.d.database.current()
    // One more than asked tells whether a page follows.
    const rows: HistoryRecord[] = kind === 'completions'
      ? await historyRows.completions(q, habitId, after, limit + 1)
      : await historyRows.judged(q, habitId, kind === 'frozen' ? ['FROZEN'] : ['MISSED', 'NOT_DUE'], after, limit + 1)
    const items = rows.slice(0, limit)
    return { items, next: rows.length > limit ? items[items.length - 1]!.windowStart : null }
  }
}
