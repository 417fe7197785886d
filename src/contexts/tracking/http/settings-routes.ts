import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { problemResponses } from '../../../platform/http/schemas.js'
import type { HabitCommands } from '../app/habit-commands.js'
import type { HabitQueries } from '../app/habit-queries.js'
import { DAY_START_HOUR_MAX, VACATION_MAX_DAYS } from '../domain/rules.js'
import { AvatarParams, SettingsBody, SettingsView } from './schemas.js'

const tags = ['habits']
const OWNER_ONLY = "Only the avatar's owner (or a service or admin token): 403 `not-owner` otherwise; an unknown avatar is 404 `not-found`."

/** An avatar's day settings: served by tracking, whose windows they shape (DESIGN §9.3). */
export const settingsRoutes: FastifyPluginAsyncTypebox<{ commands: HabitCommands; queries: HabitQueries }> = async (f, { commands, queries }) => {
  f.get('/avatars/:id/settings', {
    schema: {
      tags,
      operationId: 'getAvatarSettings',
      summary: "An avatar's day settings: time zone, day start hour, vacation",
      description: `The settings now (UTC, midnight and no vacation until changed); they shape the windows of its habits. ${OWNER_ONLY}`,
      params: AvatarParams,
      response: { 200: SettingsView, ...problemResponses(400, 401, 403, 404) },
    },
  }, async (req) => queries.settings(req.principal, req.params.id))

  f.patch('/avatars/:id/settings', {
    schema: {
      tags,
      operationId: 'updateAvatarSettings',
      summary: "Change an avatar's day settings from tomorrow on",
      description: 'A change governs the windows that start after today (a window under way keeps the settings it began with); ' +
        'the reminders of its habits move with their days, and a vacation\'s windows are not due. Fields left out keep their value. ' +
        `Refused with 400 \`invalid-time-zone\` for a zone that is not IANA, 400 \`invalid-day-start-hour\` outside 0–${DAY_START_HOUR_MAX}, ` +
        `and 400 \`invalid-vacation\` for one that ends before it starts or lasts more than ${VACATION_MAX_DAYS} days. ${OWNER_ONLY}`,
      params: AvatarParams, body: SettingsBody, response: { 200: SettingsView, ...problemResponses(400, 401, 403, 404) },
    },
  }, async (req) => commands.changeSettings(req.principal, req.params.id, req.body))
}
