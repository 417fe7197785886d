import { BadGateway, Conflict, TooManyRequests, Unauthorized } from '../../../platform/errors.js'

export class EmailTaken extends Conflict {
  constructor() {
    super('An account with this email already exists.', 'email-taken')
  }
}

/** The same answer whether or not the email exists, so it tells no one which accounts there are. */
export class InvalidCredentials extends Unauthorized {
  constructor() {
    super('The email or password is wrong.', 'invalid-credentials')
  }
}

/**
 * A wrong password where one is asked again (deleting the account): 401 like a wrong login, with the
 * same problem type, since it is the same failed proof of the same credentials.
 */
export class WrongPassword extends Unauthorized {
  constructor() {
    super('The password is wrong.', 'invalid-credentials')
  }
}

/** An access token whose account is gone (deleted meanwhile, or a service's, which has none): as a revoked token, 401. */
export class AccountGone extends Unauthorized {
  constructor() {
    super('The account of this access token has been deleted.', 'invalid-token')
  }
}

export class InvalidRefreshToken extends Unauthorized {
  constructor(reason: string) {
    super(`The refresh token is ${reason}; log in again.`, 'invalid-refresh-token')
  }
}

export class LoginThrottled extends TooManyRequests {
  constructor(retryAfterSeconds: number) {
    super(`Too many failed logins; try again in ${retryAfterSeconds} seconds.`, retryAfterSeconds)
  }
}

/** Registration's partner failed: the account was not made (or is being undone: its email stays taken until then). */
export class AvatarUnavailable extends BadGateway {
  constructor(undone: boolean) {
    super(undone
      ? 'The avatar service failed while your account was being made; nothing was kept. Try again.'
      : 'The avatar service failed while your account was being made; it is being undone, and its email is free again once that is done.',
    'avatar-unavailable')
  }
}
