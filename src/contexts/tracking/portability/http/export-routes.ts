/**
 * Routes the edge calls to export a player's data when tracking runs as its own process (the HTTP
 * adapter of the tracking port's export methods, client.ts). Services only: the edge has checked
 * whose data it is.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { requireTrusted } from '../../../../platform/auth/principal.js'
import { AvatarIdString, problemResponses, StringEnum } from '../../../../platform/http/schemas.js'
import { HabitIdParams } from '../../http/schemas.js'
import type { TrackingExport } from '../app/export-app.js'
import { EXPORT_HABITS_PAGE, EXPORT_HISTORY_PAGE } from '../domain/rules.js'
import { HabitExportPage, HISTORY_KINDS, HistoryExportPage, SettingsExport } from './export-schemas.js'

const tags = ['service']
const AvatarPath = Type.Object({ id: AvatarIdString() })
const HabitsQuery = Type.Object({
  limit: Type.Integer({ minimum: 1, maximum: EXPORT_HABITS_PAGE, default: EXPORT_HABITS_PAGE }),
  cursor: Type.Optional(Type.String({ format: 'uuid' })),
})
const HistoryQuery = Type.Object({
  kind: StringEnum(HISTORY_KINDS),
  limit: Type.Integer({ minimum: 1, maximum: EXPORT_HISTORY_PAGE, default: EXPORT_HISTORY_PAGE }),
  after: Type.Optional(Type.String({ format: 'date', description: 'The `next` of the page before' })),
})
const ONLY_SERVICES = 'Only services read exports; players use GET /api/v1/me/export.'
/** What the three routes' descriptions say of who may call them. */
const FOR_THE_EDGE = 'The edge asks for it, having checked whose data it is. A player token is 403 `service-only` ' +
  '(players use GET /api/v1/me/export).'

export const trackingExportRoutes: FastifyPluginAsyncTypebox<{ exports: TrackingExport }> = async (f, { exports }) => {
  f.get('/exports/tracking/avatars/:id/settings', {
    schema: {
      tags, operationId: 'serviceExportAvatarSettings', summary: "An avatar's day settings, for its owner's export (services only)",
      description: `The settings now (the defaults until changed). ${FOR_THE_EDGE}`,
      params: AvatarPath, response: { 200: SettingsExport, ...problemResponses(400, 401, 403) },
    },
  }, async (req) => {
    requireTrusted(req.principal, ONLY_SERVICES)
    return exports.settings(req.params.id)
  })

  f.get('/exports/tracking/avatars/:id/habits', {
    schema: {
      tags, operationId: 'serviceExportHabits', summary: "A page of an avatar's habits, for its owner's export (services only)",
      description: `Oldest first, \`limit\` at most ${EXPORT_HABITS_PAGE}; \`next\` is the cursor of the page after. A cursor that names ` +
        `no habit of the avatar is 400 \`invalid-cursor\`. ${FOR_THE_EDGE}`,
      params: AvatarPath, querystring: HabitsQuery, response: { 200: HabitExportPage, ...problemResponses(400, 401, 403) },
    },
  }, async (req) => {
    requireTrusted(req.principal, ONLY_SERVICES)
    return exports.habits(req.params.id, req.query.cursor, req.query.limit)
  })

  f.get('/exports/tracking/habits/:id/history', {
    schema: {
      tags, operationId: 'serviceExportHabitHistory', summary: "A page of a habit's history of one kind (services only)",
      description: "A page of a habit's history of one kind (completions, missed and not-due windows, or frozen ones), oldest first, " +
        `for its owner's export; \`limit\` at most ${EXPORT_HISTORY_PAGE}, \`next\` the \`after\` of the page after. ${FOR_THE_EDGE}`,
      params: HabitIdParams, querystring: HistoryQuery, response: { 200: HistoryExportPage, ...problemResponses(400, 401, 403) },
    },
  }, async (req) => {
    requireTrusted(req.principal, ONLY_SERVICES)
    return exports.history(req.params.id, req.query.kind, req.query.after, req.query.limit)
  })
}
