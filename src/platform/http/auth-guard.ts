import type { FastifyRequest, onRequestAsyncHookHandler } from 'fastify'
import { requireTrusted, type Principal } from '../auth/principal.js'
import type { AccessTokens } from '../auth/tokens.js'
import { Unauthorized } from '../errors.js'

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the auth guard on every route that requires a token. */
    principal: Principal
  }
}

export function bearerToken(req: FastifyRequest): string | undefined {
  const header = req.headers.authorization
  if (!header) return undefined
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header)
  return match?.[1]
}

/**
 * Route config of a route that also takes a single-use ticket instead of the header (a stream for
 * `EventSource`): without an Authorization header the request reaches the route, which checks
 * the ticket itself (`req.principal` is then unset).
 */
export interface TicketAuthConfig {
  ticketAuth?: boolean
}

/** An onRequest hook that admits only requests carrying a valid access token (or, where the route takes one, a ticket). */
export function requireToken(tokens: AccessTokens): onRequestAsyncHookHandler {
  return async (req) => {
    const token = bearerToken(req)
    if (!token && !req.headers.authorization && (req.routeOptions.config as TicketAuthConfig | undefined)?.ticketAuth) return
    if (!token) throw new Unauthorized('Send an access token as Authorization: Bearer <token>.')
    const principal = await tokens.verify(token)
    if (!principal) throw new Unauthorized('The access token is invalid, expired or revoked.', 'invalid-token')
    req.principal = principal
  }
}

/**
 * An onRequest hook, after `requireToken`, for routes only services call: a player's token is 403
 * `service-only` before anything of the request (its body) is read or judged.
 */
export const requireTrustedCaller: onRequestAsyncHookHandler = async (req) => {
  requireTrusted(req.principal, 'Only services (and admins) call /internal routes.')
}
