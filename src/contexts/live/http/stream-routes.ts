import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { Principal } from '../../../platform/auth/principal.js'
import { Unauthorized } from '../../../platform/errors.js'
import type { TicketAuthConfig } from '../../../platform/http/auth-guard.js'
import { problemResponses } from '../../../platform/http/schemas.js'
import type { StreamingConfig } from '../../../platform/http/streaming.js'
import type { StreamApp } from '../app/stream-app.js'
import type { StreamSink } from '../app/stream-hub.js'
import {
  STREAM_HEARTBEAT_MS, STREAM_HISTORY_EVENTS, STREAM_HISTORY_MINUTES, STREAM_MAX_BUFFERED_BYTES, STREAM_TICKET_TTL_SECONDS,
} from '../domain/rules.js'
import { AvatarParams, StreamQuery, StreamTicketView } from './schemas.js'

const tags = ['stream']
const streamConfig: TicketAuthConfig & StreamingConfig = { ticketAuth: true, streaming: true }

const STREAM_DESCRIPTION = `Server-sent events of everything that concerns the avatar, as it commits (DESIGN §9.2). Each event:
\`id: <n>\` (its place in the avatar's stream), \`event: <type>\`, \`data: {"type","occurredAt","payload"}\`. Types: AvatarChanged,
AvatarLeveledUp, AvatarDied, MissedWindowSettled (how a missed window was paid: damage or a streak freeze), LeagueResult (how a league week ended), HabitCreated, HabitDeleted,
HabitAttended, HabitMissed, QuestCompleted, QuestExpired, ItemBought, ItemSold,
NotificationCreated, InviteSent, InviteWithdrawn, GuildCreated, MemberJoined, MemberLeft, MemberRolesChanged, GuildDisbanded,
BattleStarted, BattleTurnTaken (with the boss's health after the hit), BattleCancelled, BattleWon, BattleLost, GuildMessagePosted, GuildMessageDeleted; payloads as the producing
context's events. Control events: \`resync\` (what followed Last-Event-ID is no longer kept, or the id is unknown: read the
state again), \`expired\` (the token that opened the stream expired or was revoked; the stream ends), \`reconnect\` (the server is
going away: the stream ends after a \`retry:\` of one to two seconds; reconnect with the Last-Event-ID you have). A comment line every
${STREAM_HEARTBEAT_MS / 1000} s. Authorization: the header, or \`?ticket=\` from POST …/stream-tickets. \`Last-Event-ID\` (header, or
\`?lastEventId=\`) replays what followed that event from at least the last ${STREAM_HISTORY_MINUTES} minutes or ${STREAM_HISTORY_EVENTS} events.
Only the avatar's owner may open it: 401 \`unauthorized\` without a token or ticket, 401 \`invalid-ticket\` for a ticket that is unknown,
used, expired or for another avatar, 403 \`not-owner\` for someone else's avatar, 404 \`not-found\` for an unknown one.`

/** A response as a stream's sink: written until the client has left too much unread. */
function sinkOf(raw: import('node:http').ServerResponse): StreamSink {
  return {
    write: (text) => {
      if (raw.destroyed || raw.writableEnded) return false
      raw.write(text)
      return raw.writableLength <= STREAM_MAX_BUFFERED_BYTES
    },
    end: () => {
      if (!raw.writableEnded) raw.end()
    },
  }
}

// Open streams end with the server: the live module's `preClose` (index.ts) closes them.
export const streamRoutes: FastifyPluginAsyncTypebox<{ app: StreamApp }> = async (f, { app }) => {
  f.post('/avatars/:id/stream-tickets', {
    schema: {
      tags, operationId: 'createStreamTicket', summary: "Get a single-use ticket to open an avatar's stream (owner only)",
      description: "For `EventSource`, which cannot send the Authorization header: pass it as `?ticket=` to …/stream, once, within " +
        `${STREAM_TICKET_TTL_SECONDS} s. The stream it opens ends when the access token that asked for it expires or is revoked. ` +
        "Only the avatar's owner may ask: 403 `not-owner` for anyone else, 404 `not-found` for an unknown avatar.",
      params: AvatarParams, response: { 201: StreamTicketView, ...problemResponses(401, 403, 404) },
    },
  }, async (req, reply) => reply.code(201).send(await app.issueTicket(req.principal, req.params.id)))

  f.get('/avatars/:id/stream', {
    config: streamConfig,
    schema: { tags, operationId: 'openAvatarStream', summary: "Follow an avatar's live events as server-sent events (owner only)",
      description: STREAM_DESCRIPTION, params: AvatarParams, querystring: StreamQuery,
      response: { 200: { description: 'text/event-stream', content: { 'text/event-stream': { schema: { type: 'string' } } } }, ...problemResponses(400, 401, 403, 404) } },
  }, async (req, reply) => {
    const principal = (req as { principal?: Principal }).principal
    const { ticket } = req.query
    if (!principal && !ticket) throw new Unauthorized('Send an access token as Authorization: Bearer <token>, or a stream ticket as ?ticket=.')
    const grant = await app.grant(principal ? { principal } : { ticket: ticket! }, req.params.id)
    const lastEventId = (req.headers['last-event-id'] as string | undefined) ?? req.query.lastEventId
    reply.hijack()
    const raw = reply.raw
    raw.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache, no-transform', 'x-accel-buffering': 'no' })
    raw.flushHeaders()
    try {
      const close = await app.open(grant, lastEventId, sinkOf(raw))
      raw.on('close', close)
      if (raw.destroyed) close()
    } catch (e) {
      // The response has begun: no problem+json can follow. The client reconnects from where it was.
      req.log.warn({ err: e }, 'stream could not start')
      raw.end()
    }
  })
}
