import type { Notification } from '../domain/notification.js'

/** A notification as the inbox and the export show it. */
export const notificationView = (n: Notification) => ({
  id: n.id, type: n.type, title: n.title, body: n.body, data: n.data,
  createdAt: n.createdAt.toISOString(), readAt: n.readAt?.toISOString() ?? null,
})
