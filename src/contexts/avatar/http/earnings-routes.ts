/**
 * What an avatar earned over a span, for the tracking context's reports when it runs as a separate
 * process (the HTTP adapter of the avatar port, client.ts): services only. Players read it in
 * `GET /api/v1/avatars/{id}/report`.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { BadRequest } from '../../../platform/errors.js'
import { problemResponses } from '../../../platform/http/schemas.js'
import type { AvatarApp } from '../app/avatar-app.js'
import { AvatarIdParams } from './schemas.js'

/** A year 0001–9999, as four digits. */
const YEAR = '([0-9]{3}[1-9]|[0-9]{2}[1-9][0-9]|[0-9][1-9][0-9]{2}|[1-9][0-9]{3})'
/**
 * An instant in UTC as `Date.prototype.toISOString` writes it (the port's adapter sends them so), in
 * the years the database holds; the format checks the day is the calendar's.
 */
const Instant = (description: string) => Type.String({
  format: 'date-time',
  pattern: `^${YEAR}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\\.[0-9]{1,3})?Z$`,
  description,
})
const EarningsQuery = Type.Object({
  from: Instant('First instant, UTC (the sum takes the buckets that start from it on)'),
  to: Instant('The instant after the last, UTC'),
})
const EarningsView = Type.Object({
  experience: Type.Integer({ minimum: 0 }),
  money: Type.Integer({ minimum: 0 }),
})

export const earningsRoutes: FastifyPluginAsyncTypebox<{ app: AvatarApp }> = async (f, { app }) => {
  f.get('/avatars/:id/earnings', {
    schema: {
      tags: ['service'],
      operationId: 'serviceGetAvatarEarnings',
      summary: 'Experience and money the avatar earned in [from, to) (services only)',
      description: 'What the avatar earned from any source, summed by quarter hour (reports ask for whole days); spending does not ' +
        'count against it. An unknown avatar earned nothing. Refused with 403 `service-only` for a player token (players read it in ' +
        'GET /api/v1/avatars/{id}/report), 400 `validation` for an instant that is not a real one in the years 1–9999, and 400 `invalid-span` when ' +
        '`to` is before `from`.',
      params: AvatarIdParams, querystring: EarningsQuery, response: { 200: EarningsView, ...problemResponses(400, 401, 403) },
    },
  }, async (req) => {
    const from = new Date(req.query.from)
    const to = new Date(req.query.to)
    if (to < from) throw new BadRequest('The span ends before it starts.', 'invalid-span', [{ path: '/to', message: 'must not be before from' }])
    return app.earnings(req.principal, req.params.id, from, to)
  })
}
