/**
 * The port other contexts use to ask the live context for something: today, an avatar's inbox for
 * its owner's export (DESIGN §9.4), page by page. In-process a direct read; split services, an
 * HTTP call to the live service's export route with a service token.
 */
import type { TokenSource } from '../../platform/auth/service-token.js'
import type { Database } from '../../platform/db/database.js'
import { ServiceClient, type ServiceClientOptions } from '../../platform/http/service-client.js'
import { EXPORT_NOTIFICATIONS_PAGE } from './domain/rules.js'
import type { NotificationExport } from './http/export-schemas.js'
import { notificationExportPage } from './store/notification-export.js'

// The live context's part of a player's export: the edge composes the document's schema from it.
export { NotificationExport } from './http/export-schemas.js'

export interface LiveClient {
  /** A page of the avatar's notifications, oldest first; `cursor` is the `next` of the page before. */
  exportNotifications(avatarId: string, cursor?: string): Promise<{ items: NotificationExport[]; next: string | null }>
}

/** A cursor of the export's pages: a notification's position. */
export const positionOf = (cursor: string | undefined): number | undefined => (cursor === undefined ? undefined : Number(cursor))

/** The port as a direct call; never inside an open transaction (see inProcessAvatarClient). */
export function inProcessLiveClient(database: Database): LiveClient {
  return database.outsideTransactions<LiveClient>('LiveClient', {
    exportNotifications: (avatarId, cursor) => notificationExportPage(database.current(), avatarId, positionOf(cursor), EXPORT_NOTIFICATIONS_PAGE),
  })
}

/** The same port over the live service's API (split services), with a service token. */
export function httpLiveClient(baseUrl: string | (() => string), token: TokenSource, opts: Partial<ServiceClientOptions> = {}): LiveClient {
  const http = new ServiceClient(baseUrl, token, opts)
  return {
    exportNotifications: (avatarId, cursor) => http.call({
      method: 'GET', path: `/api/v1/exports/notifications/avatars/${encodeURIComponent(avatarId)}${cursor === undefined ? '' : `?cursor=${cursor}`}`,
    }),
  }
}
