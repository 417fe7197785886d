import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { buildTestApp, type TestApp } from './support/app.js'
import { guildUrl, joinGuild, newGuild } from './support/guilds.js'
import { avatarOf } from './support/habits.js'
import { newPlayer, type Player } from './support/players.js'
import { expectProblem } from './support/problems.js'

let app: TestApp
beforeAll(async () => {
  app = await buildTestApp()
})
afterAll(() => app.close())

const post = (p: Player, url: string, payload?: object) => app.inject({ method: 'POST', url, headers: p.auth, ...(payload ? { payload } : {}) })
const del = (p: Player, url: string, payload?: object) => app.inject({ method: 'DELETE', url, headers: p.auth, ...(payload ? { payload } : {}) })
const get = (p: Player, url: string) => app.inject({ url, headers: p.auth })
const battleUrl = (id: string, rest = '') => `/api/v1/battles/${id}${rest}`

async function guildOfSize(n: number) {
  const players = await Promise.all(Array.from({ length: n }, (_, i) => newPlayer(app, `Fighter ${i}`)))
  const leader = players[0]!
  const guildId = await newGuild(app, leader)
  for (const p of players.slice(1)) await joinGuild(app, guildId, leader, p)
  return { guildId, leader, players }
}

async function startBattle(leader: Player, guildId: string, bossType: string): Promise<string> {
  const res = await post(leader, '/api/v1/battles', { guildId, bossType, requesterId: leader.avatarId })
  expect(res.statusCode, res.body).toBe(200)
  return res.json().id
}

const hit = (p: Player, battleId: string, damage: number) => post(p, battleUrl(battleId, '/damage'), { damage, attackerAvatarId: p.avatarId })

/** Gives the avatar a sword of this power and equips it (open economy). */
async function arm(p: Player, power: number): Promise<void> {
  const item = { type: 'WEAPON', name: `Sword ${power}`, description: 'sharp', power }
  expect((await post(p, `/api/v1/avatars/${p.avatarId}/inventory/items`, item)).statusCode).toBe(204)
  expect((await post(p, `/api/v1/avatars/${p.avatarId}/inventory/items/equip`, { type: 'WEAPON', name: item.name })).statusCode).toBe(204)
}

test('the boss catalog lists every boss type with its stats', async () => {
  const p = await newPlayer(app)
  const bosses = (await get(p, '/api/v1/battles/bosses')).json().bosses
  expect(bosses.map((b: { type: string }) => b.type)).toEqual(['GOBLIN', 'MINOTAUR', 'TROLL', 'HYDRA', 'DRAGON'])
  expect(bosses[0]).toEqual({
    type: 'GOBLIN', name: 'Goblin Chief', health: 150, strength: 8, defense: 2, experienceReward: 50, moneyReward: 25, penalty: 5, turnsPerMember: 6,
  })
})

test('a battle from start to WON: every participant is rewarded once, the guild gains points', async () => {
  const { guildId, leader, players: [, member] } = await guildOfSize(2)
  await arm(leader, 50)
  await arm(member!, 50)
  const id = await startBattle(leader, guildId, 'GOBLIN')
  const started = (await get(leader, battleUrl(id))).json()
  expect(started).toMatchObject({ id, guildId, status: 'IN_PROGRESS', currentTurn: 0, numOfTurns: 12, bossRemainingHealth: 150, boss: { name: 'Goblin Chief' } })
  expect((await get(leader, `/api/v1/battles/guild/${guildId}`)).json().id).toBe(id)
  expect((await get(leader, `/api/v1/battles/guild/${guildId}/in-progress`)).json()).toEqual({ inProgress: true })

  // Attack 60 (10 strength + 50 sword) asked 100: 60 - 2 defense = 58; the goblin strikes back max(1, 8 - 10) = 1.
  const first = await hit(leader, id, 100)
  expect(first.statusCode).toBe(204)
  expect(first.headers.location).toBe(battleUrl(id, '/attacks/1'))
  expect((await get(leader, String(first.headers.location))).json()).toMatchObject({ turn: 1, attackerAvatarId: leader.avatarId, dealt: 58, strikeBack: 1, attackerFell: false })
  expect((await hit(member!, id, 100)).statusCode).toBe(204)
  expect((await get(leader, battleUrl(id, '/boss/health'))).json()).toEqual({ remainingHealth: 34 })
  expect((await get(leader, battleUrl(id, '/turns/current'))).json()).toEqual({ turn: 2 })
  expect((await get(leader, battleUrl(id, '/turns/total'))).json()).toEqual({ turn: 12 })
  // The killing blow deals what is left and draws no strike-back.
  expect((await hit(leader, id, 100)).statusCode).toBe(204)
  expect((await get(leader, battleUrl(id, '/attacks/3'))).json()).toMatchObject({ dealt: 34, strikeBack: 0 })
  expect((await get(leader, battleUrl(id, '/status'))).json()).toEqual({ status: 'WON', isOver: true, isWon: true })

  await app.settle()
  await app.settle()
  for (const p of [leader, member!]) {
    const a = await avatarOf(app, p)
    expect(a.level.currentExperience).toBe(50)
    expect(a.money.amount).toBe(125)
    expect(a.health.current).toBe(99)
  }
  expect((await get(leader, guildUrl(guildId))).json().points).toBe(5)
  expect((await get(leader, `/api/v1/battles/guild/${guildId}/in-progress`)).json()).toEqual({ inProgress: false })
  expectProblem(await get(leader, `/api/v1/battles/guild/${guildId}`), 404)
  // Finished battles stay readable and refuse further attacks.
  expect((await get(leader, battleUrl(id))).json()).toMatchObject({ status: 'WON', currentTurn: 3, bossRemainingHealth: 0 })
  expectProblem(await hit(member!, id, 100), 400, 'battle-over')
  expect((await get(leader, `/api/v1/battles/guild/${guildId}/history`)).json().items.map((b: { id: string }) => b.id)).toEqual([id])
})

test('turns used up: LOST, and every participant takes the penalty once', async () => {
  const { guildId, leader } = await guildOfSize(1)
  const id = await startBattle(leader, guildId, 'GOBLIN')
  // Alone: 6 turns. Each attack deals 10 - 2 = 8 and takes 1 back.
  for (let i = 0; i < 6; i++) expect((await hit(leader, id, 1000)).statusCode).toBe(204)
  expect((await get(leader, battleUrl(id, '/status'))).json()).toEqual({ status: 'LOST', isOver: true, isWon: false })
  expect((await get(leader, battleUrl(id))).json()).toMatchObject({ currentTurn: 6, bossRemainingHealth: 102 })
  await app.settle()
  await app.settle()
  const a = await avatarOf(app, leader)
  expect(a.health.current).toBe(100 - 6 - 5)
  expect(a.level.currentExperience).toBe(0)
  expect(a.money.amount).toBe(100)
})

test('every participant fallen: LOST before the turns run out', async () => {
  const { guildId, leader, players: [, member] } = await guildOfSize(2)
  for (const p of [leader, member!]) {
    expect((await post(p, `/api/v1/avatars/${p.avatarId}/health/damage`, { amount: 99 })).statusCode).toBe(200)
  }
  const id = await startBattle(leader, guildId, 'GOBLIN')
  expect((await hit(leader, id, 5)).statusCode).toBe(204)
  expect((await get(leader, battleUrl(id, '/attacks/1'))).json()).toMatchObject({ strikeBack: 1, attackerFell: true })
  expectProblem(await hit(leader, id, 5), 400, 'attacker-fallen')
  expect((await get(leader, battleUrl(id, '/status'))).json().status).toBe('IN_PROGRESS')
  expect((await hit(member!, id, 5)).statusCode).toBe(204)
  const b = (await get(leader, battleUrl(id))).json()
  expect(b).toMatchObject({ status: 'LOST', currentTurn: 2, numOfTurns: 12 })
  expect(b.participants.map((p: { fallen: boolean }) => p.fallen)).toEqual([true, true])
})

test('20 attacks at once by one attacker: the strike-back that takes their last health fells them, later ones are refused, each lands once', async () => {
  const { guildId, leader } = await guildOfSize(4)
  const id = await startBattle(leader, guildId, 'TROLL')
  // The troll: 5 turns a member (20 here), strength 20, defense 8. Attack 10 deals 10 - 8 = 2;
  // it strikes back 20 - 10 = 10, so the 10th strike-back takes the leader's 100 health.
  const results = await Promise.all(Array.from({ length: 20 }, () => hit(leader, id, 50)))
  const accepted = results.filter((r) => r.statusCode === 204)
  for (const r of results.filter((r) => r.statusCode !== 204)) expectProblem(r, 400, 'attacker-fallen')
  expect(accepted).toHaveLength(10)

  const battle = (await get(leader, battleUrl(id))).json()
  expect(battle).toMatchObject({ status: 'IN_PROGRESS', currentTurn: 10, bossRemainingHealth: 780 })
  expect(battle.participants[0]).toEqual({ avatarId: leader.avatarId, fallen: true, damageDealt: 20, attacks: 10 })
  const log = (await get(leader, battleUrl(id, '/attacks'))).json().items as { turn: number; strikeBack: number; attackerFell: boolean }[]
  expect(log.map((a) => a.turn)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10])
  expect(log.map((a) => a.strikeBack)).toEqual(Array(10).fill(10))
  expect(log.map((a) => a.attackerFell)).toEqual([...Array(9).fill(false), true])
  expectProblem(await hit(leader, id, 50), 400, 'attacker-fallen')

  // The avatar took the 100 once: it died once (health refilled, a tenth of its 100 money gone), not twice.
  await app.settle()
  await app.settle()
  const a = await avatarOf(app, leader)
  expect(a.health.current).toBe(100)
  expect(a.money.amount).toBe(90)
})

test('a member hurt elsewhere during the battle and killed by a strike-back is fallen: its next attack is refused', async () => {
  const { guildId, leader, players: [, member] } = await guildOfSize(2)
  const id = await startBattle(leader, guildId, 'TROLL')
  // Entered at 100; then down to 5 elsewhere. The troll strikes back 20 - 10 = 10.
  expect((await post(member!, `/api/v1/avatars/${member!.avatarId}/health/damage`, { amount: 95 })).statusCode).toBe(200)
  expect((await hit(member!, id, 50)).statusCode).toBe(204)
  expect((await get(leader, battleUrl(id, '/attacks/1'))).json()).toMatchObject({ strikeBack: 10, attackerFell: true })
  expectProblem(await hit(member!, id, 50), 400, 'attacker-fallen')
  // The strike-back reached the avatar once: the member died once.
  await app.settle()
  const a = await avatarOf(app, member!)
  expect(a.health.current).toBe(100)
  expect(a.money.amount).toBe(90)
})

test('a member who died elsewhere during the battle is fallen for it', async () => {
  const { guildId, leader, players: [, member] } = await guildOfSize(2)
  const id = await startBattle(leader, guildId, 'GOBLIN')
  expect((await hit(member!, id, 5)).statusCode).toBe(204)
  expect((await post(member!, `/api/v1/avatars/${member!.avatarId}/health/damage`, { amount: 1_000 })).json()).toMatchObject({ died: true })
  expectProblem(await hit(member!, id, 5), 400, 'attacker-fallen')
  // The battle hears of the death (AvatarDied) and marks the fall.
  await app.settle()
  expect((await get(leader, battleUrl(id))).json().participants[1]).toMatchObject({ avatarId: member!.avatarId, fallen: true })
  expect((await hit(leader, id, 5)).statusCode).toBe(204)
  // The leader dies too: no one is left standing, and the battle is lost.
  expect((await post(leader, `/api/v1/avatars/${leader.avatarId}/health/damage`, { amount: 1_000 })).json()).toMatchObject({ died: true })
  await app.settle()
  expect((await get(leader, battleUrl(id, '/status'))).json()).toEqual({ status: 'LOST', isOver: true, isWon: false })
})

test('members fight as they are: a sword equipped during the battle counts from the next attack; the battle refuses an outsider', async () => {
  const { guildId, leader } = await guildOfSize(1)
  const outsider = await newPlayer(app)
  const id = await startBattle(leader, guildId, 'GOBLIN')
  // Attack 10 (strength alone) asked 100: 10 - 2 = 8 dealt.
  expect((await hit(leader, id, 100)).statusCode).toBe(204)
  await arm(leader, 50)
  // Then 10 + 50 = 60 attack: 58 dealt.
  expect((await hit(leader, id, 100)).statusCode).toBe(204)
  const log = (await get(leader, battleUrl(id, '/attacks'))).json().items as { dealt: number }[]
  expect(log.map((a) => a.dealt)).toEqual([8, 58])
  // Whose avatar it is is checked on every attack: someone else may not attack with it.
  expectProblem(await post(outsider, battleUrl(id, '/damage'), { damage: 5, attackerAvatarId: leader.avatarId }), 403, 'not-owner')
})

test('five starts at once: one battle starts, the others are refused 400 battle-in-progress', async () => {
  const { guildId, leader } = await guildOfSize(3)
  const answers = await Promise.all(Array.from({ length: 5 }, () => post(leader, '/api/v1/battles', { guildId, bossType: 'GOBLIN', requesterId: leader.avatarId })))
  const started = answers.filter((a) => a.statusCode === 200)
  expect(started).toHaveLength(1)
  for (const refused of answers.filter((a) => a.statusCode !== 200)) expectProblem(refused, 400, 'battle-in-progress')
  expect((await get(leader, `/api/v1/battles/guild/${guildId}`)).json().id).toBe(started[0]!.json().id)
})

test('a battle started while its guild is deleted: either it started and went with the guild, or it never started', async () => {
  for (let round = 0; round < 5; round++) {
    const { guildId, leader } = await guildOfSize(2)
    const [started, deleted] = await Promise.all([
      post(leader, '/api/v1/battles', { guildId, bossType: 'GOBLIN', requesterId: leader.avatarId }),
      del(leader, guildUrl(guildId)),
    ])
    expect(deleted.statusCode, deleted.body).toBe(204)
    if (started.statusCode === 200) expectProblem(await get(leader, battleUrl(started.json().id)), 404)
    else expectProblem(started, 404)
  }
})

test('the leader cancels a battle in progress; another can start after', async () => {
  const { guildId, leader, players: [, member] } = await guildOfSize(2)
  const id = await startBattle(leader, guildId, 'TROLL')
  expectProblem(await post(leader, '/api/v1/battles', { guildId, bossType: 'GOBLIN', requesterId: leader.avatarId }), 400, 'battle-in-progress')
  expectProblem(await del(member!, battleUrl(id), { guildId, requesterId: member!.avatarId }), 403, 'guild-role-required')
  const other = await guildOfSize(1)
  expectProblem(await del(leader, battleUrl(id), { guildId: other.guildId, requesterId: leader.avatarId }), 400, 'battle-of-another-guild')
  expect((await del(leader, battleUrl(id), { guildId, requesterId: leader.avatarId })).statusCode).toBe(204)
  expectProblem(await get(leader, battleUrl(id)), 404)
  expect((await get(leader, `/api/v1/battles/guild/${guildId}/in-progress`)).json()).toEqual({ inProgress: false })
  await startBattle(leader, guildId, 'GOBLIN')
})

describe('refusals', () => {
  test('403: roles, avatars the caller does not own, attackers who are not participants', async () => {
    const { guildId, leader, players: [, member] } = await guildOfSize(2)
    const outsider = await newPlayer(app)
    expectProblem(await post(member!, '/api/v1/battles', { guildId, bossType: 'GOBLIN', requesterId: member!.avatarId }), 403, 'guild-role-required')
    expectProblem(await post(outsider, '/api/v1/battles', { guildId, bossType: 'GOBLIN', requesterId: leader.avatarId }), 403, 'not-owner')
    const id = await startBattle(leader, guildId, 'GOBLIN')
    expectProblem(await post(outsider, battleUrl(id, '/damage'), { damage: 5, attackerAvatarId: leader.avatarId }), 403, 'not-owner')
    expectProblem(await hit(outsider, id, 5), 403, 'not-a-participant')
    // Joining after the start does not make a participant.
    await joinGuild(app, guildId, leader, outsider)
    expectProblem(await hit(outsider, id, 5), 403, 'not-a-participant')
    expectProblem(await del(outsider, battleUrl(id), { guildId, requesterId: leader.avatarId }), 403, 'not-owner')
  })

  test('404: unknown battles and guilds', async () => {
    const p = await newPlayer(app)
    const missing = '00000000-0000-4000-8000-000000000000'
    for (const rest of ['', '/boss', '/boss/health', '/turns/current', '/turns/total', '/status', '/attacks', '/attacks/1']) {
      expectProblem(await get(p, battleUrl(missing, rest)), 404)
    }
    expectProblem(await hit(p, missing, 5), 404)
    expectProblem(await del(p, battleUrl(missing), { guildId: missing, requesterId: p.avatarId }), 404)
    expectProblem(await get(p, `/api/v1/battles/guild/${missing}`), 404)
    expectProblem(await get(p, `/api/v1/battles/guild/${missing}/in-progress`), 404)
    expectProblem(await post(p, '/api/v1/battles', { guildId: missing, bossType: 'GOBLIN', requesterId: p.avatarId }), 404)
    const { guildId, leader } = await guildOfSize(1)
    expectProblem(await get(leader, `/api/v1/battles/guild/${guildId}`), 404)
    expect((await get(leader, `/api/v1/battles/guild/${guildId}/in-progress`)).json()).toEqual({ inProgress: false })
  })

  test('400: unknown boss types name the allowed ones; damage is an integer 0–1,000,000', async () => {
    const { guildId, leader } = await guildOfSize(1)
    const bad = await post(leader, '/api/v1/battles', { guildId, bossType: 'KRAKEN', requesterId: leader.avatarId })
    expectProblem(bad, 400)
    expect(JSON.stringify(bad.json())).toContain('GOBLIN, MINOTAUR, TROLL, HYDRA, DRAGON')
    const id = await startBattle(leader, guildId, 'GOBLIN')
    for (const damage of [-1, 1.5, 1_000_001, '5', null]) {
      expectProblem(await post(leader, battleUrl(id, '/damage'), { damage, attackerAvatarId: leader.avatarId }), 400)
    }
    expectProblem(await post(leader, battleUrl(id, '/damage'), { damage: 5 }), 400)
    expect((await get(leader, battleUrl(id, '/turns/current'))).json()).toEqual({ turn: 0 })
    expect((await hit(leader, id, 1_000_000)).statusCode).toBe(204)
  })
})

test('50 attacks at once by 30 members: exact damage, one turn each, one outcome', async () => {
  const { guildId, leader, players } = await guildOfSize(30)
  const id = await startBattle(leader, guildId, 'GOBLIN')
  // Each hit deals 10 - 2 = 8: the goblin (150) falls on the 19th accepted attack.
  const results = await Promise.all(Array.from({ length: 50 }, (_, i) => hit(players[i % 30]!, id, 50)))
  const accepted = results.filter((r) => r.statusCode === 204)
  const refused = results.filter((r) => r.statusCode !== 204)
  for (const r of refused) expectProblem(r, 400, 'battle-over')
  expect(accepted).toHaveLength(19)

  const battle = (await get(leader, battleUrl(id))).json()
  const log = (await get(leader, battleUrl(id, '/attacks'))).json().items as { turn: number; dealt: number }[]
  expect(battle.status).toBe('WON')
  expect(battle.currentTurn).toBe(accepted.length)
  expect(log.map((a) => a.turn)).toEqual(Array.from({ length: accepted.length }, (_, i) => i + 1))
  expect(log.reduce((sum, a) => sum + a.dealt, 0)).toBe(150 - battle.bossRemainingHealth)
  expect(new Set(accepted.map((r) => r.headers.location)).size).toBe(accepted.length)

  await app.settle()
  await app.settle()
  const xp = await Promise.all(players.map(async (p) => (await avatarOf(app, p)).level.currentExperience))
  expect(xp).toEqual(players.map(() => 50))
  expect((await get(leader, guildUrl(guildId))).json().points).toBe(5)
})
