/**
 * The weekly leagues' shapes (DESIGN §9.5): the week's division, the past seasons, and the leagues'
 * part of a player's export (DESIGN §9.4), which the edge composes into the document (through client.ts).
 */
import { Type, type Static } from 'typebox'
import { Nullable, StringEnum } from '../../../platform/http/schemas.js'
import { LEAGUE_HISTORY_DEFAULT_LIMIT, LEAGUE_HISTORY_MAX_LIMIT, LEAGUE_OUTCOMES, LEAGUE_TIERS } from '../domain/rules.js'
import type { LeagueExportRecord } from '../app/league-app.js'

const Tier = StringEnum(LEAGUE_TIERS)
const Outcome = StringEnum(LEAGUE_OUTCOMES)
const SeasonId = Type.String({ pattern: '^[0-9]{4}-W[0-9]{2}$', description: 'The ISO week, e.g. `2026-W48`' })

export const LeagueView = Type.Object({
  season: Type.Object({
    id: SeasonId,
    startsAt: Type.String({ format: 'date-time', description: 'Monday 00:00 UTC' }),
    endsAt: Type.String({ format: 'date-time', description: 'The next Monday 00:00 UTC' }),
  }),
  tier: Tier,
  waiting: Type.Boolean({
    description: 'True when the avatar has scored this week but its last week is still to close: the season-end job (every few ' +
      'minutes) then places it in the tier that week set',
  }),
  division: Nullable(Type.Object({
    id: Type.String(),
    members: Type.Array(Type.Object({
      avatarId: Type.String(), name: Type.String(), score: Type.Integer({ minimum: 0 }), rank: Type.Integer({ minimum: 1 }),
    }), { description: 'Best first: by score, then by who reached it first' }),
  }, { description: 'Null before the avatar\'s first scored experience of the week, and while it is `waiting`' })),
  promotionRank: Nullable(Type.Integer({ minimum: 1, description: 'The last rank promoted (null in the highest tier)' })),
  demotionRank: Nullable(Type.Integer({ minimum: 1, description: 'The first rank demoted, or null when nobody would be' })),
})

export const HistoryQuery = Type.Object({
  limit: Type.Integer({ minimum: 1, maximum: LEAGUE_HISTORY_MAX_LIMIT, default: LEAGUE_HISTORY_DEFAULT_LIMIT }),
  cursor: Type.Optional(Type.String({ maxLength: 16, description: 'The `next` of the previous page' })),
})

const SeasonResult = {
  season: SeasonId, tier: Tier, rank: Type.Integer({ minimum: 1 }), score: Type.Integer({ minimum: 0 }), result: Outcome,
  reward: Type.Integer({ minimum: 0 }),
}

export const HistoryView = Type.Object({ items: Type.Array(Type.Object(SeasonResult)), next: Nullable(Type.String()) })

export const LeagueExport = Type.Object({
  tier: { ...Tier, description: 'The tier the avatar plays its next season in' },
  entries: Type.Array(Type.Object({
    season: SeasonId, tier: Tier, division: Type.Integer({ minimum: 1 }), score: Type.Integer({ minimum: 0 }),
    reachedAt: Type.String({ format: 'date-time', description: 'When the score was reached (ties go to who reached it first)' }),
  }), { description: 'Each season the avatar scored in, oldest first' }),
  results: Type.Array(Type.Object({ ...SeasonResult, division: Type.Integer({ minimum: 1 }) }), { description: 'Each closed season, oldest first' }),
}, { description: "The avatar's weekly leagues" })
export type LeagueExport = Static<typeof LeagueExport>

export const leagueExport = (r: LeagueExportRecord): LeagueExport => ({
  tier: r.tier,
  entries: r.entries.map((e) => ({ ...e, reachedAt: e.reachedAt.toISOString() })),
  results: r.results,
})
