import * as rules from '../domain/avatar.js'
import type { Avatar } from '../domain/avatar.js'

/**
 * A habit's window that ended without its completion, as tracking reports it: local dates, the end
 * exclusive, so `windowEnd` is the day the window ended and its penalty falls on.
 */
export interface MissedWindow {
  habitId: string
  questId: string | null
  windowStart: string
  windowEnd: string
  /** The window's nominal penalty. */
  damage: number
}

/** What other contexts judge of an avatar (a purchase, a fight): `AvatarProfile` in the port. */
export interface AvatarProfile {
  ownerId: string
  /** The avatar's public name. */
  name: string
  level: number
  attack: number
  defense: number
  health: number
  maxHealth: number
  deaths: number
  /** Those of the keyed calls asked about that the avatar has taken. */
  taken: string[]
}

export const profileOf = (a: Avatar, taken: string[]): AvatarProfile => ({
  ownerId: a.ownerId, name: a.name, level: a.level, attack: rules.effectiveAttack(a), defense: rules.effectiveDefense(a), health: a.health, maxHealth: a.maxHealth,
  deaths: a.deaths, taken,
})

