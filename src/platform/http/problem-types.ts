/**
 * Problem types (RFC 9457): every `type` a refusal can carry, `/problems/<slug>`, documented once.
 * The platform's own are here; each context lists its own in `http/problem-types.ts`, and the
 * composition root hands the union to the HTTP server, which
 * - gives every problem body of a type the type's `title` (the same for every occurrence),
 * - lists, under each error status of each operation in /openapi.json, the types the operation's
 *   description names (with an example body each), and
 * - serves each type at its URI, `/problems/<slug>` (JSON, or a page for a browser).
 */
export interface ProblemType {
  status: number
  /** The status depends on the occurrence (`status` is the usual one). */
  statusVaries?: true
  /**
   * A game rule refused a well-formed request: the refusal is about the current state (a wallet, an
   * inventory, a battle), so it names no field. Every other 400 names the fields at fault in `errors`.
   */
  rule?: true
  title: string
  /** What happened and what the client can do about it: a sentence or two. */
  description: string
}

export type ProblemCatalog = Readonly<Record<string, ProblemType>>

/** The catalogs as one; a slug is defined in exactly one of them. */
export function mergeProblemCatalogs(catalogs: ProblemCatalog[]): ProblemCatalog {
  const all: Record<string, ProblemType> = {}
  for (const catalog of catalogs) {
    for (const [slug, type] of Object.entries(catalog)) {
      if (all[slug]) throw new Error(`The problem type '${slug}' is defined twice.`)
      all[slug] = type
    }
  }
  return all
}

const PROBLEM_TYPE_PREFIX = '/problems/'

export const problemTypeUri = (slug: string) => `${PROBLEM_TYPE_PREFIX}${slug}`

/** The slug of a problem body's `type` (`/problems/insufficient-funds` → `insufficient-funds`); undefined for any other value. */
export function problemTypeSlug(type: unknown): string | undefined {
  return typeof type === 'string' && type.startsWith(PROBLEM_TYPE_PREFIX) ? type.slice(PROBLEM_TYPE_PREFIX.length) : undefined
}

/** The platform's problem types: those of HTTP itself, of tokens and roles, and of calls between services. */
export const PLATFORM_PROBLEMS: ProblemCatalog = {
  'validation': { status: 400, title: 'Invalid request', description: 'A field of the request is not what the operation takes: a missing field, a wrong type, a value out of range, or a field the operation does not know where its schema forbids one (`additionalProperties: false`; elsewhere an unknown body field or query parameter is ignored). ' +
    'Text no field can hold, a NUL or a UTF-16 surrogate without its pair, is refused wherever it is: in the query string, the path or the body, in any field, known or not; so is a query string whose percent-escapes are not UTF-8. ' +
    '`errors` names each field at fault, by where it is (`body/amount`, `querystring/limit`, `params/id`) and why.' },
  'malformed-json': { status: 400, title: 'Malformed JSON', description: 'The body is not valid JSON (or is empty where a body is needed). Nothing was applied.' },
  'malformed-request': { status: 400, title: 'Malformed request', description: 'The request is not well-formed: a bad percent-escape in the URL, a Content-Length that is not the body\'s, a Content-Type that names no media type, or not HTTP at all. `errors` names the part at fault.' },
  'client-error': { status: 400, statusVaries: true, title: 'Client error', description: 'The request was refused by the HTTP layer (with a 4xx status) for a reason no more specific type covers; `detail` says which.' },
  'bad-request': { status: 400, title: 'Bad request', description: 'The request was refused for a reason `detail` states.' },
  'invalid-cursor': { status: 400, title: 'Invalid cursor', description: 'The `cursor` of a paged list is not one this list answered (a cursor belongs to one list and one order). Start again without a cursor, or pass the `next` the list gave.' },
  'invalid-date': { status: 400, title: 'Invalid date', description: 'A date or local date-time is not a real one in the form the operation takes (`2026-03-02`, or `2026-03-02T08:30:00` with no zone offset). `errors` names the field.' },
  'invalid-span': { status: 400, title: 'Invalid span', description: 'A span of time ends before it starts, or is empty: `to` must come after `from`.' },
  'unauthorized': { status: 401, title: 'Unauthorized', description: 'The operation needs an access token and the request sent none: send `Authorization: Bearer <access token>` (from register, login or refresh).' },
  'invalid-token': { status: 401, title: 'Invalid token', description: 'The access token is not valid: badly signed, expired, revoked by a logout, or of an account deleted since. Refresh it, or log in again.' },
  'forbidden': { status: 403, title: 'Forbidden', description: 'The token is valid, but its holder may not do this; `detail` says why.' },
  'idempotency-key-reused': { status: 409, title: 'Idempotency key reused', description: 'The `Idempotency-Key` was already used for a different call (another operation, avatar or body). A key names one call: use a new key for a new call.' },
  'not-owner': { status: 403, title: 'Not the owner', description: 'What the operation names (an avatar, a habit, a quest, a marketplace) belongs to another player. Only its owner, or a service or admin token, may read or change it.' },
  'service-only': { status: 403, title: 'Service or admin only', description: 'The operation is for the platform\'s services (and admins): a player\'s token is refused.' },
  'not-found': { status: 404, title: 'Not found', description: 'What the path names does not exist (or no longer does), or no route answers this path.' },
  'method-not-allowed': { status: 405, title: 'Method not allowed', description: 'The path exists but not for this method; the `Allow` header lists the methods it takes.' },
  'request-timeout': { status: 408, title: 'Request timeout', description: 'The request did not arrive completely in time; the connection is closed. Send it again.' },
  'conflict': { status: 409, title: 'Conflict', description: 'The request conflicts with the current state; `detail` says how.' },
  'payload-too-large': { status: 413, title: 'Payload too large', description: 'The body is larger than the operation takes (`detail` gives the limit); nothing was read beyond it.' },
  'uri-too-long': { status: 414, title: 'URI too long', description: 'A path parameter is longer than any the API takes.' },
  'unsupported-media-type': { status: 415, title: 'Unsupported media type', description: 'The body is not of a media type the operation takes: send `Content-Type: application/json` (an import also takes `application/zip` and `multipart/form-data`; its refusal names what it takes).' },
  'headers-too-large': { status: 431, title: 'Request header fields too large', description: 'The request line and headers together are longer than the server reads; the connection is closed.' },
  'too-many-requests': { status: 429, title: 'Too many requests', description: 'Too many failed attempts (logins, or a password asked again) in a short time. Wait the seconds the `Retry-After` header gives.' },
  'internal': { status: 500, title: 'Internal server error', description: 'The server failed to handle the request; it has been logged with the request id of the `X-Request-Id` header. A change may or may not have been applied: a retry with the same `Idempotency-Key` is safe.' },
  'bad-gateway': { status: 502, title: 'Bad gateway', description: 'A service this operation needs failed to answer as it should; `detail` says which. Try again shortly.' },
  'upstream-unreachable': { status: 502, title: 'Upstream unreachable', description: 'A service this operation calls could not be reached after retries. Nothing of this request was applied by that service; try again shortly.' },
  'upstream-error': { status: 502, title: 'Upstream error', description: 'A service this operation calls kept failing (5xx) after retries. Try again shortly; changing calls take an `Idempotency-Key`, so a retry is applied once.' },
  'upstream-refused': { status: 502, statusVaries: true, title: 'Upstream refused', description: 'A service this operation calls refused it with an answer that was not problem+json; the status is that answer\'s, and `detail` carries what it said.' },
  'not-ready': { status: 503, title: 'Not ready', description: 'The platform is not ready to serve (still starting, or its database or event bus is failing); `detail` names each check that fails. Answered by /readyz.' },
  'service-unavailable': { status: 503, title: 'Service unavailable', description: 'The platform is still starting, or the process serving this part of the API did not answer (it is restarting). Try again shortly; /readyz says when the platform is ready.' },
}
