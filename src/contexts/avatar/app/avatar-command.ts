import { isTrusted, type Principal } from '../../../platform/auth/principal.js'
import type { Clock } from '../../../platform/clock.js'
import { NotOwner } from '../../../platform/errors.js'
import type { BatchedCommand, Decision, KeyedCall } from '../../../platform/writer/decisions.js'
import type * as rules from '../domain/avatar.js'
import type { Avatar } from '../domain/avatar.js'
import { earnedAnything, earnedBetween, earningsBucket } from '../domain/earnings.js'
import { seasonAt } from '../domain/league.js'
import type { AvatarDraft } from '../../../contracts/events/avatar.js'
import type { AvatarParts } from '../store/avatar-aggregate.js'

/** What a change of an avatar decided: the avatar after it, its events, and the caller's answer. */
export type AvatarDecision<R> = Decision<Avatar, AvatarDraft, R, AvatarParts>

/** A growth (experience, maybe levels) as a decision: a level gained is told as AvatarLeveledUp. */
export function grown(g: rules.Growth): AvatarDecision<void> {
  const events: AvatarDraft[] = g.levelsGained === 0 ? [] : [{
    type: 'AvatarLeveledUp',
    payload: { avatarId: g.avatar.id, level: g.avatar.level, levelsGained: g.levelsGained, spellsLearned: g.spellsLearned },
  }]
  return { state: g.avatar, events, result: undefined }
}

/** A player changes only their own avatars; services and admins any. Judged on the avatar as its batch sees it. */
export function authorizeChange(p: Principal, a: Avatar): void {
  if (isTrusted(p) || a.ownerId === p.userId) return
  throw new NotOwner(`Avatar '${a.id}' belongs to another player.`)
}

/**
 * A change of an avatar as a command of its batch: its caller's right to make it, then the rule,
 * and what the change earned added to the bucket of the moment (reports sum the buckets). The
 * experience a change from play (`scored`) gained is added to the avatar's score in the week's
 * league, in the same write, with the instant it reached it (DESIGN §9.5).
 */
export function avatarCommand<R>(
  p: Principal, decide: (a: Avatar) => AvatarDecision<R>, call: KeyedCall | undefined, clock: Clock, scored = false,
): BatchedCommand<Avatar, AvatarDraft, R, undefined, AvatarParts> {
  return {
    call,
    decide: (a) => {
      authorizeChange(p, a)
      const decision = decide(a)
      const earned = earnedBetween(a, decision.state)
      if (!earnedAnything(earned)) return decision
      const now = clock.now()
      const earnings = [{ avatarId: a.id, bucket: earningsBucket(now), ...earned }]
      const league = scored && earned.experience > 0 ? [{ season: seasonAt(now).id, avatarId: a.id, score: earned.experience, reachedAt: now }] : []
      return { ...decision, parts: { earnings, league } }
    },
  }
}
