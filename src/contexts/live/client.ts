/**
 * The port other contexts use to ask the live context for something: an avatar's inbox for its
 * owner's export (DESIGN §9.4), page by page. In-process a direct call to its use cases; split
 * services, an HTTP call to the live service's export route with a service token.
 */
import type { TokenSource } from '../../platform/auth/service-token.js'
import type { Database } from '../../platform/db/database.js'
import { ServiceClient, type ServiceClientOptions } from '../../platform/http/service-client.js'
import type { Page } from '../../platform/paging.js'
import type { InboxApp } from './app/inbox-app.js'
import type { NotificationExport } from './http/export-schemas.js'
import { notificationView } from './http/views.js'

// The live context's part of a player's export: the edge composes the document's schema from it.
export { NotificationExport } from './http/export-schemas.js'

export interface LiveClient {
  /** A page of the avatar's notifications, oldest first; `cursor` is the `next` of the page before. */
  exportNotifications(avatarId: string, cursor?: string): Promise<Page<NotificationExport>>
}

/** The port as a direct call; never inside an open transaction (see inProcessAvatarClient). */
export function inProcessLiveClient(app: InboxApp, database: Database): LiveClient {
  return database.outsideTransactions<LiveClient>('LiveClient', {
    exportNotifications: async (avatarId, cursor) => {
      const page = await app.exportPage(avatarId, cursor)
      return { items: page.items.map(notificationView), next: page.next }
    },
  })
}

/** The same port over the live service's internal routes (split services), with a service token. */
export function httpLiveClient(baseUrl: string | (() => string), token: TokenSource, opts: Partial<ServiceClientOptions> = {}): LiveClient {
  const http = new ServiceClient(baseUrl, token, opts)
  return {
    exportNotifications: (avatarId, cursor) => http.call({
      method: 'GET', path: `/internal/v1/exports/notifications/avatars/${encodeURIComponent(avatarId)}${cursor === undefined ? '' : `?cursor=${cursor}`}`,
    }),
  }
}
