/** The route the edge calls for an avatar's inbox in an export, when the live context runs apart (services only). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { requireTrusted } from '../../../platform/auth/principal.js'
import { AvatarIdString, problemResponses } from '../../../platform/http/schemas.js'
import type { InboxApp } from '../app/inbox-app.js'
import { EXPORT_NOTIFICATIONS_PAGE } from '../domain/rules.js'
import { NotificationExportPage } from './export-schemas.js'
import { notificationView } from './views.js'

export const liveExportRoutes: FastifyPluginAsyncTypebox<{ app: InboxApp }> = async (f, { app }) => {
  f.get('/exports/notifications/avatars/:id', {
    schema: {
      tags: ['service'], operationId: 'serviceExportNotifications', summary: "Export a page of an avatar's notifications (services only)",
      description: `Up to ${EXPORT_NOTIFICATIONS_PAGE} of the notifications still kept, oldest first (\`next\` names the following ` +
        "page), as the edge puts them in its owner's export when the live context runs apart. Only service and admin tokens may " +
        'call it: 403 `service-only` for a player, who uses `GET /api/v1/me/export`.',
      params: Type.Object({ id: AvatarIdString() }),
      querystring: Type.Object({ cursor: Type.Optional(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description: 'The `next` of the page before' })) }),
      response: { 200: NotificationExportPage, ...problemResponses(400, 401, 403) },
    },
  }, async (req) => {
    requireTrusted(req.principal, 'Only services read exports; players use GET /api/v1/me/export.')
    const page = await app.exportPage(req.params.id, req.query.cursor === undefined ? undefined : String(req.query.cursor))
    return { items: page.items.map(notificationView), next: page.next }
  })
}
