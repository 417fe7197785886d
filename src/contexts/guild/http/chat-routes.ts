import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { NoContent, noContent, problemResponses } from '../../../platform/http/schemas.js'
import type { ChatApp } from '../app/chat-app.js'
import { CHAT_BURST_MAX, CHAT_BURST_WINDOW_MS, CHAT_TEXT_MAX, CHAT_TEXT_MIN } from '../domain/rules.js'
import { MessagePageQuery, MessagePageView, MessageParams, MessageView, messagePath, messageView, PostMessageBody } from './chat-schemas.js'
import { GuildIdParams } from './schemas.js'

const tags = ['guilds']
const MEMBERS_ONLY = "The caller must own a member of the guild (403 `guild-members-only`); 404 `not-found` for an unknown guild."
const MENTIONS = 'After `@`, a quoted name (`@"Sir Reg"`) or the longest member name that follows (ignoring case, not followed by more ' +
  'letters, digits, `_` or `-`) mentions that member: each member mentioned (once per message, never the author) gets a `MENTION` notification.'

/** Guild chat (DESIGN §9.5). */
export const chatRoutes: FastifyPluginAsyncTypebox<{ app: ChatApp }> = async (f, { app }) => {
  f.post('/guilds/:id/messages', {
    schema: {
      tags, operationId: 'postGuildMessage', summary: "Post a message in a guild's chat (members only)",
      description: `The author is the caller's avatar among the members (the longest-serving, if several). ${MEMBERS_ONLY} ` +
        `A message is ${CHAT_TEXT_MIN}–${CHAT_TEXT_MAX} characters after trimming (400 \`invalid-message-text\`). More than ` +
        `${CHAT_BURST_MAX} messages in ${CHAT_BURST_WINDOW_MS / 1000} s from one member is 429 \`chat-rate-limited\`, with \`Retry-After\` ` +
        `(the seconds until the oldest message of the window leaves it). ${MENTIONS} The Location header names the message. ` +
        "Emits `GuildMessagePosted` (on every member's stream).",
      params: GuildIdParams, body: PostMessageBody, response: { 201: MessageView, ...problemResponses(400, 401, 403, 404, 429) },
    },
  }, async (req, reply) => {
    const message = await app.post(req.principal, req.params.id, req.body.text)
    reply.code(201).header('location', messagePath(message))
    return messageView(message)
  })

  f.get('/guilds/:id/messages', {
    schema: {
      tags, operationId: 'listGuildMessages', summary: "Read a guild's chat, newest first (members only)",
      description: `${MEMBERS_ONLY} \`before\` (a page's \`next\`) gives the messages posted before that one; one that names no message ` +
        'of this guild is 400 `invalid-cursor`. A deleted message is listed as a tombstone: `text` null, with `deletedBy` and `deletedAt`.',
      params: GuildIdParams, querystring: MessagePageQuery, response: { 200: MessagePageView, ...problemResponses(400, 401, 403, 404) },
    },
  }, async (req) => {
    const page = await app.page(req.principal, req.params.id, { limit: req.query.limit, cursor: req.query.before })
    return { items: page.items.map(messageView), next: page.next }
  })

  f.delete('/guilds/:id/messages/:messageId', {
    schema: {
      tags, operationId: 'deleteGuildMessage', summary: 'Delete a chat message (its author, an officer or the leader)',
      description: "The caller must own the message's author (a member or not) or an officer or the leader of the guild: 403 " +
        '`guild-role-required` for a plain member, 403 `guild-members-only` for anyone else; 404 `not-found` for an unknown guild ' +
        'or message. The message stays as a tombstone; deleting a tombstone again answers 204 and changes nothing. ' +
        "Emits `GuildMessageDeleted` (on every member's stream).",
      params: MessageParams, response: { 204: NoContent, ...problemResponses(400, 401, 403, 404) },
    },
  }, async (req, reply) => {
    await app.delete(req.principal, req.params.id, req.params.messageId)
    return noContent(reply)
  })
}
