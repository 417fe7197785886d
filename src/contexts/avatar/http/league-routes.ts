/** Weekly leagues (DESIGN §9.5): an avatar's division this week and its past seasons. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { problemResponses } from '../../../platform/http/schemas.js'
import type { LeagueApp } from '../app/league-app.js'
import {
  DEMOTED_PER_DIVISION, DIVISION_SIZE, LEAGUE_REWARDS, NO_DEMOTION_AT_OR_BELOW, PROMOTED_PER_DIVISION,
} from '../domain/rules.js'
import { READABLE } from './docs.js'
import { HistoryQuery, HistoryView, LeagueView } from './league-schemas.js'
import { AvatarIdParams } from './schemas.js'

const tags = ['leagues']

const RULES = `A season is an ISO week from Monday 00:00 UTC. The score is experience gained in the season from play (habits, quests, ` +
  `battles), never from grants or imports. Divisions hold ${DIVISION_SIZE} avatars of one tier. At the season's end the top ` +
  `${PROMOTED_PER_DIVISION} go up a tier and the bottom ${DEMOTED_PER_DIVISION} down (nobody in a division of ${NO_DEMOTION_AT_OR_BELOW} or ` +
  `fewer); ranks 1–3 earn ${LEAGUE_REWARDS.join('/')} money.`

export const leagueRoutes: FastifyPluginAsyncTypebox<{ leagues: LeagueApp }> = async (f, { leagues }) => {
  f.get('/avatars/:id/league', {
    schema: {
      tags, operationId: 'getAvatarLeague', summary: "The avatar's league this week: its tier and division",
      description: `${RULES} ${READABLE}`,
      params: AvatarIdParams, response: { 200: LeagueView, ...problemResponses(400, 401, 404) },
    },
  }, async (req) => {
    const view = await leagues.league(req.params.id)
    return { ...view, season: { id: view.season.id, startsAt: view.season.startsAt.toISOString(), endsAt: view.season.endsAt.toISOString() } }
  })

  f.get('/avatars/:id/league/history', {
    schema: {
      tags, operationId: 'getAvatarLeagueHistory', summary: "The avatar's past league seasons, newest first",
      description: `Each closed season the avatar played: tier, rank, score, result and reward, in pages of \`limit\` (\`next\` names ` +
        `the following page). A cursor that names no season of this history is 400 \`invalid-cursor\`. ${READABLE}`,
      params: AvatarIdParams, querystring: HistoryQuery, response: { 200: HistoryView, ...problemResponses(400, 401, 404) },
    },
  }, async (req) => leagues.history(req.params.id, req.query))
}
