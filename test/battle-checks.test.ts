/**
 * A cache may skip a read, never a check (DESIGN §9.1): what refuses an attack holds whichever
 * process answers it and whatever that process remembers. Two processes here: each has its own
 * avatar context (its own memory of the avatars it wrote) and its own battle context, on one
 * database; the players attack through either.
 */
import { afterAll, beforeAll, expect, inject, test } from 'vitest'
import { AvatarApp } from '../src/contexts/avatar/app/avatar-app.js'
import { LeagueApp } from '../src/contexts/avatar/app/league-app.js'
import { inProcessAvatarClient } from '../src/contexts/avatar/client.js'
import { outbox as avatarOutbox } from '../src/contexts/avatar/store/tables.js'
import { BattleApp } from '../src/contexts/guild/app/battle-app.js'
import { GuildApp } from '../src/contexts/guild/app/guild-app.js'
import { outbox as guildOutbox } from '../src/contexts/guild/store/tables.js'
import { SYSTEM, type Principal } from '../src/platform/auth/principal.js'
import { systemClock } from '../src/platform/clock.js'
import { AppError } from '../src/platform/errors.js'
import { Outbox } from '../src/platform/events/outbox.js'
import { newId } from '../src/platform/ids.js'
import { openTestDatabase, type TestDatabase } from './support/backends.js'

let testDb: TestDatabase
beforeAll(async () => {
  testDb = await openTestDatabase(inject('templates'))
})
afterAll(() => testDb.drop())

/** One process: its avatar and battle contexts (`unreachable`: its battle context cannot reach the avatar context to apply strike-backs). */
function process(opts: { unreachable?: boolean } = {}) {
  const database = testDb.database
  const avatarEvents = new Outbox('avatar', avatarOutbox, systemClock, database)
  const avatars = new AvatarApp({ database, clock: systemClock, economyMode: 'open', outbox: avatarEvents })
  const leagues = new LeagueApp({ database, clock: systemClock, outbox: avatarEvents, avatarExists: (id) => avatars.get(id) })
  const reachable = inProcessAvatarClient(avatars, leagues, database)
  const port = opts.unreachable ? { ...reachable, damage: () => Promise.reject(new Error('avatar service unreachable')) } : reachable
  const outbox = new Outbox('guild', guildOutbox, systemClock, database)
  const battles = new BattleApp({ database, clock: systemClock, avatars: port, outbox })
  const guilds = new GuildApp({ database, clock: systemClock, avatars: port, outbox, callOffBattle: (tx, g, by) => battles.callOffWithGuild(tx, g, by) })
  return { avatars, battles, guilds }
}

/** A player's principal and avatar, made through one process's avatar context. */
async function player(p: ReturnType<typeof process>) {
  const principal: Principal = { userId: newId(), role: 'player', tokenId: newId(), expiresAt: Date.now() / 1000 + 3600 }
  const avatarId = `fighter-${newId().slice(0, 8)}`
  await p.avatars.provision({ avatarId, ownerId: principal.userId, name: avatarId })
  return { principal, avatarId }
}

/** A guild of `n` players (the first leads) fighting a boss, started through `p`. */
async function battleOf(p: ReturnType<typeof process>, n: number, bossType: 'GOBLIN' | 'TROLL' = 'TROLL') {
  const players = await Promise.all(Array.from({ length: n }, () => player(p)))
  const [lead, ...rest] = players
  const guild = await p.guilds.create(lead!.principal, { name: `Checks ${newId().slice(0, 8)}`, creatorAvatarId: lead!.avatarId, creatorNickname: 'lead' })
  for (const m of rest) {
    const invite = await p.guilds.invite(lead!.principal, guild.id, { requestorId: lead!.avatarId, targetAvatarId: m.avatarId })
    await p.guilds.accept(m.principal, guild.id, invite.id, { avatarId: m.avatarId, nickname: m.avatarId.slice(-8) })
  }
  const battle = await p.battles.start(lead!.principal, { guildId: guild.id, bossType, requesterId: lead!.avatarId })
  return { players, battleId: battle.id }
}

/** An attack's answer: its turn, or its refusal's status and problem slug. */
const attack = (p: ReturnType<typeof process>, who: { principal: Principal; avatarId: string }, battleId: string) =>
  p.battles.attackBoss(who.principal, battleId, { damage: 50, attackerAvatarId: who.avatarId })
    .then((turn) => ({ turn }), (e: unknown) => (e instanceof AppError ? { status: e.status, slug: e.slug } : Promise.reject(e)))

test('a fighter killed by a strike-back (hurt elsewhere since it entered) is refused its next attack in every process', async () => {
  const [one, two] = [process(), process()]
  const { players: [fighter, other], battleId } = await battleOf(one, 2)
  // Entered at 100 health; then hurt elsewhere down to 5. The troll strikes back 20 - 10 = 10: that kills.
  await two.avatars.damage(SYSTEM, fighter!.avatarId, 95)
  expect(await attack(one, fighter!, battleId)).toEqual({ turn: 1 })
  for (const p of [two, one]) expect(await attack(p, fighter!, battleId)).toEqual({ status: 400, slug: 'attacker-fallen' })
  // The strike-back reached the avatar once: it died once (health refilled, one death counted).
  await expect.poll(() => one.avatars.profile(fighter!.avatarId)).toMatchObject({ health: 100, deaths: 1 })
  expect(await attack(two, other!, battleId)).toEqual({ turn: 2 })
})

test('a fighter who died elsewhere during the battle is refused in every process; the battle marks the fall when it hears of it', async () => {
  const [one, two] = [process(), process()]
  const { players: [fighter, other], battleId } = await battleOf(one, 2)
  expect(await attack(one, fighter!, battleId)).toEqual({ turn: 1 })
  // Its strike-back applied, then a death elsewhere.
  await expect.poll(() => one.avatars.profile(fighter!.avatarId)).toMatchObject({ health: 90 })
  await two.avatars.damage(SYSTEM, fighter!.avatarId, 1_000)
  for (const p of [one, two]) expect(await attack(p, fighter!, battleId)).toEqual({ status: 400, slug: 'attacker-fallen' })
  const standing = (id: string) => two.battles.get(battleId).then((b) => b.participants.find((x) => x.avatarId === id)!.fallen)
  // The refusals changed nothing; the death's event does (as the guild's AvatarDied consumer calls it).
  expect(await standing(fighter!.avatarId)).toBe(false)
  await one.battles.fighterOut(fighter!.avatarId)
  expect(await standing(fighter!.avatarId)).toBe(true)
  // The last one standing dies too: no one is left, the battle is lost without using its turns.
  await one.avatars.damage(SYSTEM, other!.avatarId, 1_000)
  expect(await attack(two, other!, battleId)).toEqual({ status: 400, slug: 'attacker-fallen' })
  await two.battles.fighterOut(other!.avatarId)
  expect(await one.battles.get(battleId)).toMatchObject({ status: 'LOST', currentTurn: 1 })
})

test('an avatar deleted during the battle is refused in every process', async () => {
  const [one, two] = [process(), process()]
  const { players: [fighter, other], battleId } = await battleOf(one, 3)
  expect(await attack(one, other!, battleId)).toEqual({ turn: 1 })
  expect(await attack(two, other!, battleId)).toEqual({ turn: 2 })
  await one.avatars.delete(other!.principal, other!.avatarId)
  for (const p of [two, one]) expect(await attack(p, other!, battleId)).toEqual({ status: 400, slug: 'unknown-avatar' })
  expect(await attack(two, fighter!, battleId)).toEqual({ turn: 3 })
})

test('whose avatar attacks is checked on every attack in every process, however often it attacked there', async () => {
  const [one, two] = [process(), process()]
  const { players: [fighter], battleId } = await battleOf(one, 2)
  const stranger = await player(two)
  for (const p of [one, two]) expect(await attack(p, fighter!, battleId)).toMatchObject({ turn: expect.any(Number) })
  for (const p of [one, two]) {
    expect(await attack(p, { principal: stranger.principal, avatarId: fighter!.avatarId }, battleId)).toEqual({ status: 403, slug: 'not-owner' })
  }
})

test('a strike-back one process wrote and could not apply counts against the health any process reads', async () => {
  const [one, two] = [process({ unreachable: true }), process()]
  const { players: [fighter], battleId } = await battleOf(one, 2)
  await one.avatars.damage(SYSTEM, fighter!.avatarId, 70)
  // At 30, the troll's strike-back of 10 leaves 20: written by process one, which cannot apply it.
  expect(await attack(one, fighter!, battleId)).toEqual({ turn: 1 })
  expect((await two.battles.get(battleId)).strikeBacksDue).toMatchObject([{ avatarId: fighter!.avatarId, damage: 10 }])
  // Then 25 elsewhere: the avatar says 5, but the strike-back it has not taken yet will kill it.
  await two.avatars.damage(SYSTEM, fighter!.avatarId, 25)
  expect(await two.avatars.profile(fighter!.avatarId)).toMatchObject({ health: 5, deaths: 0 })
  expect(await attack(two, fighter!, battleId)).toEqual({ status: 400, slug: 'attacker-fallen' })
  expect(await attack(one, fighter!, battleId)).toEqual({ status: 400, slug: 'attacker-fallen' })
})
