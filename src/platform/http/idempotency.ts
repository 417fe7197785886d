import { Type } from 'typebox'
import { isTrusted, type Principal } from '../auth/principal.js'

export const IDEMPOTENCY_HEADER = 'idempotency-key'

/** The optional `Idempotency-Key` request header: up to 200 visible ASCII characters. */
export const IdempotencyHeaders = Type.Object({
  [IDEMPOTENCY_HEADER]: Type.Optional(Type.String({
    minLength: 1,
    maxLength: 200,
    pattern: '^[\\x21-\\x7E]+$',
    description: 'A retried request with the same key is applied once and answers as the first did.',
  })),
})

/**
 * The key under which a call is remembered. A player's keys live in a space of their own, so
 * one player cannot use up (or learn the outcome of) another's; calls from the platform itself
 * (service and admin tokens, and in-process ports) share one space, so a call retried over HTTP
 * finds a first attempt made in-process.
 */
function callerScopedKey(p: Principal, key: string): string {
  return isTrusted(p) ? key : `player/${p.userId}/${key}`
}

/** The request's Idempotency-Key scoped to its caller; undefined when none was sent. */
export function idempotencyKeyOf(req: { headers: { [IDEMPOTENCY_HEADER]?: string }; principal: Principal }): string | undefined {
  const key = req.headers[IDEMPOTENCY_HEADER]
  return key === undefined ? undefined : callerScopedKey(req.principal, key)
}
