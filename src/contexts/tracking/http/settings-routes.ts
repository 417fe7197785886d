import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { problemResponses } from '../../../platform/http/schemas.js'
import type { TrackingApp } from '../app/tracking-app.js'
import { AvatarParams, SettingsBody, SettingsView } from './schemas.js'

const tags = ['habits']

/** An avatar's day settings: served by tracking, whose windows they shape (DESIGN §9.3). */
export const settingsRoutes: FastifyPluginAsyncTypebox<{ app: TrackingApp }> = async (f, { app }) => {
  f.get('/avatars/:id/settings', {
    schema: { tags, summary: "An avatar's day settings: time zone, day start hour, vacation (its owner only)", params: AvatarParams,
      response: { 200: SettingsView, ...problemResponses(400, 401, 403, 404) } },
  }, async (req) => app.settings(req.principal, req.params.id))

  f.patch('/avatars/:id/settings', {
    schema: { tags,
      summary: 'Change day settings; a change governs the windows that start after today (a window under way keeps the settings it began with)',
      params: AvatarParams, body: SettingsBody, response: { 200: SettingsView, ...problemResponses(400, 401, 403, 404) } },
  }, async (req) => app.changeSettings(req.principal, req.params.id, req.body))
}
