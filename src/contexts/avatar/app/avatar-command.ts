import { isTrusted, type Principal } from '../../../platform/auth/principal.js'
import type { Clock } from '../../../platform/clock.js'
import { NotOwner } from '../../../platform/errors.js'
import type { BatchedCommand, Decision, KeyedCall } from '../../../platform/writer/decisions.js'
import type * as rules from '../domain/avatar.js'
import type { Avatar } from '../domain/avatar.js'
import { earnedAnything, earnedBetween, earningsBucket } from '../domain/earnings.js'
import type { AvatarDraft } from '../../../contracts/events/avatar.js'

/** What a change of an avatar decided: the avatar after it, its events, and the caller's answer. */
export type AvatarDecision<R> = Decision<Avatar, AvatarDraft, R, 'earnings'>

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
 * and what the change earned added to the bucket of the moment (reports sum the buckets).
 */
export function avatarCommand<R>(
  p: Principal, decide: (a: Avatar) => AvatarDecision<R>, call: KeyedCall | undefined, clock: Clock,
): BatchedCommand<Avatar, AvatarDraft, R, undefined, 'earnings'> {
  return {
    call,
    decide: (a) => {
      authorizeChange(p, a)
      const decision = decide(a)
      const earned = earnedBetween(a, decision.state)
      if (!earnedAnything(earned)) return decision
      return { ...decision, parts: { earnings: [{ avatarId: a.id, bucket: earningsBucket(clock.now()), ...earned }] } }
    },
  }
}
