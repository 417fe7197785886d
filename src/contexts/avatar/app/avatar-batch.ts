import type { AvatarDraft } from '../../../contracts/events/avatar.js'
import { isTrusted, type Principal } from '../../../platform/auth/principal.js'
import { failed, succeeded, type Outcome } from '../../../platform/batcher.js'
import { Forbidden } from '../../../platform/errors.js'
import { newId } from '../../../platform/ids.js'
import { changedPayload, type Avatar } from '../domain/avatar.js'
import { addEarned, earnedBetween, NOTHING_EARNED } from '../domain/earnings.js'
import { IdempotencyKeyReused } from '../domain/errors.js'
import type { AvatarWrite, LoadedAvatar } from '../store/avatar-commands.js'

export type Draft = AvatarDraft

/** A call from another context (or a request with an Idempotency-Key), applied at most once per key. */
export interface KeyedCall {
  key: string
  operation: string
}

/** What a use case decided: the changed avatar, the events it caused, and its answer. */
export interface Decision<R> {
  avatar: Avatar
  events?: Draft[]
  result: R
}

/** One change of one avatar, waiting in the avatar's batch. */
export interface AvatarCommand {
  principal: Principal
  decide: (a: Avatar) => Decision<unknown>
  call?: KeyedCall | undefined
}

export function authorizeChange(p: Principal, a: Avatar): void {
  if (isTrusted(p) || a.ownerId === p.userId) return
  throw new Forbidden(`Avatar '${a.id}' belongs to another player.`, 'not-owner')
}

/**
 * Decides a batch of commands on one avatar in arrival order, each on the state the ones before
 * it left: a refused command answers its own error and leaves the state as it was; a key already
 * answered (before, or earlier in this batch) answers as it did then. Each applied command raises
 * the version by one, and its events carry the version after it; what each earned is added up for
 * the write (reports sum it). No write when nothing changed.
 */
export function decideBatch(loaded: LoadedAvatar, commands: AvatarCommand[], at: Date): { outcomes: Outcome<unknown>[]; write?: AvatarWrite } {
  const readVersion = loaded.avatar.version
  const applied = new Map(loaded.applied)
  let avatar = loaded.avatar
  const events: AvatarWrite['events'] = []
  const calls: AvatarWrite['calls'] = []
  let earned = NOTHING_EARNED
  const outcomes = commands.map((command): Outcome<unknown> => {
    try {
      authorizeChange(command.principal, avatar)
      const { call } = command
      const earlier = call && applied.get(call.key)
      if (call && earlier) {
        if (earlier.avatarId !== avatar.id || earlier.operation !== call.operation) throw new IdempotencyKeyReused(call.key)
        return succeeded(earlier.result)
      }
      const decision = command.decide(avatar)
      const version = avatar.version + 1
      earned = addEarned(earned, earnedBetween(avatar, decision.avatar))
      avatar = { ...decision.avatar, version }
      for (const e of decision.events ?? []) events.push({ id: newId(), type: e.type, version, payload: e.payload })
      if (call) {
        calls.push({ key: call.key, operation: call.operation, result: decision.result })
        applied.set(call.key, { avatarId: avatar.id, operation: call.operation, result: decision.result })
      }
      return succeeded(decision.result)
    } catch (e) {
      return failed(e)
    }
  })
  if (avatar.version === readVersion) return { outcomes }
  events.push({ id: newId(), type: 'AvatarChanged', version: avatar.version, payload: changedPayload(avatar) })
  return { outcomes, write: { readVersion, avatar, events, calls, earned, at } }
}
