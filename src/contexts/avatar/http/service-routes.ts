/**
 * The avatar routes only services call (the edge provisioning a registration's avatar, the other
 * contexts judging ownership, a purchase or a fight when they run apart): the HTTP side of the
 * avatar port's adapter (client.ts), under /internal/v1.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { NoContent, noContent, problemResponses } from '../../../platform/http/schemas.js'
import type { AvatarApp } from '../app/avatar-app.js'
import { AvatarIdParams, OwnerView, PROFILES_MAX, ProfileQuery, ProfilesQuery, ProfilesView, ProfileView, ProvisionBody } from './schemas.js'

const params = AvatarIdParams

export const avatarServiceRoutes: FastifyPluginAsyncTypebox<{ app: AvatarApp }> = async (f, { app }) => {
  f.put('/avatars/:id', {
    schema: {
      tags: ['service'],
      operationId: 'serviceProvisionAvatar',
      summary: 'Provision an avatar for a user (services only; idempotent)',
      description: 'Makes the avatar with this id for `ownerId` unless it exists; 409 when it exists for another owner. ' +
        'Used by the edge when services run apart. Players get 403. ' +
        'The refusals: 409 `avatar-exists` for another owner\'s avatar, 403 `service-only` for a player token. ' +
        'A new avatar is told by `AvatarCreated`.',
      params, body: ProvisionBody, response: { 204: NoContent, ...problemResponses(400, 401, 403, 409) },
    },
  }, async (req, reply) => {
    await app.provisionFor(req.principal, { avatarId: req.params.id, ownerId: req.body.ownerId, name: req.body.name })
    return noContent(reply)
  })

  f.get('/avatars/:id/owner', {
    schema: {
      tags: ['service'],
      operationId: 'serviceGetAvatarOwner',
      summary: 'The user owning the avatar (services only)',
      description: 'For services judging ownership when they run apart; owners are not part of the public avatar. Refused with ' +
        '403 `service-only` for a player token and 404 `not-found` for an unknown avatar.',
      params, response: { 200: OwnerView, ...problemResponses(401, 403, 404) },
    },
  }, async (req) => ({ userId: await app.ownerFor(req.principal, req.params.id) }))

  f.get('/avatars/:id/profile', {
    schema: {
      tags: ['service'],
      operationId: 'serviceGetAvatarProfile',
      summary: 'What a fight or a purchase judges of an avatar (services only)',
      description: 'For services running apart, in one read: the owner, the level, the effective attack and defense ' +
        '(with the equipped weapon and armor), the health and the deaths; with `keys`, which of those keyed calls ' +
        '(idempotency keys) the avatar has taken. Refused with 403 `service-only` for a player token and ' +
        '404 `not-found` for an unknown avatar.',
      params, querystring: ProfileQuery, response: { 200: ProfileView, ...problemResponses(400, 401, 403, 404) },
    },
  }, async (req) => app.profileFor(req.principal, req.params.id, [req.query.keys ?? []].flat()))

  f.get('/avatar-profiles', {
    schema: {
      tags: ['service'],
      operationId: 'serviceGetAvatarProfiles',
      summary: 'The profiles of several avatars at once (services only)',
      description: `For services running apart that judge a guild's members together (its chat's names, a battle's fighters, ` +
        `who may answer an invite): up to ${PROFILES_MAX} avatars in one read, each as \`GET /internal/v1/avatars/{id}/profile\` ` +
        'answers it without keys; an unknown avatar is left out of `items`. Refused with 403 `service-only` for a player token.',
      querystring: ProfilesQuery, response: { 200: ProfilesView, ...problemResponses(400, 401, 403) },
    },
  }, async (req) => ({ items: await app.profilesFor(req.principal, [req.query.ids].flat()) }))
}
