import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import { BadRequest } from '../../../../platform/errors.js'
import { NoContent, noContent, problemResponses } from '../../../../platform/http/schemas.js'
import type { CalendarApp } from '../app/calendar-app.js'
import { CALENDAR_CACHE_SECONDS, CALENDAR_HABITS_MAX } from '../domain/rules.js'

const tags = ['account']
const PLAYERS_ONLY = 'A feed is a player account\'s: a service token is 403 `forbidden`.'
const ICALENDAR = 'text/calendar; charset=utf-8'
export const feedPath = (secret: string) => `/calendar/${secret}.ics`

const FeedAddress = Type.Object({
  url: Type.String({ description: 'The feed\'s secret address (absolute): subscribe to it in a calendar app; it answers without a token until replaced or revoked' }),
})
/** A feed's secret as the path carries it: any text is looked up (and found or not), so none is refused for its shape. */
const FeedParams = Type.Object({ secret: Type.String({ minLength: 1, maxLength: 128 }) })

const HOST = /^[A-Za-z0-9.-]+(:\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](:\d{1,5})?$/
/** The first value of a header a chain of proxies may have listed several of. */
const firstOf = (header: string | string[] | undefined) => (Array.isArray(header) ? header[0] : header)?.split(',')[0]?.trim()

/**
 * Where the client reached this server: the proxy's `X-Forwarded-Host` and `X-Forwarded-Proto` when
 * given (the gateway sets them, split), else the Host header and the connection's protocol. A
 * forged header only changes the address answered to the one who sent it.
 */
function origin(req: FastifyRequest): string {
  const forwardedHost = firstOf(req.headers['x-forwarded-host'])
  const host = forwardedHost && HOST.test(forwardedHost) ? forwardedHost : req.headers.host
  if (!host || !HOST.test(host)) {
    throw new BadRequest('The Host header must name this server (a name or address and port).', 'invalid-host', [{ path: 'headers/host', message: 'must be a host name or address, with an optional port' }])
  }
  const forwardedProto = firstOf(req.headers['x-forwarded-proto'])?.toLowerCase()
  const proto = forwardedProto === 'https' || forwardedProto === 'http' ? forwardedProto : req.protocol
  return `${proto}://${host}`
}

/** Making and revoking the caller's feed address (under /api/v1, with the caller's token). */
export const calendarRoutes: FastifyPluginAsyncTypebox<{ app: CalendarApp }> = async (f, { app }) => {
  f.post('/me/calendar', {
    schema: {
      tags,
      operationId: 'createCalendarFeed',
      summary: "Make a new secret address for the caller's calendar feed",
      description: "A new secret address for the caller's calendar feed (201 the first, 200 a replacement); the one before stops " +
        'answering at once. The secret is shown only in this answer. The address is made from the Host (or X-Forwarded-Host) ' +
        `header: 400 \`invalid-host\` when it names no server. ${PLAYERS_ONLY}`,
      response: { 200: FeedAddress, 201: FeedAddress, ...problemResponses(400, 401, 403) },
    },
  }, async (req, reply) => {
    const base = origin(req)
    const { secret, created } = await app.rotate(req.principal)
    return reply.code(created ? 201 : 200).send({ url: `${base}${feedPath(secret)}` })
  })

  f.delete('/me/calendar', {
    schema: {
      tags,
      operationId: 'deleteCalendarFeed',
      summary: "Revoke the caller's calendar feed: its address stops answering",
      description: `Answers 204 also when there was none. ${PLAYERS_ONLY}`,
      response: { 204: NoContent, ...problemResponses(401, 403) },
    },
  }, async (req, reply) => {
    await app.revoke(req.principal)
    return noContent(reply)
  })
}

/** The feed itself, outside /api/v1: a calendar app fetches it with no token, the secret in its address. */
export const calendarFeedRoutes: FastifyPluginAsyncTypebox<{ app: CalendarApp }> = async (f, { app }) => {
  f.get('/calendar/:secret.ics', {
    schema: {
      tags,
      operationId: 'getCalendarFeed',
      summary: "An account's habits as an iCalendar feed (RFC 5545)",
      description: 'No token: the secret address is the key. The habits of every avatar of the account (at most ' +
        `${CALENDAR_HABITS_MAX}) as recurring events; cached privately for ${CALENDAR_CACHE_SECONDS} seconds. An address never ` +
        'made, replaced or revoked is 404 `not-found` alike, so the answer tells nothing of whether it once worked.',
      security: [],
      params: FeedParams,
      response: { 200: { description: 'text/calendar', content: { 'text/calendar': { schema: { type: 'string' } } } }, ...problemResponses(404) },
    },
  }, async (req, reply) => {
    const text = await app.feed(req.params.secret)
    return reply.type(ICALENDAR)
      // The address is a secret: no shared cache keeps it, and a revocation reaches a client within this.
      .header('cache-control', `private, max-age=${CALENDAR_CACHE_SECONDS}`)
      .header('content-disposition', 'inline; filename="questline.ics"')
      .send(text)
  })
}
