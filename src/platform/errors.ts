/**
 * The one error hierarchy of the platform. Plain classes with no framework import, so domain
 * code may throw them; platform/http/problems.ts turns them into RFC 9457 problem+json.
 */
/**
 * A field a refusal is about. Its path names a request part and a JSON pointer into it
 * (`body/name`, `querystring/cursor`, `params/id`, `headers/idempotency-key`). Code that knows a
 * command and not a request names the command's field by its pointer alone (`/title`,
 * `/habits/0/title`): the HTTP layer shows it under the part that carried it.
 */
export type FieldError = { path: string; message: string }

export class AppError extends Error {
  constructor(
    readonly status: number,
    /** Stable slug, served as the problem `type` `/problems/<slug>`. */
    readonly slug: string,
    readonly title: string,
    detail: string,
    readonly errors?: FieldError[],
  ) {
    super(detail)
    this.name = new.target.name
  }
}

export class BadRequest extends AppError {
  constructor(detail: string, slug = 'bad-request', errors?: FieldError[]) {
    super(400, slug, 'Bad request', detail, errors)
  }
}

/** A request whose fields are not what the route takes (`validation`): each one at fault in `errors`. */
export class InvalidRequest extends AppError {
  constructor(errors: FieldError[], detail = errors.map((e) => `${e.path} ${e.message}`).join('; ')) {
    super(400, 'validation', 'Invalid request', detail, errors)
  }
}

/** A request that is well formed but breaks a game rule. */
export class RuleViolation extends AppError {
  constructor(slug: string, detail: string) {
    super(400, slug, 'Business rule violation', detail)
  }
}

export class Unauthorized extends AppError {
  constructor(detail = 'A valid access token is required.', slug = 'unauthorized') {
    super(401, slug, 'Unauthorized', detail)
  }
}

export class Forbidden extends AppError {
  constructor(detail: string, slug = 'forbidden') {
    super(403, slug, 'Forbidden', detail)
  }
}

/**
 * What the request names (an avatar, a habit, a quest, a marketplace, an invite) belongs to
 * another player, and only its owner may act on it or see it (DESIGN §5).
 */
export class NotOwner extends Forbidden {
  constructor(detail: string) {
    super(detail, 'not-owner')
  }
}

export class NotFound extends AppError {
  constructor(what: string, id?: string) {
    super(404, 'not-found', 'Not found', id === undefined ? `${what} not found.` : `${what} '${id}' not found.`)
  }
}

export class Conflict extends AppError {
  constructor(detail: string, slug = 'conflict') {
    super(409, slug, 'Conflict', detail)
  }
}

export class TooManyRequests extends AppError {
  constructor(detail: string, readonly retryAfterSeconds: number) {
    super(429, 'too-many-requests', 'Too many requests', detail)
  }
}

export class BadGateway extends AppError {
  constructor(detail: string, slug = 'bad-gateway') {
    super(502, slug, 'Bad gateway', detail)
  }
}

export class ServiceUnavailable extends AppError {
  constructor(detail: string) {
    super(503, 'service-unavailable', 'Service unavailable', detail)
  }
}

/** An idempotency key that already named another call (another operation or aggregate): a key names one call. */
export class IdempotencyKeyReused extends Conflict {
  constructor(key: string) {
    super(`Idempotency key '${key}' was already used for another call.`, 'idempotency-key-reused')
  }
}
