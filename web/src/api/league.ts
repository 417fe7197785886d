/** Weekly leagues: an avatar's division this week and its past seasons (DESIGN §9.5). */
import { api, dataOf } from './client'

const byId = (id: string) => ({ params: { path: { id } } })

export const getLeague = (avatarId: string) => dataOf(api.GET('/api/v1/avatars/{id}/league', byId(avatarId)))
export type League = Awaited<ReturnType<typeof getLeague>>
export type DivisionMember = NonNullable<League['division']>['members'][number]

export const getLeagueHistory = (avatarId: string, limit = 10) =>
  dataOf(api.GET('/api/v1/avatars/{id}/league/history', { params: { path: { id: avatarId }, query: { limit } } })).then((r) => r.items)
export type LeagueSeason = Awaited<ReturnType<typeof getLeagueHistory>>[number]
