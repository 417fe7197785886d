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
import { AMOUNT_MAX, AMOUNT_MIN, AVATAR_NAME_MAX, DAMAGE_MIN, MAX_AVATARS_PER_USER, MONEY_MAX, RESERVED_AVATAR_IDS, STARTING_AVATAR, STATS } from '../domain/rules.js'
import { KEYED, MINTS, OWNER_ONLY, READABLE } from './docs.js'
import {
  Amount, AvatarIdParams, AvatarView, CreateAvatarBody, CreatedView, DamageAmount, DiedView, ExperienceView, HealthView,
  LevelView, ManaView, MoneyView, NameBody, NameView, SearchCriteria, SearchQuery, SearchView, StatsView,
} from './schemas.js'
import {
  avatarView, createdLinks, experienceLinks, healthLinks, levelLinks, levelOf, manaLinks, moneyLinks, nameLinks,
  statsLinks, statsOf,
} from './views.js'

const tags = ['avatars']
const params = AvatarIdParams

const AMOUNT = `\`amount\` is a whole number from ${AMOUNT_MIN} to ${AMOUNT_MAX} (400 \`validation\` otherwise).`

/** The POST actions that take `{amount}` and answer 204: path, its document entry, the use case. */
const amountActions: [path: string, doc: { operationId: string; summary: string; description: string }, act: (app: AvatarApp) => AmountAction][] = [
  ['money/earn', {
    operationId: 'earnMoney', summary: 'Earn money: add it to the wallet',
    description: `${AMOUNT} Refused with 400 \`wallet-full\` when the wallet would hold more than ${MONEY_MAX}; nothing changes. ${OWNER_ONLY} ${MINTS} ${KEYED}`,
  }, (app) => app.earnMoney.bind(app)],
  ['money/spend', {
    operationId: 'spendMoney', summary: 'Take money from the wallet (400 when it holds less)',
    description: `${AMOUNT} Refused with 400 \`insufficient-funds\` when the wallet holds less; nothing changes. ${OWNER_ONLY} ${KEYED}`,
  }, (app) => app.spendMoney.bind(app)],
  ['experience/grant', {
    operationId: 'grantExperience', summary: 'Grant experience; levels gained carry the rest over',
    description: `${AMOUNT} Each level gained raises max health and mana (both refilled), adds a stat point and money, may teach ` +
      `a spell, and is told by \`AvatarLeveledUp\`. ${OWNER_ONLY} ${MINTS} ${KEYED}`,
  }, (app) => app.grantExperience.bind(app)],
  ['health/heal', {
    operationId: 'healAvatar', summary: 'Restore health, up to the maximum',
    description: `${AMOUNT} Health stops at its maximum; healing a healthy avatar changes nothing and is not refused. ${OWNER_ONLY} ${MINTS} ${KEYED}`,
  }, (app) => app.heal.bind(app)],
  ['mana/spend', {
    operationId: 'spendMana', summary: 'Spend mana (400 when there is less)',
    description: `${AMOUNT} Refused with 400 \`insufficient-mana\` when the avatar has less; nothing changes. ${OWNER_ONLY} ${KEYED}`,
  }, (app) => app.spendMana.bind(app)],
  ['mana/restore', {
    operationId: 'restoreMana', summary: 'Restore mana, up to the maximum',
    description: `${AMOUNT} Mana stops at its maximum. ${OWNER_ONLY} ${MINTS} ${KEYED}`,
  }, (app) => app.restoreMana.bind(app)],
]
type AmountAction = (p: Principal, id: string, amount: number, key?: string) => Promise<void>
const capitalized = (word: string) => word.charAt(0).toUpperCase() + word.slice(1)
const headers = IdempotencyHeaders
const validateSearchBody = compileBodyValidator(SearchCriteria)

export const avatarRoutes: FastifyPluginAsyncTypebox<{ app: AvatarApp }> = async (f, { app }) => {
  f.post('/avatars', {
    schema: {
      tags,
      operationId: 'createAvatar',
      summary: 'Create an avatar owned by the caller',
      description: `Besides the avatar made at registration a player may create at most ${MAX_AVATARS_PER_USER}; it starts at level ` +
        `${STARTING_AVATAR.level} with ${STARTING_AVATAR.money} money, and its marketplace is made from its \`AvatarCreated\` event. ` +
        `Refused with 400 \`reserved-avatar-id\` for an id that is a word of the API (${RESERVED_AVATAR_IDS.join(', ')}), ` +
        '400 `too-many-avatars` past the cap, 409 `avatar-exists` when the id is taken, and 401 ' +
        '`invalid-token` when the caller\'s account was deleted meanwhile.',
      body: CreateAvatarBody,
      response: { 200: CreatedView, ...problemResponses(400, 401, 409) },
    },
  }, async (req) => {
    const a = await app.create(req.principal, req.body)
    return { id: a.id, _links: createdLinks(a.id) }
  })

  f.get('/avatars/search', {
    schema: {
      tags,
      operationId: 'searchAvatars',
      summary: 'Search avatars by name and/or level range',
      description: 'Criteria come from a JSON body (as the contract sends them on GET) or from query parameters; ' +
        'they combine with AND, an omitted one does not filter, `name` is a case-insensitive substring, level bounds are inclusive. ' +
        'Any signed-in player may search; at most `limit` avatars are answered. Refused with 400 `invalid-level-range` when ' +
        '`minLevel` is greater than `maxLevel`, and 400 `validation` for a criterion out of its bounds.',
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
    schema: {
      tags, operationId: 'getAvatar', summary: 'Get an avatar', description: `Its state, stats, items and spells, with links. ${READABLE}`,
      params, response: { 200: AvatarView, ...problemResponses(400, 401, 404) },
    },
  }, async (req) => avatarView(await app.get(req.params.id)))

  f.delete('/avatars/:id', {
    schema: {
      tags,
      operationId: 'deleteAvatar',
      summary: 'Delete an avatar permanently',
      description: `${OWNER_ONLY} Its \`AvatarDeleted\` cascades: its habits, marketplace and sold items are deleted, it leaves its ` +
        'guild (a leader is succeeded), its invites go and its quest participations end.',
      params, response: { 204: NoContent, ...problemResponses(401, 403, 404) },
    },
  }, async (req, reply) => {
    await app.delete(req.principal, req.params.id)
    return noContent(reply)
  })

  f.get('/avatars/:id/name', {
    schema: {
      tags, operationId: 'getAvatarName', summary: "Get an avatar's name", description: READABLE,
      params, response: { 200: NameView, ...problemResponses(401, 404) },
    },
  }, async (req) => ({ name: (await app.get(req.params.id)).name, _links: nameLinks(req.params.id) }))

  f.patch('/avatars/:id/name', {
    schema: {
      tags,
      operationId: 'renameAvatar',
      summary: 'Rename an avatar',
      description: `The name is trimmed; a blank one or one over ${AVATAR_NAME_MAX} characters is 400 \`validation\`. ` +
        `Told by \`AvatarRenamed\`. ${OWNER_ONLY}`,
      params, body: NameBody, response: { 204: NoContent, ...problemResponses(400, 401, 403, 404) },
    },
  }, async (req, reply) => {
    await app.rename(req.principal, req.params.id, req.body.name)
    return noContent(reply)
  })

  // ---- money, experience and level, health and mana ----

  f.get('/avatars/:id/money', {
    schema: {
      tags, operationId: 'getAvatarMoney', summary: "Get the money in an avatar's wallet", description: READABLE,
      params, response: { 200: MoneyView, ...problemResponses(401, 404) },
    },
  }, async (req) => ({ amount: (await app.get(req.params.id)).money, _links: moneyLinks(req.params.id) }))

  f.get('/avatars/:id/experience', {
    schema: {
      tags, operationId: 'getAvatarExperience', summary: "Get an avatar's experience within its level", description: READABLE,
      params, response: { 200: ExperienceView, ...problemResponses(401, 404) },
    },
  }, async (req) => ({ amount: (await app.get(req.params.id)).experience, _links: experienceLinks(req.params.id) }))

  f.get('/avatars/:id/level', {
    schema: {
      tags, operationId: 'getAvatarLevel', summary: "Get an avatar's level and the experience it needs to leave it",
      description: `Experience needed to leave level L is 50·L + 50. ${READABLE}`,
      params, response: { 200: LevelView, ...problemResponses(401, 404) },
    },
  }, async (req) => ({ ...levelOf(await app.get(req.params.id)), _links: levelLinks(req.params.id) }))

  f.get('/avatars/:id/health', {
    schema: {
      tags, operationId: 'getAvatarHealth', summary: "Get an avatar's health and its maximum", description: READABLE,
      params, response: { 200: HealthView, ...problemResponses(401, 404) },
    },
  }, async (req) => {
    const a = await app.get(req.params.id)
    return { current: a.health, max: a.maxHealth, _links: healthLinks(a.id) }
  })

  f.post('/avatars/:id/health/damage', {
    schema: {
      tags,
      operationId: 'damageAvatar',
      summary: 'Deal damage to an avatar; answers whether it died',
      description: `\`amount\` is a whole number from ${DAMAGE_MIN} to ${AMOUNT_MAX}. At 0 health the avatar dies: the experience of its level ` +
        'and a tenth of its money are lost, health and mana refill, and `AvatarDied` tells it. ' +
        `${OWNER_ONLY} ${KEYED}`,
      params, headers, body: DamageAmount, response: { 200: DiedView, ...problemResponses(400, 401, 403, 404, 409) },
    },
  }, async (req) => app.damage(req.principal, req.params.id, req.body.amount, idempotencyKeyOf(req)))

  f.get('/avatars/:id/mana', {
    schema: {
      tags, operationId: 'getAvatarMana', summary: "Get an avatar's mana and its maximum", description: READABLE,
      params, response: { 200: ManaView, ...problemResponses(401, 404) },
    },
  }, async (req) => {
    const a = await app.get(req.params.id)
    return { amount: a.mana, max: a.maxMana, _links: manaLinks(a.id) }
  })

  for (const [path, doc, act] of amountActions) {
    const run = act(app)
    f.post(`/avatars/:id/${path}`, {
      schema: { tags, ...doc, params, headers, body: Amount, response: { 204: NoContent, ...problemResponses(400, 401, 403, 404, 409) } },
    }, async (req, reply) => {
      await run(req.principal, req.params.id, req.body.amount, idempotencyKeyOf(req))
      return noContent(reply)
    })
  }

  // ---- stats ----

  f.get('/avatars/:id/stats', {
    schema: {
      tags, operationId: 'getAvatarStats', summary: "Get an avatar's stats, unspent points and effective attack and armor",
      description: `Attack is strength plus the equipped weapon's power, armor defense plus the equipped armor's. ${READABLE}`,
      params, response: { 200: StatsView, ...problemResponses(401, 404) },
    },
  }, async (req) => ({ ...statsOf(await app.get(req.params.id)), _links: statsLinks(req.params.id) }))

  for (const stat of STATS) {
    f.post(`/avatars/:id/stats/${stat}`, {
      schema: {
        tags,
        operationId: `increase${capitalized(stat)}`,
        summary: `Spend one unspent stat point on ${stat}`,
        description: `Adds 1 to ${stat} for one unspent point. Refused with 400 \`no-stat-points\` when none is left ` +
          `(each level gained brings one). ${OWNER_ONLY}`,
        params, response: { 204: NoContent, ...problemResponses(400, 401, 403, 404) },
      },
    }, async (req, reply) => {
      await app.increaseStat(req.principal, req.params.id, stat as Stat)
      return noContent(reply)
    })
  }
}
