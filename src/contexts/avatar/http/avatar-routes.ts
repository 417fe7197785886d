import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { Principal } from '../../../platform/auth/principal.js'
import { BadRequest } from '../../../platform/errors.js'
import { readValidGetBody } from '../../../platform/http/get-body.js'
import { IdempotencyHeaders, idempotencyKeyOf } from '../../../platform/http/idempotency.js'
import { links } from '../../../platform/http/links.js'
import { NoContent, noContent, problemResponses } from '../../../platform/http/schemas.js'
import { compileBodyValidator } from '../../../platform/http/validation.js'
import type { AvatarApp } from '../app/avatar-app.js'
import type { Stat } from '../domain/avatar.js'
import { STATS } from '../domain/rules.js'
import {
  Amount, AvatarIdParams, AvatarView, CreateAvatarBody, CreatedView, DamageAmount, DiedView, ExperienceView, HealthView,
  LevelView, ManaView, MoneyView, NameBody, NameView, OwnerView, ProvisionBody, SearchCriteria, SearchQuery, SearchView, StatsView,
} from './schemas.js'
import {
  avatarView, createdLinks, experienceLinks, healthLinks, levelLinks, levelOf, manaLinks, moneyLinks, nameLinks,
  statsLinks, statsOf,
} from './views.js'

const tags = ['avatars']
const params = AvatarIdParams

/** The POST actions that take `{amount}` and answer 204: path → use case. */
const amountActions: [path: string, summary: string, act: (app: AvatarApp) => AmountAction][] = [
  ['money/earn', 'Add money to the wallet', (app) => app.earnMoney.bind(app)],
  ['money/spend', 'Take money from the wallet (400 when it holds less)', (app) => app.spendMoney.bind(app)],
  ['experience/grant', 'Grant experience; levels gained carry the rest over', (app) => app.grantExperience.bind(app)],
  ['health/heal', 'Restore health, up to the maximum', (app) => app.heal.bind(app)],
  ['mana/spend', 'Spend mana (400 when there is less)', (app) => app.spendMana.bind(app)],
  ['mana/restore', 'Restore mana, up to the maximum', (app) => app.restoreMana.bind(app)],
]
type AmountAction = (p: Principal, id: string, amount: number, key?: string) => Promise<void>
const headers = IdempotencyHeaders
const validateSearchBody = compileBodyValidator(SearchCriteria)

export const avatarRoutes: FastifyPluginAsyncTypebox<{ app: AvatarApp }> = async (f, { app }) => {
  f.post('/avatars', {
    schema: { tags, summary: 'Create an avatar owned by the caller', body: CreateAvatarBody,
      response: { 200: CreatedView, ...problemResponses(400, 401, 409) } },
  }, async (req) => {
    const a = await app.create(req.principal, req.body)
    return { id: a.id, _links: createdLinks(a.id) }
  })

  f.get('/avatars/search', {
    schema: {
      tags,
      summary: 'Search avatars by name and/or level range',
      description: 'Criteria come from a JSON body (as the contract sends them on GET) or from query parameters; ' +
        'they combine with AND, an omitted one does not filter, `name` is a case-insensitive substring, level bounds are inclusive.',
      querystring: SearchQuery,
      response: { 200: SearchView, ...problemResponses(400, 401) },
    },
    config: { getBody: validateSearchBody },
  }, async (req) => {
    const body = (await readValidGetBody(req)) as Omit<typeof req.query, 'limit'> | undefined
    const { limit } = req.query
    // The criteria the route declares, from the body over the query; other keys are ignored.
    const { name, minLevel, maxLevel } = { ...req.query, ...body }
    const criteria = { name, minLevel, maxLevel }
    if (minLevel !== undefined && maxLevel !== undefined && minLevel > maxLevel) {
      throw new BadRequest('minLevel must not be greater than maxLevel.', 'invalid-level-range',
        [{ path: '/minLevel', message: 'must not be greater than maxLevel' }])
    }
    const found = await app.search({ ...criteria, limit })
    const query = new URLSearchParams()
    for (const [k, v] of Object.entries(criteria)) if (v !== undefined) query.set(k, String(v))
    query.set('limit', String(limit))
    return {
      _embedded: { avatars: found.map(avatarView) },
      _links: links({ self: `/api/v1/avatars/search?${query.toString()}` }),
    }
  })

  f.get('/avatars/:id', {
    schema: { tags, summary: 'Get an avatar', params, response: { 200: AvatarView, ...problemResponses(400, 401, 404) } },
  }, async (req) => avatarView(await app.get(req.params.id)))

  f.delete('/avatars/:id', {
    schema: { tags, summary: 'Delete an avatar permanently', params, response: { 204: NoContent, ...problemResponses(401, 403, 404) } },
  }, async (req, reply) => {
    await app.delete(req.principal, req.params.id)
    return noContent(reply)
  })

  f.put('/avatars/:id', {
    schema: {
      tags,
      summary: 'Provision an avatar for a user (services only; idempotent)',
      description: 'Makes the avatar with this id for `ownerId` unless it exists; 409 when it exists for another owner. ' +
        'Used by the edge when services run apart. Players get 403.',
      params, body: ProvisionBody, response: { 204: NoContent, ...problemResponses(400, 401, 403, 409) },
    },
  }, async (req, reply) => {
    await app.provisionFor(req.principal, { avatarId: req.params.id, ownerId: req.body.ownerId, name: req.body.name })
    return noContent(reply)
  })

  f.get('/avatars/:id/owner', {
    schema: { tags, summary: 'The user owning the avatar (services only)', params, response: { 200: OwnerView, ...problemResponses(401, 403, 404) } },
  }, async (req) => ({ userId: await app.ownerFor(req.principal, req.params.id) }))

  f.get('/avatars/:id/name', {
    schema: { tags, params, response: { 200: NameView, ...problemResponses(401, 404) } },
  }, async (req) => ({ name: (await app.get(req.params.id)).name, _links: nameLinks(req.params.id) }))

  f.patch('/avatars/:id/name', {
    schema: { tags, params, body: NameBody, response: { 204: NoContent, ...problemResponses(400, 401, 403, 404) } },
  }, async (req, reply) => {
    await app.rename(req.principal, req.params.id, req.body.name)
    return noContent(reply)
  })

  // ---- money, experience and level, health and mana ----

  f.get('/avatars/:id/money', {
    schema: { tags, params, response: { 200: MoneyView, ...problemResponses(401, 404) } },
  }, async (req) => ({ amount: (await app.get(req.params.id)).money, _links: moneyLinks(req.params.id) }))

  f.get('/avatars/:id/experience', {
    schema: { tags, params, response: { 200: ExperienceView, ...problemResponses(401, 404) } },
  }, async (req) => ({ amount: (await app.get(req.params.id)).experience, _links: experienceLinks(req.params.id) }))

  f.get('/avatars/:id/level', {
    schema: { tags, params, response: { 200: LevelView, ...problemResponses(401, 404) } },
  }, async (req) => ({ ...levelOf(await app.get(req.params.id)), _links: levelLinks(req.params.id) }))

  f.get('/avatars/:id/health', {
    schema: { tags, params, response: { 200: HealthView, ...problemResponses(401, 404) } },
  }, async (req) => {
    const a = await app.get(req.params.id)
    return { current: a.health, max: a.maxHealth, _links: healthLinks(a.id) }
  })

  f.post('/avatars/:id/health/damage', {
    schema: { tags, params, headers, body: DamageAmount, response: { 200: DiedView, ...problemResponses(400, 401, 403, 404, 409) } },
  }, async (req) => app.damage(req.principal, req.params.id, req.body.amount, idempotencyKeyOf(req)))

  f.get('/avatars/:id/mana', {
    schema: { tags, params, response: { 200: ManaView, ...problemResponses(401, 404) } },
  }, async (req) => {
    const a = await app.get(req.params.id)
    return { amount: a.mana, max: a.maxMana, _links: manaLinks(a.id) }
  })

  for (const [path, summary, act] of amountActions) {
    const run = act(app)
    f.post(`/avatars/:id/${path}`, {
      schema: { tags, summary, params, headers, body: Amount, response: { 204: NoContent, ...problemResponses(400, 401, 403, 404, 409) } },
    }, async (req, reply) => {
      await run(req.principal, req.params.id, req.body.amount, idempotencyKeyOf(req))
      return noContent(reply)
    })
  }

  // ---- stats ----

  f.get('/avatars/:id/stats', {
    schema: { tags, params, response: { 200: StatsView, ...problemResponses(401, 404) } },
  }, async (req) => ({ ...statsOf(await app.get(req.params.id)), _links: statsLinks(req.params.id) }))

  for (const stat of STATS) {
    f.post(`/avatars/:id/stats/${stat}`, {
      schema: { tags, summary: `Spend one unspent stat point on ${stat}`, params,
        response: { 204: NoContent, ...problemResponses(400, 401, 403, 404) } },
    }, async (req, reply) => {
      await app.increaseStat(req.principal, req.params.id, stat as Stat)
      return noContent(reply)
    })
  }
}
