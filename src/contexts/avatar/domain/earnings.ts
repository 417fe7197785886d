/**
 * What an avatar earned by a change: experience gained (across levels) and money gained, from any
 * source (play, earn and grant calls, a level's reward, a sale). A change that takes some away
 * (spending, dying) earned nothing; it never counts against earlier earnings.
 */
import type { Avatar } from './avatar.js'
import { EARNINGS_BUCKET_MINUTES, EXPERIENCE_BASE, EXPERIENCE_PER_LEVEL } from './rules.js'

export interface Earned {
  experience: number
  money: number
}

export const NOTHING_EARNED: Earned = Object.freeze({ experience: 0, money: 0 })

/** Experience gathered since level 1: every level left (experienceRequired(l) = 50·l + 50 each) plus the current level's. */
export function lifetimeExperience(a: Pick<Avatar, 'level' | 'experience'>): number {
  const left = a.level - 1
  return (EXPERIENCE_PER_LEVEL * left * (left + 1)) / 2 + EXPERIENCE_BASE * left + a.experience
}

/** What going from `before` to `after` earned. */
export function earnedBetween(before: Avatar, after: Avatar): Earned {
  return {
    experience: Math.max(0, lifetimeExperience(after) - lifetimeExperience(before)),
    money: Math.max(0, after.money - before.money),
  }
}

export const addEarned = (x: Earned, y: Earned): Earned => ({ experience: x.experience + y.experience, money: x.money + y.money })

export const earnedAnything = (e: Earned): boolean => e.experience > 0 || e.money > 0

const BUCKET_MS = EARNINGS_BUCKET_MINUTES * 60_000

/** The start of the bucket holding `at`. */
export const earningsBucket = (at: Date): Date => new Date(Math.floor(at.getTime() / BUCKET_MS) * BUCKET_MS)
