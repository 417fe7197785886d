import { Type } from 'typebox'
import { AvatarIdString, Nullable, StringEnum } from '../../../platform/http/schemas.js'
import { NOTIFICATION_TYPES } from '../domain/notification.js'
import { LIST_DEFAULT_LIMIT, LIST_MAX_LIMIT } from '../domain/rules.js'

export const AvatarParams = Type.Object({ id: AvatarIdString() })
export const NotificationParams = Type.Object({ id: AvatarIdString(), nid: Type.String({ format: 'uuid' }) })

export const InboxQuery = Type.Object({
  unread: Type.Optional(Type.Boolean({ description: 'Only notifications not read yet' })),
  limit: Type.Integer({ minimum: 1, maximum: LIST_MAX_LIMIT, default: LIST_DEFAULT_LIMIT }),
  cursor: Type.Optional(Type.String({ format: 'uuid', description: 'The `next` of the previous page' })),
})

export const NotificationView = Type.Object({
  id: Type.String({ format: 'uuid' }),
  type: StringEnum(NOTIFICATION_TYPES),
  title: Type.String(),
  body: Type.String(),
  data: Type.Object({}, { additionalProperties: true, description: "The facts behind it, by type (ids, amounts): for a client's links and icons" }),
  createdAt: Type.String({ format: 'date-time' }),
  readAt: Nullable(Type.String({ format: 'date-time' })),
})

export const InboxView = Type.Object({
  items: Type.Array(NotificationView),
  next: Nullable(Type.String({ description: 'Cursor of the next (older) page; null on the last' })),
  unreadCount: Type.Integer({ minimum: 0, description: 'Unread notifications of the avatar, whatever the filter' }),
})

export const StreamQuery = Type.Object({
  ticket: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'A stream ticket (for `EventSource`, which cannot send the Authorization header)' })),
  lastEventId: Type.Optional(Type.String({ maxLength: 100, description: 'As the Last-Event-ID header: replay what followed that event' })),
})

export const StreamTicketView = Type.Object({
  ticket: Type.String({ description: 'Pass as `?ticket=` to the stream, once' }),
  expiresIn: Type.Integer({ description: 'Seconds it stays good for' }),
})
