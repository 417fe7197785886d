/**
 * Weekly leagues (DESIGN §9.5): the season a moment falls in (an ISO week, Monday 00:00 UTC to the
 * next), and how a division's week ends: ranks, who goes up or down a tier, and what each is paid.
 */
import {
  DEMOTED_PER_DIVISION, LEAGUE_OUTCOMES, LEAGUE_REWARDS, LEAGUE_TIERS, NO_DEMOTION_AT_OR_BELOW, PROMOTED_PER_DIVISION,
} from './rules.js'

export type Tier = (typeof LEAGUE_TIERS)[number]
export type LeagueOutcome = (typeof LEAGUE_OUTCOMES)[number]

export const FIRST_TIER: Tier = LEAGUE_TIERS[0]

export interface Season {
  /** The ISO week, e.g. `2026-W48`. */
  id: string
  startsAt: Date
  endsAt: Date
}

const DAY_MS = 86_400_000
const WEEK_MS = 7 * DAY_MS

/** The season holding `at`: its ISO week, from its Monday 00:00 UTC to the next. */
export function seasonAt(at: Date): Season {
  const midnight = Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate())
  const weekday = (new Date(midnight).getUTCDay() + 6) % 7 // Monday 0 … Sunday 6
  const startsAt = new Date(midnight - weekday * DAY_MS)
  // The ISO week-year is the year of the week's Thursday; week 1 holds that year's first Thursday.
  const thursday = new Date(startsAt.getTime() + 3 * DAY_MS)
  const year = thursday.getUTCFullYear()
  const week = Math.floor((thursday.getTime() - Date.UTC(year, 0, 1)) / WEEK_MS) + 1
  return { id: `${year}-W${String(week).padStart(2, '0')}`, startsAt, endsAt: new Date(startsAt.getTime() + WEEK_MS) }
}

/** The season a season id names, or undefined for one that is not a real ISO week. */
export function seasonOf(id: string): Season | undefined {
  const m = /^(\d{4})-W(\d{2})$/.exec(id)
  if (!m) return undefined
  const jan4 = new Date(Date.UTC(Number(m[1]), 0, 4)) // always in week 1
  const season = seasonAt(new Date(seasonAt(jan4).startsAt.getTime() + (Number(m[2]) - 1) * WEEK_MS))
  return season.id === id ? season : undefined
}

export interface Standing {
  avatarId: string
  score: number
  /** When the avatar reached its score: of equal scores, the earlier ranks higher. */
  reachedAt: Date
}

/** Standings best first: by score, then by who reached it first (then by id, so every replica agrees). */
export function ranked<S extends Standing>(standings: S[]): (S & { rank: number })[] {
  return [...standings]
    .sort((x, y) => y.score - x.score || x.reachedAt.getTime() - y.reachedAt.getTime() || (x.avatarId < y.avatarId ? -1 : x.avatarId > y.avatarId ? 1 : 0))
    .map((s, i) => ({ ...s, rank: i + 1 }))
}

const tierIndex = (t: Tier) => LEAGUE_TIERS.indexOf(t)

/** The last rank promoted in a division of `tier`, or null when nobody goes up (the highest tier). */
export function promotionRank(tier: Tier): number | null {
  return tierIndex(tier) === LEAGUE_TIERS.length - 1 ? null : PROMOTED_PER_DIVISION
}

/** The first rank demoted in a division of `tier` with `members`, or null when nobody goes down. */
export function demotionRank(tier: Tier, members: number): number | null {
  if (tierIndex(tier) === 0 || members <= NO_DEMOTION_AT_OR_BELOW) return null
  // Never into the promoted ranks (members > 12 leaves room for 7 up and 5 down).
  return Math.max(members - DEMOTED_PER_DIVISION + 1, PROMOTED_PER_DIVISION + 1)
}

export interface DivisionResult {
  avatarId: string
  rank: number
  score: number
  outcome: LeagueOutcome
  /** The tier for the next week. */
  nextTier: Tier
  reward: number
}

/** How a division of `tier` ends: every member's rank, outcome, next tier and reward. */
export function closeDivision(tier: Tier, standings: Standing[]): DivisionResult[] {
  const up = promotionRank(tier)
  const down = demotionRank(tier, standings.length)
  return ranked(standings).map(({ avatarId, rank, score }) => {
    const outcome: LeagueOutcome = up !== null && rank <= up ? 'PROMOTED' : down !== null && rank >= down ? 'DEMOTED' : 'STAYED'
    const step = outcome === 'PROMOTED' ? 1 : outcome === 'DEMOTED' ? -1 : 0
    return { avatarId, rank, score, outcome, nextTier: LEAGUE_TIERS[tierIndex(tier) + step]!, reward: LEAGUE_REWARDS[rank - 1] ?? 0 }
  })
}

export const isTier = (s: string): s is Tier => (LEAGUE_TIERS as readonly string[]).includes(s)
