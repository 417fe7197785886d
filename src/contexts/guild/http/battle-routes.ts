import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { NotFound } from '../../../platform/errors.js'
import { NoContent, noContent, problemResponses } from '../../../platform/http/schemas.js'
import type { BattleApp } from '../app/battle-app.js'
import { BOSSES, BOSS_TYPES } from '../domain/rules.js'
import {
  AttackListView, AttackParams, AttackView, BattleIdParams, BattleListView, BattleView, BossCatalogView, BossView, CancelBattleBody,
  CreatedView, DamageBody, GuildOfBattleParams, StartBattleBody,
} from './schemas.js'
import { attackPath, attackView, battleLinks, battleView, bossView } from './views.js'

const tags = ['battles']
const params = BattleIdParams
const reads = problemResponses(401, 404)
const TurnView = Type.Object({ turn: Type.Integer() })

export const battleRoutes: FastifyPluginAsyncTypebox<{ app: BattleApp }> = async (f, { app }) => {
  f.get('/battles/bosses', {
    schema: { tags, summary: 'The bosses a guild can fight (bossType, stats, rewards, turns per member)', response: { 200: BossCatalogView, ...problemResponses(401) } },
  }, async () => ({ bosses: BOSS_TYPES.map((t) => bossView(t, BOSSES[t])) }))

  f.post('/battles', {
    schema: { tags, summary: "Start a battle (the guild's leader); the members now are its participants", body: StartBattleBody,
      response: { 200: CreatedView, ...problemResponses(400, 401, 403, 404) } },
  }, async (req) => {
    const b = await app.start(req.principal, req.body)
    return { id: b.id, _links: battleLinks(b) }
  })

  f.get('/battles/:id', { schema: { tags, params, response: { 200: BattleView, ...reads } } },
    async (req) => battleView(await app.get(req.params.id)))

  f.delete('/battles/:id', {
    schema: { tags, summary: 'Cancel and delete a battle in progress (the guild\'s leader)', params, body: CancelBattleBody,
      response: { 204: NoContent, ...problemResponses(400, 401, 403, 404) } },
  }, async (req, reply) => {
    await app.cancel(req.principal, req.params.id, req.body)
    return noContent(reply)
  })

  f.get('/battles/guild/:guildId', {
    schema: { tags, summary: "The guild's battle in progress (404 when there is none)", params: GuildOfBattleParams, response: { 200: BattleView, ...reads } },
  }, async (req) => {
    const b = await app.inProgressOf(req.params.guildId)
    if (!b) throw new NotFound(`Battle in progress of guild '${req.params.guildId}'`)
    return battleView(b)
  })

  f.get('/battles/guild/:guildId/in-progress', {
    schema: { tags, params: GuildOfBattleParams, response: { 200: Type.Object({ inProgress: Type.Boolean() }), ...reads } },
  }, async (req) => ({ inProgress: (await app.inProgressOf(req.params.guildId)) !== undefined }))

  f.get('/battles/guild/:guildId/history', {
    schema: { tags, summary: "The guild's battles, newest first (the last 50)", params: GuildOfBattleParams, response: { 200: BattleListView, ...reads } },
  }, async (req) => ({ items: (await app.ofGuild(req.params.guildId, 50)).map(battleView) }))

  f.get('/battles/:id/boss', { schema: { tags, params, response: { 200: BossView, ...reads } } }, async (req) => {
    const b = await app.get(req.params.id)
    return bossView(b.bossType, b.boss)
  })

  f.get('/battles/:id/boss/health', { schema: { tags, params, response: { 200: Type.Object({ remainingHealth: Type.Integer() }), ...reads } } },
    async (req) => ({ remainingHealth: (await app.get(req.params.id)).bossRemainingHealth }))

  f.get('/battles/:id/turns/current', { schema: { tags, params, response: { 200: TurnView, ...reads } } },
    async (req) => ({ turn: (await app.get(req.params.id)).currentTurn }))

  f.get('/battles/:id/turns/total', { schema: { tags, params, response: { 200: TurnView, ...reads } } },
    async (req) => ({ turn: (await app.get(req.params.id)).numOfTurns }))

  f.get('/battles/:id/status', {
    schema: { tags, params, response: { 200: Type.Object({ status: Type.String(), isOver: Type.Boolean(), isWon: Type.Boolean() }), ...reads } },
  }, async (req) => {
    const { status } = await app.get(req.params.id)
    return { status, isOver: status !== 'IN_PROGRESS', isWon: status === 'WON' }
  })

  f.post('/battles/:id/damage', {
    schema: {
      tags, summary: 'Attack the boss with a participant the caller owns; one turn. The Location header names the attack (dealt, strike-back)',
      params, body: DamageBody, response: { 204: NoContent, ...problemResponses(400, 401, 403, 404) },
    },
  }, async (req, reply) => {
    const turn = await app.attackBoss(req.principal, req.params.id, req.body)
    reply.header('location', attackPath(req.params.id, turn))
    return noContent(reply)
  })

  f.get('/battles/:id/attacks', {
    schema: { tags, summary: 'Every accepted attack, in turn order', params, response: { 200: AttackListView, ...reads } },
  }, async (req) => ({ items: (await app.attacks(req.params.id)).map((a) => attackView(req.params.id, a)) }))

  f.get('/battles/:id/attacks/:turn', {
    schema: { tags, summary: 'One attack: what it dealt and what the boss struck back with', params: AttackParams, response: { 200: AttackView, ...reads } },
  }, async (req) => attackView(req.params.id, await app.attack(req.params.id, req.params.turn)))

}
