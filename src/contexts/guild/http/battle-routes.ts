import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { NotFound } from '../../../platform/errors.js'
import { NoContent, noContent, problemResponses } from '../../../platform/http/schemas.js'
import type { BattleApp } from '../app/battle-app.js'
import { BOSSES, BOSS_TYPES, MIN_HIT } from '../domain/rules.js'
import {
  AttackListView, AttackParams, AttackView, BattleIdParams, BattleListView, BattleView, BossCatalogView, BossView, CancelBattleBody,
  CreatedView, DamageBody, GuildOfBattleParams, StartBattleBody,
} from './schemas.js'
import { attackPath, attackView, battleLinks, battleView, bossView } from './views.js'

const tags = ['battles']
const params = BattleIdParams
const reads = problemResponses(401, 404)
const TurnView = Type.Object({ turn: Type.Integer() })

// The rules the descriptions state, each shared by the routes it applies to.
const READ = 'Any signed-in player may read any battle, in progress or finished. Refused with 404 `not-found` for an unknown battle.'
const GUILD_READ = 'Any signed-in player may read it. Refused with 404 `not-found` for an unknown guild.'
const LEADER_ACTS = '`requesterId` must name an avatar the caller owns (400 `unknown-avatar` when there is none, 403 `not-owner` ' +
  'when it is someone else\'s) and the guild\'s leader (403 `guild-role-required`).'

export const battleRoutes: FastifyPluginAsyncTypebox<{ app: BattleApp }> = async (f, { app }) => {
  f.get('/battles/bosses', {
    schema: {
      tags, operationId: 'listBosses', summary: 'List the bosses a guild can fight',
      description: 'Each boss type with its stats, the experience and money every participant wins, the penalty every participant ' +
        'takes on a defeat, and the turns each participating member brings to the shared pool. Any signed-in player may read it.',
      response: { 200: BossCatalogView, ...problemResponses(401) },
    },
  }, async () => ({ bosses: BOSS_TYPES.map((t) => bossView(t, BOSSES[t])) }))

  f.post('/battles', {
    schema: {
      tags, operationId: 'startBattle', summary: "Start a battle against a boss (the guild's leader)",
      description: `${LEADER_ACTS} One battle in progress per guild: 400 \`battle-in-progress\` names it. An unknown \`bossType\` ` +
        'is 400 `validation` naming the allowed values; an unknown guild 404 `not-found`. The members now are its participants, ' +
        'entering as they are now (their attack, defense and health: gear equipped later counts from the next battle); they share ' +
        'a pool of turns (the boss\'s turns per member × participants). Emits `BattleStarted`.',
      body: StartBattleBody, response: { 200: CreatedView, ...problemResponses(400, 401, 403, 404) },
    },
  }, async (req) => {
    const b = await app.start(req.principal, req.body)
    return { id: b.id, _links: battleLinks(b) }
  })

  f.get('/battles/:id', {
    schema: { tags, operationId: 'getBattle', summary: 'Get a battle: its boss, turns, participants and status', description: READ,
      params, response: { 200: BattleView, ...reads } },
  }, async (req) => battleView(await app.get(req.params.id)))

  f.delete('/battles/:id', {
    schema: {
      tags, operationId: 'cancelBattle', summary: "Cancel and delete a battle in progress (the guild's leader)",
      description: `${LEADER_ACTS} The battle must be one of \`guildId\` (400 \`battle-of-another-guild\`) and in progress ` +
        '(400 `battle-over`); 404 `not-found` for an unknown battle. Nobody is rewarded or penalized. Emits `BattleCancelled`.',
      params, body: CancelBattleBody, response: { 204: NoContent, ...problemResponses(400, 401, 403, 404) },
    },
  }, async (req, reply) => {
    await app.cancel(req.principal, req.params.id, req.body)
    return noContent(reply)
  })

  f.get('/battles/guild/:guildId', {
    schema: {
      tags, operationId: 'getBattleInProgress', summary: "Get a guild's battle in progress",
      description: 'Any signed-in player may read it. Refused with 404 `not-found` when the guild has no battle in progress, ' +
        'or for an unknown guild (`…/in-progress` tells the two apart).',
      params: GuildOfBattleParams, response: { 200: BattleView, ...reads },
    },
  }, async (req) => {
    const b = await app.inProgressOf(req.params.guildId)
    if (!b) throw new NotFound(`Battle in progress of guild '${req.params.guildId}'`)
    return battleView(b)
  })

  f.get('/battles/guild/:guildId/in-progress', {
    schema: { tags, operationId: 'checkBattleInProgress', summary: 'Tell whether a guild has a battle in progress',
      description: `\`{inProgress: false}\` for a guild with none. ${GUILD_READ}`, params: GuildOfBattleParams,
      response: { 200: Type.Object({ inProgress: Type.Boolean() }), ...reads } },
  }, async (req) => ({ inProgress: (await app.inProgressOf(req.params.guildId)) !== undefined }))

  f.get('/battles/guild/:guildId/history', {
    schema: { tags, operationId: 'listGuildBattles', summary: "List a guild's battles, newest first (the last 50)",
      description: `Finished battles and the one in progress, if any. ${GUILD_READ}`, params: GuildOfBattleParams,
      response: { 200: BattleListView, ...reads } },
  }, async (req) => ({ items: (await app.ofGuild(req.params.guildId, 50)).map(battleView) }))

  f.get('/battles/:id/boss', {
    schema: { tags, operationId: 'getBattleBoss', summary: "Get a battle's boss and its stats", description: READ, params,
      response: { 200: BossView, ...reads } },
  }, async (req) => {
    const b = await app.get(req.params.id)
    return bossView(b.bossType, b.boss)
  })

  f.get('/battles/:id/boss/health', {
    schema: { tags, operationId: 'getBattleBossHealth', summary: "Get the boss's remaining health", description: READ, params,
      response: { 200: Type.Object({ remainingHealth: Type.Integer() }), ...reads } },
  }, async (req) => ({ remainingHealth: (await app.get(req.params.id)).bossRemainingHealth }))

  f.get('/battles/:id/turns/current', {
    schema: { tags, operationId: 'getBattleCurrentTurn', summary: 'Get the turns a battle has used', description: `${READ} 0 before the first attack.`,
      params, response: { 200: TurnView, ...reads } },
  }, async (req) => ({ turn: (await app.get(req.params.id)).currentTurn }))

  f.get('/battles/:id/turns/total', {
    schema: {
      tags, operationId: 'getBattleTotalTurns', summary: "Get a battle's pool of turns",
      description: `${READ} The boss's turns per member × the participants; when they are used up with the boss alive, the battle is LOST.`,
      params, response: { 200: TurnView, ...reads },
    },
  }, async (req) => ({ turn: (await app.get(req.params.id)).numOfTurns }))

  f.get('/battles/:id/status', {
    schema: { tags, operationId: 'getBattleStatus', summary: "Get a battle's status: in progress, won or lost", description: READ, params,
      response: { 200: Type.Object({ status: Type.String(), isOver: Type.Boolean(), isWon: Type.Boolean() }), ...reads } },
  }, async (req) => {
    const { status } = await app.get(req.params.id)
    return { status, isOver: status !== 'IN_PROGRESS', isWon: status === 'WON' }
  })

  f.post('/battles/:id/damage', {
    schema: {
      tags, operationId: 'attackBoss', summary: 'Attack the boss with a participant the caller owns (one turn)',
      description: '`attackerAvatarId` must name an avatar the caller owns (400 `unknown-avatar`, 403 `not-owner`) that is a ' +
        'participant (403 `not-a-participant`) and has not fallen (400 `attacker-fallen`); the battle must be in progress ' +
        `(400 \`battle-over\`; 404 \`not-found\` for an unknown battle). Dealt: max(${MIN_HIT}, min(damage, the attacker's ` +
        `effective attack as it entered the battle) − the boss's defense). A boss that survives strikes back for max(${MIN_HIT}, ` +
        'strength − the attacker\'s effective defense as it entered); an attacker it kills has fallen for this battle. ' +
        'Concurrent attacks are serialized: no damage or turn is lost. The Location header names the attack. Emits `BattleTurnTaken` (and `BossStruckBack`); the last turn ' +
        '`BattleWon` (every participant gets the boss\'s experience and money) or `BattleLost` (every participant takes its penalty).',
      params, body: DamageBody, response: { 204: NoContent, ...problemResponses(400, 401, 403, 404) },
    },
  }, async (req, reply) => {
    const turn = await app.attackBoss(req.principal, req.params.id, req.body)
    reply.header('location', attackPath(req.params.id, turn))
    return noContent(reply)
  })

  f.get('/battles/:id/attacks', {
    schema: { tags, operationId: 'listBattleAttacks', summary: "List a battle's accepted attacks, in turn order", description: READ, params,
      response: { 200: AttackListView, ...reads } },
  }, async (req) => ({ items: (await app.attacks(req.params.id)).map((a) => attackView(req.params.id, a)) }))

  f.get('/battles/:id/attacks/:turn', {
    schema: {
      tags, operationId: 'getBattleAttack', summary: 'Get one attack: what it dealt and what the boss struck back',
      description: 'Any signed-in player may read it. Refused with 404 `not-found` for an unknown battle or a turn it has not taken.',
      params: AttackParams, response: { 200: AttackView, ...reads },
    },
  }, async (req) => attackView(req.params.id, await app.attack(req.params.id, req.params.turn)))

}
