/**
 * The port other contexts use to ask the tracking context for something: the interface, its
 * in-process and HTTP adapters (picked at start-up), and what a caller needs to call it (the
 * habit template a copy is made from, checked by tracking's rules). Calendar arithmetic is not
 * here: it is platform/time's.
 */
import { SYSTEM } from '../../platform/auth/principal.js'
import type { TokenSource } from '../../platform/auth/service-token.js'
import type { Database } from '../../platform/db/database.js'
import { ServiceClient, type ServiceClientOptions } from '../../platform/http/service-client.js'
import { recurrenceFields, type DayFrame, type LocalDate } from '../../platform/time/index.js'
import type { TrackingExport } from './portability/app/export-app.js'
import { copyRecurrence } from './domain/habit-fields.js'
import type { HabitCommands } from './app/habit-commands.js'
import type { HabitQueries } from './app/habit-queries.js'
import * as habits from './domain/habit-fields.js'
import { UNLINK_MAX_HABITS } from './domain/rules.js'
import { EXPORT_HABITS_PAGE, EXPORT_HISTORY_PAGE } from './portability/domain/rules.js'
import type { CompletionExport, HabitExport, HistoryKind, JudgedWindowExport, SettingsExport } from './portability/http/export-schemas.js'

export type { HabitTemplate } from './domain/habit-fields.js'
// Tracking's part of a player's export (DESIGN §9.4): the edge composes the document's schema from it.
export { HabitRecordExport, SettingsExport, type CompletionExport, type HabitExport, type HistoryKind, type JudgedWindowExport } from './portability/http/export-schemas.js'

// A habit's fields as tracking's schemas take them (the schedule one variant per recurrence type), for a quest's habits.
export { Description as HabitDescription, Tags as HabitTags, Title as HabitTitle, withSchedule } from './http/schemas.js'

export interface QuestHabitCopy extends habits.HabitTemplate {
  avatarId: string
  questId: string
  /** IANA zone the copy's windows are counted in. */
  timeZone: string
  /**
   * The day the caller counts the copy's windows from (a quest: the avatar's day of the join, by
   * its `dayFrameOf`). An EVERY_N_DAYS copy's windows run in steps of N days from it, whatever day
   * tracking makes the copy on (a retried or recovered join can make it on a later one).
   */
  startsOn: LocalDate
}

export interface TrackingClient {
  /**
   * How an avatar's days run now (DESIGN §9.3): its zone and the local hour its days start at
   * (its settings, the defaults until changed). A habit made for it now counts its windows in
   * those days.
   */
  dayFrameOf(avatarId: string): Promise<DayFrame>
  /**
   * Copies a quest habit into an avatar's habits under the id the caller chose. The id is the
   * idempotency key: the same id again makes nothing new.
   */
  copyQuestHabit(habitId: string, copy: QuestHabitCopy): Promise<void>
  /** Sets `associatedQuestId` to null on those habits still linked to the quest; they are kept. Idempotent. */
  unlinkFromQuest(questId: string, habitIds: string[]): Promise<void>
  /** An avatar's day settings, for its owner's export. */
  exportSettings(avatarId: string): Promise<SettingsExport>
  /** A page of an avatar's habits (oldest first) for an export; `cursor` is the `next` of the page before. */
  exportHabits(avatarId: string, cursor?: string): Promise<{ items: HabitExport[]; next: string | null }>
  /** A page of one kind of a habit's history (oldest first); `after` is the `next` of the page before. */
  exportHistory(habitId: string, kind: HistoryKind, after?: string): Promise<{ items: (CompletionExport | JudgedWindowExport)[]; next: string | null }>
}

/** The same port over the tracking service's API and internal routes (split services), with a service token. */
export function httpTrackingClient(baseUrl: string | (() => string), token: TokenSource, opts: Partial<ServiceClientOptions> = {}): TrackingClient {
  const http = new ServiceClient(baseUrl, token, opts)
  return {
    dayFrameOf: async (avatarId) => {
      const { timeZone, dayStartHour } = await http.call<DayFrame>({ method: 'GET', path: `/api/v1/avatars/${encodeURIComponent(avatarId)}/settings` })
      return { timeZone, dayStartHour }
    },
    copyQuestHabit: (habitId, { recurrence, ...copy }) => http.call({
      method: 'PUT', path: `/internal/v1/habits/${habitId}`,
      body: { ...copy, recurrence: recurrenceFields(recurrence) },
    }),
    unlinkFromQuest: async (questId, habitIds) => {
      for (let i = 0; i < habitIds.length; i += UNLINK_MAX_HABITS) {
        await http.call({ method: 'POST', path: '/internal/v1/habits/quest-unlinks', body: { questId, habitIds: habitIds.slice(i, i + UNLINK_MAX_HABITS) } })
      }
    },
    exportSettings: (avatarId) => http.call({ method: 'GET', path: `/internal/v1/exports/tracking/avatars/${encodeURIComponent(avatarId)}/settings` }),
    exportHabits: (avatarId, cursor) => http.call({
      method: 'GET', path: `/internal/v1/exports/tracking/avatars/${encodeURIComponent(avatarId)}/habits${cursor ? `?cursor=${cursor}` : ''}`,
    }),
    exportHistory: (habitId, kind, after) => http.call({
      method: 'GET', path: `/internal/v1/exports/tracking/habits/${habitId}/history?kind=${kind}${after ? `&after=${after}` : ''}`,
    }),
  }
}

/** The port as a direct call; never inside an open transaction (see inProcessAvatarClient). */
export function inProcessTrackingClient(
  uses: { commands: HabitCommands; queries: HabitQueries; exports: TrackingExport }, database: Database,
): TrackingClient {
  const { commands, queries, exports } = uses
  return database.outsideTransactions<TrackingClient>('TrackingClient', {
    dayFrameOf: async (avatarId) => {
      const { timeZone, dayStartHour } = await queries.settings(SYSTEM, avatarId)
      return { timeZone, dayStartHour }
    },
    copyQuestHabit: (habitId, { questId, startsOn, recurrence, ...copy }) =>
      commands.copyForQuest(habitId, { ...copy, associatedQuestId: questId, recurrence: copyRecurrence(recurrence, startsOn) }),
    unlinkFromQuest: (questId, habitIds) => commands.unlinkFromQuest(questId, habitIds),
    exportSettings: (avatarId) => exports.settings(avatarId),
    exportHabits: (avatarId, cursor) => exports.habits(avatarId, cursor, EXPORT_HABITS_PAGE),
    exportHistory: (habitId, kind, after) => exports.history(habitId, kind, after, EXPORT_HISTORY_PAGE),
  })
}

/**
 * Checks a habit described elsewhere (a quest's entry) by the rules a habit follows and
 * normalises it, so that copying it later cannot be refused. Throws a 400 error naming the field
 * (a pointer under `at`, where the entry sits in the command).
 */
export const habitTemplate = (t: Parameters<typeof habits.habitTemplate>[0], at = ''): habits.HabitTemplate => habits.habitTemplate(t, at)
