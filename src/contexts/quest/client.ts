/**
 * The port other contexts use to ask the quest context for something: today, an avatar's quests
 * for its owner's export (DESIGN §9.4). In-process a direct read; split services, an HTTP call to
 * the quest service's export route with a service token.
 */
import type { TokenSource } from '../../platform/auth/service-token.js'
import type { Database } from '../../platform/db/database.js'
import { ServiceClient, type ServiceClientOptions } from '../../platform/http/service-client.js'
import { questsExport, type QuestsExport } from './http/export-schemas.js'
import { participationRepo, questRepo } from './store/repositories.js'

// The quest's part of a player's export: the edge composes the document's schema from it.
export { QuestsExport } from './http/export-schemas.js'

export interface QuestClient {
  /** The quests the avatar created and those it joined, as exported. */
  exportOf(avatarId: string): Promise<QuestsExport>
}

/** What the export reads, in one place for both adapters. */
export async function readQuestsExport(database: Database, avatarId: string): Promise<QuestsExport> {
  const q = database.current()
  const [created, joined] = await Promise.all([questRepo.createdBy(q, avatarId), participationRepo.ofAvatar(q, avatarId)])
  return questsExport(created, joined)
}

/** The port as a direct call; never inside an open transaction (see inProcessAvatarClient). */
export function inProcessQuestClient(database: Database): QuestClient {
  return database.outsideTransactions<QuestClient>('QuestClient', {
    exportOf: (avatarId) => readQuestsExport(database, avatarId),
  })
}

/** The same port over the quest service's API (split services), with a service token. */
export function httpQuestClient(baseUrl: string | (() => string), token: TokenSource, opts: Partial<ServiceClientOptions> = {}): QuestClient {
  const http = new ServiceClient(baseUrl, token, opts)
  return {
    exportOf: (avatarId) => http.call({ method: 'GET', path: `/api/v1/exports/quests/avatars/${encodeURIComponent(avatarId)}` }),
  }
}
