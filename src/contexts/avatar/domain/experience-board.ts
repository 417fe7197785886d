/** The experience board's pure rules (DESIGN §9.5): what an avatar's total is, and which ranks a page shows. */
import { EXPERIENCE_BASE, EXPERIENCE_PER_LEVEL, STARTING_AVATAR } from './rules.js'

/**
 * All the experience an avatar ever kept: what every level below its own consumed
 * (experienceRequired summed over levels 1..level-1) plus the experience within its level. In
 * closed form, Σ_{l=1}^{L-1} (PER_LEVEL·l + BASE) = PER_LEVEL·(L-1)·L/2 + BASE·(L-1).
 */
export function totalExperience(level: number, experience: number): number {
  const below = level - STARTING_AVATAR.level
  return (EXPERIENCE_PER_LEVEL * below * (below + 1)) / 2 + EXPERIENCE_BASE * below + experience
}

/** The ranks a page shows, first and last inclusive (none when the board is empty: last < first). */
export interface BoardWindow {
  first: number
  last: number
}

/**
 * The `limit` ranks centred on `rank` on a board of `total` avatars, shifted at either end so the
 * page still holds `limit` entries when the board has them.
 */
export function windowAround(rank: number, total: number, limit: number): BoardWindow {
  const size = Math.min(limit, total)
  const centred = rank - Math.floor((size - 1) / 2)
  const first = Math.max(1, Math.min(centred, total - size + 1))
  return { first, last: first + size - 1 }
}

/** The first `limit` ranks. */
export const windowAtTop = (total: number, limit: number): BoardWindow => ({ first: 1, last: Math.min(limit, total) })
