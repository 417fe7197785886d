import { eq, inArray } from 'drizzle-orm'
import type { Queryable, Tx } from '../../../platform/db/database.js'
import { defaultHistory, type SettingsEntry } from '../domain/settings.js'
import { toSettings, type StoredSettings } from './settings-aggregate.js'
import { avatarSettings } from './tables.js'

export const settingsRepo = {
  /** The avatar's settings history; the defaults when it never changed them. */
  async history(q: Queryable, avatarId: string): Promise<SettingsEntry[]> {
    const [row] = await q.select({ history: avatarSettings.history }).from(avatarSettings).where(eq(avatarSettings.avatarId, avatarId))
    return (row?.history as SettingsEntry[] | undefined) ?? defaultHistory()
  },

  /**
   * The same, share-locked: a change of the settings waits for this transaction to end, and this one
   * reads what a change under way writes. A habit made meanwhile is made by the settings it will have.
   */
  async historyForShare(tx: Tx, avatarId: string): Promise<SettingsEntry[]> {
    const [row] = await tx.select({ history: avatarSettings.history }).from(avatarSettings).where(eq(avatarSettings.avatarId, avatarId)).for('share')
    return (row?.history as SettingsEntry[] | undefined) ?? defaultHistory()
  },

  /**
   * The stored settings, locked for a change; undefined when the avatar never changed them (no row
   * to lock: two first changes settle on the writer's insert).
   */
  async forUpdate(tx: Tx, avatarId: string): Promise<StoredSettings | undefined> {
    const [row] = await tx.select().from(avatarSettings).where(eq(avatarSettings.avatarId, avatarId)).for('update')
    return row && toSettings(row)
  },

  /** Each avatar's history, for a job run over many habits. */
  async historiesOf(q: Queryable, avatarIds: string[]): Promise<Map<string, SettingsEntry[]>> {
    const ids = [...new Set(avatarIds)]
    const rows = ids.length === 0 ? [] : await q.select().from(avatarSettings).where(inArray(avatarSettings.avatarId, ids))
    const found = new Map(rows.map((r) => [r.avatarId, r.history as SettingsEntry[]]))
    return new Map(ids.map((id) => [id, found.get(id) ?? defaultHistory()]))
  },

  async delete(tx: Tx, avatarId: string): Promise<void> {
    await tx.delete(avatarSettings).where(eq(avatarSettings.avatarId, avatarId))
  },
}
