import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import type { AccessTokens } from '../../../platform/auth/tokens.js'
import { bearerToken, requireToken } from '../../../platform/http/auth-guard.js'
import { NoContent, noContent, problemResponses } from '../../../platform/http/schemas.js'
import type { IdentityApp } from '../app/identity-app.js'
import { EMAIL_MAX_LENGTH, PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH, USER_NAME_MAX_LENGTH } from '../domain/rules.js'

const tags = ['auth']
const Email = Type.String({ format: 'email', maxLength: EMAIL_MAX_LENGTH })

/** The password of the examples: at least PASSWORD_MIN_LENGTH characters. */
const EXAMPLE_PASSWORD = 'correct-horse-battery-staple'
/** An access token as login answers it (EdDSA-signed JWT; made up). */
const EXAMPLE_ACCESS_TOKEN = 'eyJhbGciOiJFZERTQSIsImtpZCI6IlEyeFZuUjhkVDRzWWsxcEx3N1pjSDBqTWZCNmFFM3VOZzlyS29TNXRXaUEiLCJ0eXAiOiJKV1QifQ.' +
  'eyJyb2xlIjoicGxheWVyIiwic3ViIjoiNWI3ZDJjMWUtM2Y0YS00YjhjLTlkMGUtMWEyYjNjNGQ1ZTZmIiwiaXNzIjoicXVlc3RsaW5lIiwiYXVkIjoicXVlc3RsaW5lIiwi' +
  'aWF0IjoxNzcyNDM4NDAwLCJleHAiOjE3NzI0MzkzMDAsImp0aSI6IjllNGYyYTZjLThiMWQtNGMzZS1hNWY3LTBkMmI0ZTZhOGMxOSJ9.' +
  'qmX3vqaFONkC0jO9fpiLe3ag84XPx0whV49lws8D7pjOojHgxTuCrx9yR6JWV4Aw13F5shzgH6NJTnhtpBMY7Q'

const RegisterBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: USER_NAME_MAX_LENGTH, pattern: '\\S', description: 'Also the avatar name' }),
  email: Email,
  password: Type.String({ minLength: PASSWORD_MIN_LENGTH, maxLength: PASSWORD_MAX_LENGTH }),
}, { examples: [{ name: 'Ada Lovelace', email: 'ada@example.com', password: EXAMPLE_PASSWORD }] })
const LoginBody = Type.Object({ email: Email, password: Type.String({ minLength: 1, maxLength: PASSWORD_MAX_LENGTH }) }, {
  examples: [{ email: 'ada@example.com', password: EXAMPLE_PASSWORD }],
})
const RefreshBody = Type.Object({ refreshToken: Type.String({ minLength: 1, maxLength: 200 }) }, {
  examples: [{ refreshToken: 'kQ7vZp2xR9sLmT4wYc1nHbG8uE3jA6dFo0iNqWtXyVe' }],
})
const DeleteAccountBody = Type.Object({ password: Type.String({ minLength: 1, maxLength: PASSWORD_MAX_LENGTH, description: 'The account\'s password, asked again' }) }, {
  examples: [{ password: EXAMPLE_PASSWORD }],
})
const ValidateBody = Type.Union([
  Type.Object({ token: Type.Optional(Type.String({ maxLength: 8192 })) }, { examples: [{ token: EXAMPLE_ACCESS_TOKEN }] }),
  Type.Null(),
])

const SessionView = Type.Object({
  token: Type.String({ description: 'EdDSA-signed JWT access token' }),
  userId: Type.String({ format: 'uuid' }),
  refreshToken: Type.String({ description: 'Opaque; spend it at /auth/refresh for a new pair' }),
  expiresIn: Type.Integer({ description: 'Seconds until the access token expires' }),
})

export const identityRoutes: FastifyPluginAsyncTypebox<{ app: IdentityApp; tokens: AccessTokens }> = async (f, { app, tokens }) => {
  f.post('/auth/register', {
    schema: {
      tags,
      security: [],
      operationId: 'registerAccount',
      summary: 'Register an account; its avatar (id = userId) is created with it',
      description: 'No token needed. The account and its first avatar (id = userId, named as the account) are made both or neither, ' +
        'and the answer is a session as login answers it. The avatar\'s marketplace follows from its `AvatarCreated` event. ' +
        'Refused with 400 `validation` for a blank name, an email that is not one, or a password shorter than ' +
        `${PASSWORD_MIN_LENGTH} characters; 409 \`email-taken\` when an account has that email (compared lower-cased), ` +
        'also while a failed registration of it is being undone; 502 `avatar-unavailable` when the avatar service failed ' +
        '(nothing is kept: try again).',
      body: RegisterBody,
      response: { 200: SessionView, ...problemResponses(400, 409, 502) },
    },
  }, async (req) => app.register(req.body))

  f.post('/auth/login', {
    schema: {
      tags,
      security: [],
      operationId: 'logIn',
      summary: 'Log in with email and password for an access and refresh token',
      description: 'No token needed. Refused with 401 `invalid-credentials` alike whether the email is unknown or the password wrong, ' +
        'so it tells no one which accounts exist. Failed logins are counted per email and per client address over a window; ' +
        'past the limit (LOGIN_MAX_FAILURES_PER_EMAIL, LOGIN_MAX_FAILURES_PER_ADDRESS) it answers 429 `too-many-requests` with ' +
        '`Retry-After`, even for the right password. A success forgets the email\'s failures.',
      body: LoginBody, response: { 200: SessionView, ...problemResponses(400, 401, 429) },
    },
  }, async (req) => app.login(req.body, req.ip))

  f.post('/auth/refresh', {
    schema: {
      tags,
      security: [],
      operationId: 'refreshSession',
      summary: 'Trade a refresh token for a new access and refresh token',
      description: 'No access token needed: the refresh token is the proof. It is spent by the trade. Refused with 401 ' +
        '`invalid-refresh-token` when it is unknown, expired, revoked (logged out), or of an account deleted since; one already ' +
        'spent and shown again revokes its whole session (theft detection), and every refresh token of that session is refused from then on.',
      body: RefreshBody, response: { 200: SessionView, ...problemResponses(400, 401) },
    },
  }, async (req) => app.refresh(req.body.refreshToken))

  f.post('/auth/logout', {
    onRequest: requireToken(tokens),
    schema: {
      tags,
      operationId: 'logOut',
      summary: 'End the session of this refresh token and this access token',
      description: 'Needs the access token (401 `unauthorized` without one, `invalid-token` for a bad one). The refresh token\'s session ' +
        'is revoked when it is the caller\'s (another\'s, or an unknown one, is ignored), and the access token is refused until it expires.',
      body: RefreshBody, security: [{ bearer: [] }], response: { 204: NoContent, ...problemResponses(400, 401) },
    },
  }, async (req, reply) => {
    await app.logout(req.principal, req.body.refreshToken)
    return noContent(reply)
  })

  // Under /api/v1 with the player's other resources, served by the edge (which keeps accounts) in both shapes.
  f.delete('/api/v1/me', {
    onRequest: requireToken(tokens),
    schema: {
      tags: ['account'],
      operationId: 'deleteAccount',
      summary: 'Delete the account, its avatars and its sessions',
      description: 'The caller\'s own account, whatever its role, once its password is given again. The account, its sessions and ' +
        'every access token of it end at once; `AccountDeleted` then deletes each of its avatars as deleting that avatar would ' +
        '(habits, marketplace, guild membership, quest participations), the quests it created, its calendar feed and its webhooks. ' +
        'Refused with 401 `invalid-credentials` for a wrong password, which counts as a failed login of the account\'s email, ' +
        'so past the login limit it answers 429 `too-many-requests`; 401 `invalid-token` when the account is already gone.',
      body: DeleteAccountBody,
      response: { 204: NoContent, ...problemResponses(400, 401, 429) },
    },
  }, async (req, reply) => {
    await app.deleteAccount(req.principal, req.body.password)
    return noContent(reply)
  })

  f.post('/auth/validate', {
    schema: {
      tags,
      security: [],
      operationId: 'validateToken',
      summary: 'Check a token (Authorization header or body {token}); always 200',
      description: 'No token needed. Answers `{valid}` for any token, good or bad: valid when it is a well-signed access token, ' +
        'not expired, not revoked by a logout and not of a deleted account. A refresh token is never valid here. ' +
        'Only a malformed body is refused (400 `malformed-json`, or `validation` when `token` is not a string).',
      body: Type.Optional(ValidateBody), response: { 200: Type.Object({ valid: Type.Boolean() }), ...problemResponses(400) },
    },
  }, async (req) => ({ valid: await app.validate(req.body?.token ?? bearerToken(req)) }))

  f.get('/auth/jwks.json', {
    schema: {
      tags,
      security: [],
      operationId: 'getPublicKeys',
      summary: 'Public keys that verify access tokens',
      description: 'No token needed. A JSON Web Key Set of the Ed25519 keys access tokens are signed with (EdDSA), ' +
        'so every service can verify a token itself: the current key first, then the previous one (after a rotation its tokens ' +
        'stay valid until they expire); a token names its key in the header\'s kid. Never refused.',
    },
  }, async () => tokens.publicJwks)
}
