/**
 * Attacks batched per battle and written with a guard on the version that was read (DESIGN §9.1):
 * two processes attacking one battle at once. Each BattleApp on the one test database stands for
 * a process of its own; a batch whose write lost the race is judged again on the battle as it is.
 * A start is guarded the same way, by the membership version of its guild.
 */
import { afterAll, beforeAll, expect, inject, test } from 'vitest'
import type { AvatarClient, AvatarProfile } from '../src/contexts/avatar/client.js'
import { BattleApp } from '../src/contexts/guild/app/battle-app.js'
import { GuildApp } from '../src/contexts/guild/app/guild-app.js'
import { outbox as outboxTable } from '../src/contexts/guild/store/tables.js'
import { SYSTEM } from '../src/platform/auth/principal.js'
import { systemClock } from '../src/platform/clock.js'
import { Outbox } from '../src/platform/events/outbox.js'
import { openTestDatabase, type TestDatabase } from './support/backends.js'

let testDb: TestDatabase
beforeAll(async () => {
  testDb = await openTestDatabase(inject('templates'))
})
afterAll(() => testDb.drop())

// Strong and healthy enough that no strike-back fells anyone before the turns run out.
const fighter: AvatarProfile = { ownerId: SYSTEM.userId, name: 'Fighter', level: 10, attack: 100, defense: 100, health: 1_000, maxHealth: 1_000, deaths: 0, taken: [] }
const fighters = (ids: readonly string[]) => new Map(ids.map((id) => [id, fighter]))
const avatars = {
  isOwner: async () => true, ownerOf: async () => SYSTEM.userId, profile: async () => fighter, profiles: async (ids: string[]) => fighters(ids),
  damage: async () => ({ died: false, health: fighter.health }),
} as unknown as AvatarClient
const deps = () => ({ database: testDb.database, clock: systemClock, avatars, outbox: new Outbox('guild', outboxTable, systemClock, testDb.database) })

test('two processes attack one battle at once: every turn is used once, damage is exact, and every attack is answered', async () => {
  const guilds = new GuildApp({ ...deps(), callOffBattle: async () => undefined })
  const members = Array.from({ length: 10 }, (_, i) => `racer-${i}-${Date.now()}`)
  const guild = await guilds.create(SYSTEM, { name: `Racers ${Date.now()}`, creatorAvatarId: members[0]!, creatorNickname: 'lead' })
  for (const m of members.slice(1)) {
    const invite = await guilds.invite(SYSTEM, guild.id, { requestorId: members[0]!, targetAvatarId: m })
    await guilds.accept(SYSTEM, guild.id, invite.id, { avatarId: m, nickname: m.slice(0, 12) })
  }
  const [one, two] = [new BattleApp(deps()), new BattleApp(deps())]
  // DRAGON: 3,000 health, defense 18, 4 turns per member: 40 turns of 1 dealt each (damage 19).
  const battle = await one.start(SYSTEM, { guildId: guild.id, bossType: 'DRAGON', requesterId: members[0]! })
  const attack = (app: BattleApp, attacker: string) => app.attackBoss(SYSTEM, battle.id, { damage: 19, attackerAvatarId: attacker }).then((turn) => turn, (e: Error) => e.constructor.name)
  const answers = await Promise.all(members.flatMap((m) => [attack(one, m), attack(two, m), attack(one, m), attack(two, m), attack(two, m)]))
  const turns = answers.filter((a): a is number => typeof a === 'number')
  expect(turns).toHaveLength(40)
  expect(new Set(turns).size).toBe(40)
  expect(answers.filter((a) => typeof a !== 'number').every((a) => a === 'BattleOver')).toBe(true)
  const after = await one.get(battle.id)
  expect(after).toMatchObject({ status: 'LOST', currentTurn: 40, bossRemainingHealth: 3_000 - 40 })
  expect(await one.attacks(battle.id)).toHaveLength(40)
})

test("a start that read the guild before a member joined is made again on the members as they are, by the guild's version", async () => {
  const guilds = new GuildApp({ ...deps(), callOffBattle: async () => undefined })
  const [lead, early, late] = ['lead', 'early', 'late'].map((n) => `${n}-${Date.now()}`) as [string, string, string]
  const guild = await guilds.create(SYSTEM, { name: `Latecomers ${Date.now()}`, creatorAvatarId: lead, creatorNickname: 'lead' })
  const admit = async (avatarId: string) => {
    const invite = await guilds.invite(SYSTEM, guild.id, { requestorId: lead, targetAvatarId: avatarId })
    await guilds.accept(SYSTEM, guild.id, invite.id, { avatarId, nickname: avatarId.slice(0, 12) })
  }
  await admit(early)
  // The start reads the guild (lead and early), then their fighters: while it reads them, late joins.
  let joined: Promise<void> | undefined
  const profiles = async (ids: string[]) => {
    if (ids.includes(early) && !joined) await (joined = admit(late))
    return fighters(ids)
  }
  const battles = new BattleApp({ ...deps(), avatars: { ...avatars, profiles } as unknown as AvatarClient })
  const battle = await battles.start(SYSTEM, { guildId: guild.id, bossType: 'DRAGON', requesterId: lead })
  expect(battle.participants.map((x) => x.avatarId).sort()).toEqual([early, late, lead].sort())
})
