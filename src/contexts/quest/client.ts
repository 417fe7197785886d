/**
 * The port other contexts use to ask the quest context for something: an avatar's quests for its
 * owner's export (DESIGN §9.4). In-process a direct call to its use cases; split services, an
 * HTTP call to the quest service's export route with a service token.
 */
import type { TokenSource } from '../../platform/auth/service-token.js'
import type { Database } from '../../platform/db/database.js'
import { ServiceClient, type ServiceClientOptions } from '../../platform/http/service-client.js'
import type { QuestApp } from './app/quest-app.js'
import { questsExport, type QuestsExport } from './http/export-schemas.js'

// The quest's part of a player's export: the edge composes the document's schema from it.
export { QuestsExport } from './http/export-schemas.js'

export interface QuestClient {
  /** The quests the avatar created and those it joined, as exported. */
  exportOf(avatarId: string): Promise<QuestsExport>
}

/** The port as a direct call; never inside an open transaction (see inProcessAvatarClient). */
export function inProcessQuestClient(app: QuestApp, database: Database): QuestClient {
  return database.outsideTransactions<QuestClient>('QuestClient', {
    exportOf: async (avatarId) => questsExport(await app.exportOf(avatarId)),
  })
}

/** The same port over the quest service's internal routes (split services), with a service token. */
export function httpQuestClient(baseUrl: string | (() => string), token: TokenSource, opts: Partial<ServiceClientOptions> = {}): QuestClient {
  const http = new ServiceClient(baseUrl, token, opts)
  return {
    exportOf: (avatarId) => http.call({ method: 'GET', path: `/internal/v1/exports/quests/avatars/${encodeURIComponent(avatarId)}` }),
  }
}
