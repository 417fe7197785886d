import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import type { AccessTokens } from '../../../platform/auth/tokens.js'
import { bearerToken, requireToken } from '../../../platform/http/auth-guard.js'
import { NoContent, noContent, problemResponses } from '../../../platform/http/schemas.js'
import type { IdentityApp } from '../app/identity-app.js'
import { EMAIL_MAX_LENGTH, PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH, USER_NAME_MAX_LENGTH } from '../domain/rules.js'

const tags = ['auth']
const Email = Type.String({ format: 'email', maxLength: EMAIL_MAX_LENGTH })

const RegisterBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: USER_NAME_MAX_LENGTH, pattern: '\\S', description: 'Also the avatar name' }),
  email: Email,
  password: Type.String({ minLength: PASSWORD_MIN_LENGTH, maxLength: PASSWORD_MAX_LENGTH }),
})
const LoginBody = Type.Object({ email: Email, password: Type.String({ minLength: 1, maxLength: PASSWORD_MAX_LENGTH }) })
const RefreshBody = Type.Object({ refreshToken: Type.String({ minLength: 1, maxLength: 200 }) })
const DeleteAccountBody = Type.Object({ password: Type.String({ minLength: 1, maxLength: PASSWORD_MAX_LENGTH, description: 'The account\'s password, asked again' }) })
const ValidateBody = Type.Union([Type.Object({ token: Type.Optional(Type.String({ maxLength: 8192 })) }), Type.Null()])

const SessionView = Type.Object({
  token: Type.String({ description: 'EdDSA-signed JWT access token' }),
  userId: Type.String({ format: 'uuid' }),
  refreshToken: Type.String({ description: 'Opaque; spend it at /auth/refresh for a new pair' }),
  expiresIn: Type.Integer({ description: 'Seconds until the access token expires' }),
})

export const identityRoutes: FastifyPluginAsyncTypebox<{ app: IdentityApp; tokens: AccessTokens }> = async (f, { app, tokens }) => {
  f.post('/auth/register', {
    schema: {
      tags, summary: 'Register an account; its avatar (id = userId) is created with it', body: RegisterBody,
      response: { 200: SessionView, ...problemResponses(400, 409, 502) },
    },
  }, async (req) => app.register(req.body))

  f.post('/auth/login', {
    schema: { tags, body: LoginBody, response: { 200: SessionView, ...problemResponses(400, 401, 429) } },
  }, async (req) => app.login(req.body, req.ip))

  f.post('/auth/refresh', {
    schema: { tags, summary: 'Trade a refresh token for a new access and refresh token', body: RefreshBody,
      response: { 200: SessionView, ...problemResponses(400, 401) } },
  }, async (req) => app.refresh(req.body.refreshToken))

  f.post('/auth/logout', {
    onRequest: requireToken(tokens),
    schema: { tags, summary: 'End the session of this refresh token and this access token', body: RefreshBody,
      security: [{ bearer: [] }], response: { 204: NoContent, ...problemResponses(400, 401) } },
  }, async (req, reply) => {
    await app.logout(req.principal, req.body.refreshToken)
    return noContent(reply)
  })

  // Under /api/v1 with the player's other resources, served by the edge (which keeps accounts) in both shapes.
  f.delete('/api/v1/me', {
    onRequest: requireToken(tokens),
    schema: {
      tags, summary: 'Delete the account, all its avatars (as deleting each would) and its sessions', body: DeleteAccountBody,
      response: { 204: NoContent, ...problemResponses(400, 401, 429) },
    },
  }, async (req, reply) => {
    await app.deleteAccount(req.principal, req.body.password)
    return noContent(reply)
  })

  f.post('/auth/validate', {
    schema: {
      tags, summary: 'Check a token (Authorization header or body {token}); always 200',
      body: Type.Optional(ValidateBody), response: { 200: Type.Object({ valid: Type.Boolean() }) },
    },
  }, async (req) => ({ valid: await app.validate(req.body?.token ?? bearerToken(req)) }))

  f.get('/auth/jwks.json', {
    schema: { tags, summary: 'Public keys that verify access tokens' },
  }, async () => tokens.publicJwks)
}
