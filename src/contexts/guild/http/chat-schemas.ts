import { Type } from 'typebox'
import { Nullable } from '../../../platform/http/schemas.js'
import type { ChatMessage } from '../domain/chat.js'
import { CHAT_TEXT_MAX, CHAT_TEXT_MIN, LIST_DEFAULT_LIMIT, LIST_MAX_LIMIT } from '../domain/rules.js'

const Id = Type.String({ format: 'uuid' })

export const MessageParams = Type.Object({ id: Id, messageId: Id })
export const PostMessageBody = Type.Object({
  text: Type.String({ minLength: CHAT_TEXT_MIN, maxLength: CHAT_TEXT_MAX + 200, pattern: '\\S', description: '1–1000 characters after trimming; `@name` or `@"Two Words"` mentions a member' }),
}, { examples: [{ text: '@Grace ready for the dragon?' }] })
export const MessagePageQuery = Type.Object({
  before: Type.Optional(Type.String({
    format: 'uuid', description: 'A message of this guild: the page holds the messages posted before it (the `next` of a page)',
  })),
  limit: Type.Integer({ minimum: 1, maximum: LIST_MAX_LIMIT, default: LIST_DEFAULT_LIMIT }),
})

const ChatPersonView = Type.Object({ avatarId: Type.String(), name: Type.String({ description: "The avatar's public name when it acted" }) })
export const MessageView = Type.Object({
  id: Type.String(),
  guildId: Type.String(),
  author: ChatPersonView,
  text: Nullable(Type.String({ description: 'null once deleted' })),
  sentAt: Type.String({ format: 'date-time' }),
  deletedBy: Type.Optional(ChatPersonView),
  deletedAt: Type.Optional(Type.String({ format: 'date-time' })),
})
export const MessagePageView = Type.Object({
  items: Type.Array(MessageView, { description: 'Newest first' }),
  next: Nullable(Type.String({ description: 'The `before` of the page of older messages; null on the last page' })),
})

export const messagePath = (m: { guildId: string; id: string }) => `/api/v1/guilds/${m.guildId}/messages/${m.id}`

/** A message as the API shows it: a tombstone (text null) says who deleted it and when. */
export const messageView = (m: ChatMessage) => ({
  id: m.id, guildId: m.guildId, author: m.author, text: m.text, sentAt: m.sentAt.toISOString(),
  ...(m.deletedBy && m.deletedAt ? { deletedBy: m.deletedBy, deletedAt: m.deletedAt.toISOString() } : {}),
})
