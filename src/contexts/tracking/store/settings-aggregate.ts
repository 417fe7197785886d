import type { TrackingDraft } from '../../../contracts/events/tracking.js'
import type { Outbox } from '../../../platform/events/outbox.js'
import type { AggregateDefinition } from '../../../platform/writer/aggregate.js'
import type { SettingsEntry } from '../domain/settings.js'
import { avatarSettings } from './tables.js'

/** An avatar's day settings as stored: their history (DESIGN §9.3), when it last changed, and its version. */
export interface StoredSettings {
  avatarId: string
  history: SettingsEntry[]
  updatedAt: Date
  version: number
}

type SettingsRow = typeof avatarSettings.$inferSelect

export const toSettings = (row: SettingsRow): StoredSettings => ({ ...row, history: row.history as SettingsEntry[] })

/**
 * An avatar's day settings as the platform writer stores them: one row by avatar, written whole by
 * each change (no column is fixed). A change causes no event of its own (the habits whose instants
 * it moves are saved with it); the outbox is the context's, as every definition names one.
 */
export const settingsAggregate = (outbox: Outbox<TrackingDraft>): AggregateDefinition<StoredSettings, typeof avatarSettings> => ({
  name: 'settings',
  table: avatarSettings,
  key: avatarSettings.avatarId,
  version: avatarSettings.version,
  outbox,
  toState: toSettings,
  toRow: (s) => s,
  keyOf: (s) => s.avatarId,
})
