/** Guild chat (DESIGN §9.5): post, read pages newest first, delete. */
import type { paths } from '@questline/client'
import { api, completed, dataOf } from './client'

export type MessagePage = paths['/api/v1/guilds/{id}/messages']['get']['responses'][200]['content']['application/json']
export type ChatMessage = MessagePage['items'][number]

export const CHAT_PAGE = 30
export const CHAT_TEXT_MAX = 1000

export const messages = (guildId: string, before?: string | null): Promise<MessagePage> =>
  dataOf(api.GET('/api/v1/guilds/{id}/messages', { params: { path: { id: guildId }, query: { limit: CHAT_PAGE, ...(before ? { before } : {}) } } }))
export const postMessage = (guildId: string, text: string): Promise<ChatMessage> =>
  dataOf(api.POST('/api/v1/guilds/{id}/messages', { params: { path: { id: guildId } }, body: { text } }))
export const deleteMessage = (guildId: string, messageId: string) =>
  completed(api.DELETE('/api/v1/guilds/{id}/messages/{messageId}', { params: { path: { id: guildId, messageId } } }))
