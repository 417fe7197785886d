import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { NoContent, noContent, problemResponses } from '../../../platform/http/schemas.js'
import type { InboxApp } from '../app/inbox-app.js'
import { NOTIFICATION_RETENTION_DAYS } from '../domain/rules.js'
import { AvatarParams, InboxQuery, InboxView, NotificationParams } from './schemas.js'
import { notificationView } from './views.js'

const tags = ['inbox']
const changes = { 204: NoContent, ...problemResponses(400, 401, 403, 404) }

const OWNER_ONLY = "An inbox is private to the avatar's owner: 403 `not-owner` for anyone else, 404 `not-found` for an unknown avatar."

export const inboxRoutes: FastifyPluginAsyncTypebox<{ app: InboxApp }> = async (f, { app }) => {
  f.get('/avatars/:id/notifications', {
    schema: {
      tags, operationId: 'listNotifications', summary: "List an avatar's notifications, newest first (owner only)",
      description: `Notifications made from what happens to the avatar, kept ${NOTIFICATION_RETENTION_DAYS} days, read or not. ` +
        '`unread` keeps the unread ones; `unreadCount` counts them whatever the filter. In pages of `limit` (`next` names the ' +
        `following, older page); a cursor that names no notification of this inbox is 400 \`invalid-cursor\`. ${OWNER_ONLY}`,
      params: AvatarParams, querystring: InboxQuery, response: { 200: InboxView, ...problemResponses(400, 401, 403, 404) },
    },
  }, async (req) => {
    const page = await app.list(req.principal, req.params.id, req.query)
    return { items: page.items.map(notificationView), next: page.next, unreadCount: page.unreadCount }
  })

  f.post('/avatars/:id/notifications/:nid/read', {
    schema: {
      tags, operationId: 'markNotificationRead', summary: 'Mark one notification read',
      description: 'Marking it again keeps the time it was first read. Refused with 404 `not-found` for a notification that is not ' +
        `in this avatar's inbox. ${OWNER_ONLY}`,
      params: NotificationParams, response: changes,
    },
  }, async (req, reply) => {
    await app.markRead(req.principal, req.params.id, req.params.nid)
    return noContent(reply)
  })

  f.post('/avatars/:id/notifications/read-all', {
    schema: {
      tags, operationId: 'markAllNotificationsRead', summary: "Mark every notification of an avatar's inbox read",
      description: `Those read before keep the time they were first read. ${OWNER_ONLY}`, params: AvatarParams, response: changes,
    },
  }, async (req, reply) => {
    await app.markAllRead(req.principal, req.params.id)
    return noContent(reply)
  })
}
