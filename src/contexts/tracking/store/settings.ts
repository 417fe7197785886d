import { and, eq, inArray } from 'drizzle-orm'
import type { Queryable, Tx } from '../../../platform/db/database.js'
import { defaultHistory, type SettingsEntry } from '../domain/settings.js'
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

  /** The same, locked for a change (no row yet: none to lock; the upsert settles two first changes). */
  async historyForUpdate(tx: Tx, avatarId: string): Promise<{ history: SettingsEntry[]; version: number }> {
    const [row] = await tx.select().from(avatarSettings).where(eq(avatarSettings.avatarId, avatarId)).for('update')
    return row ? { history: row.history as SettingsEntry[], version: row.version } : { history: defaultHistory(), version: 0 }
  },

  /** false when another change was written since `version` was read (first changes race on the insert). */
  async save(tx: Tx, avatarId: string, history: SettingsEntry[], version: number, at: Date): Promise<boolean> {
    if (version === 0) {
      const rows = await tx.insert(avatarSettings).values({ avatarId, history, version: 1, updatedAt: at }).onConflictDoNothing().returning({ v: avatarSettings.version })
      return rows.length === 1
    }
    const rows = await tx.update(avatarSettings).set({ history, version: version + 1, updatedAt: at })
      .where(and(eq(avatarSettings.avatarId, avatarId), eq(avatarSettings.version, version))).returning({ v: avatarSettings.version })
    return rows.length === 1
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
