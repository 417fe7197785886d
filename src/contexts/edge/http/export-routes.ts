/**
 * The player's data out (DESIGN §9.4): `GET /api/v1/me/export` streams the token's own account as
 * one JSON document, and `GET /schemas/export-v1.json` (no token) publishes that document's JSON
 * Schema. Served by the edge in both shapes (split: the gateway process).
 */
import { Readable } from 'node:stream'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import type { AccessTokens } from '../../../platform/auth/tokens.js'
import { requireToken } from '../../../platform/http/auth-guard.js'
import { problemResponses } from '../../../platform/http/schemas.js'
import type { ExportApp } from '../app/export-app.js'
import { EXPORT_SCHEMA_PATH } from '../domain/rules.js'
import { exportJsonSchema } from './export-schema.js'

const ExportResponse = Type.Unsafe<unknown>({
  type: 'object',
  description: `The export document, streamed as it is written; its JSON Schema: ${EXPORT_SCHEMA_PATH}`,
})

export const exportRoutes: FastifyPluginAsyncTypebox<{ app: ExportApp; tokens: AccessTokens }> = async (f, { app, tokens }) => {
  // Made once: the parts' schemas do not change while the process runs.
  const published = JSON.stringify(exportJsonSchema())

  f.get('/api/v1/me/export', {
    onRequest: requireToken(tokens),
    schema: {
      tags: ['account'],
      operationId: 'exportAccount',
      summary: "Export everything held of the caller's account as one JSON document",
      description: 'The account (name, email) and every avatar of it: the avatar, its settings, each habit with its whole history ' +
        '(completions, missed, frozen and not-due windows), quests created and joined, guild membership, purchases, sales and notifications. ' +
        `Its schema: ${EXPORT_SCHEMA_PATH}. POST /api/v1/avatars/{id}/import reads its habits back. ` +
        'Only the caller\'s own account; the document is streamed as it is written, as an attachment. Refused with 404 `not-found` ' +
        'when the token\'s account is gone (or a service token, which has none); 502 `upstream-unreachable` or `upstream-error` ' +
        '(503 `service-unavailable` when the database is down) when part of it cannot be read before the first byte; a failure later cuts the stream short, ' +
        'so a client checks that the document is whole JSON.',
      security: [{ bearer: [] }],
      response: { 200: ExportResponse, ...problemResponses(401, 404, 502, 503) },
    },
  }, async (req, reply) => {
    // Read before the first byte: a failure here is still a problem answer; later ones cut the stream short.
    const opened = await app.open(req.principal)
    const day = opened.exportedAt.toISOString().slice(0, 10)
    reply.type('application/json; charset=utf-8').header('content-disposition', `attachment; filename="questline-export-${day}.json"`)
    return reply.send(Readable.from(app.write(opened)))
  })

  f.get(EXPORT_SCHEMA_PATH, {
    schema: {
      tags: ['account'],
      operationId: 'getExportSchema',
      summary: 'The JSON Schema of the export document (no token)',
      description: 'No token needed. The JSON Schema (draft-07) that every document of GET /api/v1/me/export, ' +
        'version 1, satisfies; never refused.',
      security: [],
    },
  }, async (_req, reply) => reply.type('application/schema+json').send(published))
}
