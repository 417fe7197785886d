/** The experience board (DESIGN §9.5): every avatar by total experience, the top or the ranks around one. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { AvatarIdString, problemResponses } from '../../../platform/http/schemas.js'
import type { AvatarApp } from '../app/avatar-app.js'
import { EXPERIENCE_BOARD_LIMIT_DEFAULT, EXPERIENCE_BOARD_LIMIT_MAX } from '../domain/rules.js'

const BoardQuery = Type.Object({
  around: Type.Optional(AvatarIdString()),
  limit: Type.Integer({ minimum: 1, maximum: EXPERIENCE_BOARD_LIMIT_MAX, default: EXPERIENCE_BOARD_LIMIT_DEFAULT }),
})

const BoardEntryView = Type.Object({
  rank: Type.Integer({ minimum: 1, description: '1 for the most total experience; no two avatars share a rank' }),
  avatarId: Type.String(),
  name: Type.String(),
  level: Type.Integer({ minimum: 1 }),
  experience: Type.Integer({ minimum: 0, description: 'Total experience: every level left plus the experience within this one' }),
})

const BoardView = Type.Object({
  items: Type.Array(BoardEntryView),
  total: Type.Integer({ minimum: 0, description: 'Avatars on the board' }),
}, { examples: [{ items: [{ rank: 41, avatarId: 'ada-ranger', name: 'Ada the Ranger', level: 7, experience: 1720 }], total: 1234 }] })

export const boardRoutes: FastifyPluginAsyncTypebox<{ app: AvatarApp }> = async (f, { app }) => {
  f.get('/leaderboards/experience', {
    schema: {
      tags: ['leagues'],
      operationId: 'getExperienceBoard',
      summary: 'The all-time experience board: the top, or the ranks around an avatar',
      description: 'Every avatar by total experience (the experience every level left consumed plus the experience within its level), ' +
        'most first; equal totals rank by who reached theirs first, then by avatar id, so ranks run 1..n without ties. Without ' +
        '`around`, the first `limit` ranks; with it, the `limit` ranks centred on that avatar, shifted at either end of the board so ' +
        'the page still holds `limit` entries when the board has that many. `total` counts the avatars on the board. Any ' +
        `signed-in player may read it. \`limit\` is 1–${EXPERIENCE_BOARD_LIMIT_MAX} (default ${EXPERIENCE_BOARD_LIMIT_DEFAULT}; 400 \`validation\` ` +
        'beyond); an unknown `around` avatar is 404 `not-found`.',
      querystring: BoardQuery,
      response: { 200: BoardView, ...problemResponses(400, 401, 404) },
    },
  }, async (req) => app.experienceBoard(req.query.limit, req.query.around))
}
