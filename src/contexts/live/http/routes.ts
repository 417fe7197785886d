import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { NoContent, noContent, problemResponses } from '../../../platform/http/schemas.js'
import type { InboxApp } from '../app/inbox-app.js'
import type { Notification } from '../domain/notification.js'
import { AvatarParams, InboxQuery, InboxView, NotificationParams } from './schemas.js'

const tags = ['notifications']
const changes = { 204: NoContent, ...problemResponses(400, 401, 403, 404) }

const view = (n: Notification) => ({
  id: n.id, type: n.type, title: n.title, body: n.body, data: n.data,
  createdAt: n.createdAt.toISOString(), readAt: n.readAt?.toISOString() ?? null,
})

export const inboxRoutes: FastifyPluginAsyncTypebox<{ app: InboxApp }> = async (f, { app }) => {
  f.get('/avatars/:id/notifications', {
    schema: { tags, summary: "The avatar's inbox, newest first (owner only); kept 90 days", params: AvatarParams, querystring: InboxQuery,
      response: { 200: InboxView, ...problemResponses(400, 401, 403, 404) } },
  }, async (req) => {
    const page = await app.list(req.principal, req.params.id, req.query)
    return { items: page.items.map(view), next: page.next, unreadCount: page.unreadCount }
  })

  f.post('/avatars/:id/notifications/:nid/read', {
    schema: { tags, summary: 'Mark one notification read (again: keeps the first time)', params: NotificationParams, response: changes },
  }, async (req, reply) => {
    await app.markRead(req.principal, req.params.id, req.params.nid)
    return noContent(reply)
  })

  f.post('/avatars/:id/notifications/read-all', {
    schema: { tags, summary: "Mark every notification of the avatar's inbox read", params: AvatarParams, response: changes },
  }, async (req, reply) => {
    await app.markAllRead(req.principal, req.params.id)
    return noContent(reply)
  })
}
