import type { GuildDraft } from '../../../contracts/events/guild.js'
import type { Principal } from '../../../platform/auth/principal.js'
import { failed, KeyedBatcher, succeeded, type Outcome } from '../../../platform/batcher.js'
import type { Clock } from '../../../platform/clock.js'
import type { Database, Tx } from '../../../platform/db/database.js'
import { NotFound } from '../../../platform/errors.js'
import { BoundedMap } from '../../../platform/bounded-map.js'
import { RACE_LOST, untilWritten } from '../../../platform/db/optimistic.js'
import { writtenEvents, type EventDraft, type Outbox } from '../../../platform/events/outbox.js'
import { newId } from '../../../platform/ids.js'
import { requireOwnedAvatar, requireOwnedProfile, requireOwner, type AvatarClient } from '../../avatar/client.js'
import * as fight from '../domain/battle.js'
import { FighterNotRead, type Battle, type Fighter } from '../domain/battle.js'
import { BattleInProgress, BattleOfAnotherGuild, BattleOver } from '../domain/errors.js'
import { actingAs, LEADER_ONLY } from '../domain/guild.js'
import type { BossType } from '../domain/rules.js'
import { battleAttacks, battleRepo, battleStarts, type Attack } from '../store/battles.js'
import { guildRepo } from '../store/guilds.js'

export interface BattleDeps {
  database: Database
  outbox: Outbox<GuildDraft>
  clock: Clock
  avatars: AvatarClient
}

type Draft = GuildDraft
/** What an attack writes with the battle: its turn, and the boss's strike-back when there was one. */
type AttackEvent = Extract<Draft, { type: 'BossStruckBack' | 'BattleTurnTaken' }> & { id: string; version: number }

const REMEMBERED_BATTLES = 1_000
/** Fighters read at once when a battle starts (in split each is a call to the avatar service). */
const FIGHTERS_READ_AT_ONCE = 20

/** The event of a battle in progress called off by `by` (its leader, or whoever's change ended its guild). */
export const battleCancelled = (b: Battle, by: string): EventDraft<Draft> => ({
  type: 'BattleCancelled', aggregateId: b.id, version: fight.battleVersion(b),
  payload: { battleId: b.id, guildId: b.guildId, cancelledBy: by, participants: b.participants.map((x) => x.avatarId) },
})

/** The values of settled promises, or the error of the first one (in their order) that failed. */
const inOrder = <T extends readonly unknown[]>(results: { [K in keyof T]: PromiseSettledResult<T[K]> }): T =>
  results.map((r) => {
    if (r.status === 'rejected') throw r.reason
    return r.value
  }) as unknown as T

/** What the events that start and end a battle say of it. */
const aboutBattle = (b: Battle) => ({ battleId: b.id, guildId: b.guildId, bossType: b.bossType, participants: b.participants.map((x) => x.avatarId) })

/** A battle lost: every participant takes the boss's penalty (the avatar context applies it). */
const battleLost = (b: Battle) => ({ type: 'BattleLost' as const, payload: { ...aboutBattle(b), penalty: b.boss.penalty } })

/** An attack waiting for its battle's next batch, with what was read of the attacker before its first attack. */
interface PendingAttack {
  attacker: string
  damage: number
  fighter: Fighter | undefined
}

/**
 * Boss battles of guilds. Concurrent attacks on one battle are batched in a process, and the
 * batches ordered across processes by a write guarded with the turn that was read (the batch that
 * wins a battle also takes its row lock); no other context is called while one is held.
 */
export class BattleApp {
  private readonly pendingAttacks = new KeyedBatcher<PendingAttack, number>((id, batch) => this.applyAttacks(id, batch))
  /** Battles as this process last wrote them, or read them finished: the next batch on one needs no read (nor does any on one finished). */
  private readonly lastWritten = new BoundedMap<string, Battle>(REMEMBERED_BATTLES)
  /** Battles as this process last read or wrote them: who has entered the fight, so their attacks read nothing first. */
  private readonly lastSeen = new BoundedMap<string, Battle>(REMEMBERED_BATTLES)

  constructor(private readonly d: BattleDeps) {}

  get(id: string): Promise<Battle> {
    return battleRepo.get(this.d.database.current(), id)
  }

  async inProgressOf(guildId: string): Promise<Battle | undefined> {
    const q = this.d.database.current()
    await this.requireGuild(guildId)
    return battleRepo.inProgressOf(q, guildId)
  }

  async ofGuild(guildId: string, limit: number): Promise<Battle[]> {
    const q = this.d.database.current()
    await this.requireGuild(guildId)
    return battleRepo.ofGuild(q, guildId, limit)
  }

  /** A 404 for a guild that does not exist, without loading its members. */
  private async requireGuild(guildId: string): Promise<void> {
    if (!(await guildRepo.exists(this.d.database.current(), guildId))) throw new NotFound('Guild', guildId)
  }

  async attacks(id: string): Promise<Attack[]> {
    const q = this.d.database.current()
    await battleRepo.get(q, id)
    return battleRepo.attacks(q, id)
  }

  attack(id: string, turn: number): Promise<Attack> {
    return battleRepo.attack(this.d.database.current(), id, turn)
  }

  /**
   * Leader only. The guild's members now are the participants, and they enter the fight now, as
   * they are: each one's fighter is read before anything is written (one that cannot be read
   * enters with its first attack instead). The battle and its event are then written in one
   * statement, guarded by the guild's membership version that was read: a membership change
   * meanwhile (or the guild's deletion) means reading again.
   */
  async start(p: Principal, input: { guildId: string; bossType: BossType; requesterId: string }): Promise<Battle> {
    const { bossType, requesterId } = input
    const q = this.d.database.current()
    return untilWritten(`guild '${input.guildId}'`, async () => {
      // Read side by side, judged in this order: the requester, the guild, a battle it fights already.
      const [requester, guild, running] = inOrder(await Promise.allSettled([
        requireOwnedProfile(this.d.avatars, p, requesterId, '/requesterId'), guildRepo.get(q, input.guildId), battleRepo.inProgressOf(q, input.guildId),
      ] as const))
      actingAs(guild, requesterId, LEADER_ONLY, 'start a battle')
      if (running) throw new BattleInProgress(running.id)
      const memberIds = guild.members.map((m) => m.avatarId)
      const fighters = await this.fightersOf(memberIds.filter((id) => id !== requesterId))
      fighters.set(requesterId, requester)
      const now = this.d.clock.now()
      const battle = fight.startBattle({ id: newId(), guildId: guild.id, bossType, memberIds, fighters, now })
      const started = { id: newId(), type: 'BattleStarted' as const, version: fight.battleVersion(battle), payload: aboutBattle(battle) }
      if (!(await battleStarts.insert(this.d.database, battle, guild.version, [started]))) return RACE_LOST
      this.lastWritten.set(battle.id, battle)
      this.lastSeen.set(battle.id, battle)
      this.d.outbox.committed(writtenEvents(battle.id, now, [started]))
      return battle
    })
  }

  /**
   * What can be read of these avatars as fighters, a few at a time (in split each is a call). One
   * that cannot be read now (gone, or its service slow) is left out: it enters with its first
   * attack, which reads it again and answers what went wrong.
   */
  private async fightersOf(avatarIds: string[]): Promise<Map<string, Fighter>> {
    const fighters = new Map<string, Fighter>()
    for (let i = 0; i < avatarIds.length; i += FIGHTERS_READ_AT_ONCE) {
      await Promise.all(avatarIds.slice(i, i + FIGHTERS_READ_AT_ONCE).map(async (id) => {
        const profile = await this.d.avatars.profile(id).catch(() => undefined)
        if (profile) fighters.set(id, profile)
      }))
    }
    return fighters
  }

  /** Leader only: cancels a battle in progress and deletes it. */
  async cancel(p: Principal, id: string, input: { guildId: string; requesterId: string }): Promise<void> {
    await requireOwnedAvatar(this.d.avatars, p, input.requesterId, '/requesterId')
    await this.d.database.transaction(async (tx) => {
      const battle = await battleRepo.getForUpdate(tx, id)
      if (battle.guildId !== input.guildId) throw new BattleOfAnotherGuild(id, input.guildId)
      const guild = await guildRepo.get(tx, battle.guildId)
      actingAs(guild, input.requesterId, LEADER_ONLY, 'cancel a battle')
      if (battle.status !== 'IN_PROGRESS') throw new BattleOver(battle.status)
      await battleRepo.delete(tx, id)
      await this.d.outbox.add(tx, [battleCancelled(battle, input.requesterId)])
    })
  }

  /**
   * One attack, one turn. An attacker that did not enter the fight at the start reads its profile
   * on its first attack (its owner, attack, defense and health), which the battle keeps; other
   * attacks read nothing. Then, in the battle's next batch, the pure rules judge the hit, the
   * strike-back and whether it fells the attacker (from the battle's own health ledger), and the
   * battle, the attack and the turn's event are written together. The avatar context applies the
   * strike-back after commit, exactly once, from the event. Answers the turn the attack used.
   */
  async attackBoss(p: Principal, id: string, input: { damage: number; attackerAvatarId: string }): Promise<number> {
    const attacker = input.attackerAvatarId
    const seen = this.lastSeen.get(id)
    const entered = seen && fight.enteredFighter(seen, attacker)
    if (entered) {
      requireOwner(p, attacker, entered.ownerId)
      try {
        return await this.pendingAttacks.submit(id, { attacker, damage: input.damage, fighter: undefined })
      } catch (e) {
        // Only when the battle as written does not have the fighter this process saw: read it, as below.
        if (!(e instanceof FighterNotRead)) throw e
      }
    }
    // The attacker's ownership is judged first; the battle (an unknown one, a finished one, an
    // outsider, a fallen attacker) by the batch, on the battle as it is.
    const fighter = await requireOwnedProfile(this.d.avatars, p, attacker, '/attackerAvatarId')
    return this.pendingAttacks.submit(id, { attacker, damage: input.damage, fighter })
  }

  /**
   * Concurrent attacks on one battle: each judged by the pure rules on the battle the ones before
   * it left (a refused one answers its own problem), then the battle, the attack records and the
   * events written at once, guarded by the turn that was read, in one statement, with no read when
   * this process wrote the battle last. A batch that loses the battle writes its `BattleLost` (the
   * penalties) in the same statement; one that wins it writes in a transaction, with the guild's
   * points. A write that lost a race with another process is judged again on the battle as it is now.
   */
  private applyAttacks(id: string, batch: PendingAttack[]): Promise<Outcome<number>[]> {
    return untilWritten(`battle '${id}'`, async () => {
      const remembered = this.lastWritten.get(id)
      // A finished battle never changes again (only one in progress is ever cancelled or deleted):
      // as this process wrote it, it refuses every attack as a read would.
      if (remembered && remembered.status !== 'IN_PROGRESS') return this.judge(remembered, batch, this.d.clock.now()).outcomes
      // Taken, not just looked at: after a lost or failed attempt the next one reads.
      this.lastWritten.delete(id)
      let read: Battle
      try {
        read = remembered ?? (await battleRepo.get(this.d.database.db, id))
      } catch (e) {
        if (e instanceof NotFound) return batch.map(() => failed(e))
        throw e
      }
      if (!remembered) this.lastSeen.set(id, read)
      if (read.status !== 'IN_PROGRESS') this.lastWritten.set(id, read)
      const now = this.d.clock.now()
      const judged = this.judge(read, batch, now)
      // Answers that write nothing are given only on a battle just read.
      if (judged.records.length === 0) return remembered ? RACE_LOST : judged.outcomes
      const { battle, records } = judged
      if (battle.status === 'WON') {
        if (!(await this.writeVictory(read.currentTurn, battle, records, judged.events))) return RACE_LOST
      } else {
        const events = battle.status === 'LOST' ? [...judged.events, { id: newId(), version: fight.battleVersion(battle), ...battleLost(battle) }] : judged.events
        if (!(await battleAttacks.write(this.d.database, read.currentTurn, battle, records, events, now))) return RACE_LOST
        this.d.outbox.committed(writtenEvents(id, now, events))
      }
      this.lastWritten.set(id, battle)
      this.lastSeen.set(id, battle)
      return judged.outcomes
    })
  }

  private judge(start: Battle, batch: PendingAttack[], now: Date) {
    let battle = start
    const records: Attack[] = []
    const events: AttackEvent[] = []
    const outcomes = batch.map((a): Outcome<number> => {
      try {
        const hit = fight.strike(battle, a.attacker, a.damage, a.fighter, now)
        battle = hit.battle
        const turn = battle.currentTurn
        records.push({ turn, attackerAvatarId: a.attacker, requestedDamage: a.damage, dealt: hit.dealt, strikeBack: hit.strikeBack, attackerFell: hit.attackerFell, at: now })
        const version = fight.battleVersion(battle)
        events.push({ id: newId(), version, type: 'BattleTurnTaken', payload: {
          battleId: start.id, guildId: battle.guildId, turn, numOfTurns: battle.numOfTurns, avatarId: a.attacker, dealt: hit.dealt,
          strikeBack: hit.strikeBack, attackerFell: hit.attackerFell, bossHealth: battle.bossRemainingHealth, bossMaxHealth: battle.boss.health, status: battle.status,
        } })
        if (hit.strikeBack > 0) {
          events.push({ id: newId(), version, type: 'BossStruckBack', payload: { battleId: start.id, guildId: battle.guildId, turn, avatarId: a.attacker, damage: hit.strikeBack } })
        }
        return succeeded(turn)
      } catch (e) {
        return failed(e)
      }
    })
    return { battle, records, events, outcomes }
  }

  /** The batch that wins the battle: in one transaction with the guild's points, under the battle's row lock. */
  private writeVictory(readTurn: number, battle: Battle, records: Attack[], events: AttackEvent[]): Promise<boolean> {
    return this.d.database.transaction(async (tx) => {
      if ((await battleRepo.getForUpdate(tx, battle.id)).currentTurn !== readTurn) return false
      await battleRepo.save(tx, battle)
      await battleRepo.recordAttacks(tx, battle.id, records)
      // Each stays the draft it was (a union does not survive destructuring).
      await this.d.outbox.add(tx, events.map(({ type, version, payload }) => ({ type, version, payload, aggregateId: battle.id }) as EventDraft<Draft>))
      const guildPoints = fight.pointsForVictory(battle.boss)
      await guildRepo.addPoints(tx, battle.guildId, guildPoints)
      await this.events(tx, battle, [{ type: 'BattleWon', payload: { ...aboutBattle(battle), reward: { experience: battle.boss.experienceReward, money: battle.boss.moneyReward }, guildPoints } }])
      return true
    })
  }

  private async events(tx: Tx, b: Battle, drafts: Draft[]): Promise<void> {
    await this.d.outbox.add(tx, drafts.map((e) => ({ ...e, aggregateId: b.id, version: fight.battleVersion(b) })))
  }
}
