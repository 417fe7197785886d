import type { Principal } from '../../../platform/auth/principal.js'
import { failed, KeyedBatcher, succeeded, type Outcome } from '../../../platform/batcher.js'
import type { Clock } from '../../../platform/clock.js'
import { type Database, pgErrorCode, type Tx, UNIQUE_VIOLATION } from '../../../platform/db/database.js'
import { NotFound } from '../../../platform/errors.js'
import type { Outbox } from '../../../platform/events/outbox.js'
import { newId } from '../../../platform/ids.js'
import type { AvatarClient, AvatarProfile } from '../../avatar/client.js'
import * as fight from '../domain/battle.js'
import type { Battle } from '../domain/battle.js'
import { BattleInProgress, BattleOfAnotherGuild, BattleOver } from '../domain/errors.js'
import { actingAs, LEADER_ONLY } from '../domain/guild.js'
import type { BossType } from '../domain/rules.js'
import type { GuildEvent } from '../events.js'
import { battleRepo, type Attack } from '../store/battles.js'
import { guildRepo } from '../store/guilds.js'
import { requireOwnedAvatar } from './ownership.js'

export interface BattleDeps {
  database: Database
  outbox: Outbox
  clock: Clock
  avatars: AvatarClient
}

type Draft = { [E in GuildEvent as E['type']]: Pick<E, 'type' | 'payload'> }[GuildEvent['type']]

/** An attack waiting for its battle's next batch, with what was read of the attacker before. */
interface PendingAttack {
  attacker: string
  damage: number
  fighter: AvatarProfile
}

/**
 * Boss battles of guilds. Concurrent attacks on one battle are batched in a process, and the
 * batches serialised across processes by the battle's row lock, under which no other context is
 * called.
 */
export class BattleApp {
  private readonly pendingAttacks = new KeyedBatcher<PendingAttack, number>((id, batch) => this.applyAttacks(id, batch))

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

  /** Leader only. The guild's members now are the participants. */
  async start(p: Principal, input: { guildId: string; bossType: BossType; requesterId: string }): Promise<Battle> {
    const bossType = input.bossType
    await requireOwnedAvatar(this.d.avatars, p, input.requesterId)
    try {
      return await this.d.database.transaction(async (tx) => {
        const guild = await guildRepo.getForUpdate(tx, input.guildId)
        actingAs(guild, input.requesterId, LEADER_ONLY, 'start a battle')
        const running = await battleRepo.inProgressOf(tx, guild.id)
        if (running) throw new BattleInProgress(running.id)
        const battle = fight.startBattle({ id: newId(), guildId: guild.id, bossType, memberIds: guild.members.map((m) => m.avatarId), now: this.d.clock.now() })
        await battleRepo.insert(tx, battle)
        await this.events(tx, battle, [{ type: 'BattleStarted', payload: { battleId: battle.id, guildId: guild.id, bossType, participants: battle.participants.map((x) => x.avatarId) } }])
        return battle
      })
    } catch (e) {
      // Two leaders' requests raced past the check; the partial unique index caught the second.
      if (pgErrorCode(e) === UNIQUE_VIOLATION) throw new BattleInProgress('(just started)')
      throw e
    }
  }

  /** Leader only: cancels a battle in progress and deletes it. */
  async cancel(p: Principal, id: string, input: { guildId: string; requesterId: string }): Promise<void> {
    await requireOwnedAvatar(this.d.avatars, p, input.requesterId)
    await this.d.database.transaction(async (tx) => {
      const battle = await battleRepo.getForUpdate(tx, id)
      if (battle.guildId !== input.guildId) throw new BattleOfAnotherGuild(id, input.guildId)
      const guild = await guildRepo.get(tx, battle.guildId)
      actingAs(guild, input.requesterId, LEADER_ONLY, 'cancel a battle')
      if (battle.status !== 'IN_PROGRESS') throw new BattleOver(battle.status)
      await battleRepo.delete(tx, id)
    })
  }

  /**
   * One attack, one turn. The attacker's profile is read before the battle is locked; under the
   * lock the pure rules judge the hit, the strike-back and whether it fells the attacker (from the
   * battle's own health ledger), and the battle, the attack and the strike-back event commit
   * together. The avatar context applies the strike-back after commit, exactly once, from the
   * event. Answers the turn the attack used.
   */
  async attackBoss(p: Principal, id: string, input: { damage: number; attackerAvatarId: string }): Promise<number> {
    const attacker = input.attackerAvatarId
    await requireOwnedAvatar(this.d.avatars, p, attacker)
    // Refused before asking the avatar anything: an unknown battle, a finished one, an outsider, a fallen attacker.
    fight.checkAttacker(await battleRepo.get(this.d.database.current(), id), attacker)
    const fighter = await this.d.avatars.profile(attacker)
    return this.pendingAttacks.submit(id, { attacker, damage: input.damage, fighter })
  }

  /**
   * Concurrent attacks on one battle, in one transaction under its row lock: each judged by the
   * pure rules on the battle the ones before it left (a refused one answers its own problem), then
   * the battle, the attack records and the events written once.
   */
  private applyAttacks(id: string, batch: PendingAttack[]): Promise<Outcome<number>[]> {
    return this.d.database.transaction(async (tx) => {
      let battle = await battleRepo.getForUpdate(tx, id)
      const now = this.d.clock.now()
      const records: Attack[] = []
      const drafts: { draft: Draft; version: number }[] = []
      const outcomes = batch.map((a): Outcome<number> => {
        try {
          const hit = fight.strike(battle, a.attacker, a.damage, a.fighter, now)
          battle = hit.battle
          const turn = battle.currentTurn
          records.push({ turn, attackerAvatarId: a.attacker, requestedDamage: a.damage, dealt: hit.dealt, strikeBack: hit.strikeBack, attackerFell: hit.attackerFell, at: now })
          if (hit.strikeBack > 0) {
            drafts.push({ version: turn + 1, draft: { type: 'BossStruckBack', payload: { battleId: id, guildId: battle.guildId, turn, avatarId: a.attacker, damage: hit.strikeBack } } })
          }
          return succeeded(turn)
        } catch (e) {
          return failed(e)
        }
      })
      if (records.length === 0) return outcomes
      await battleRepo.save(tx, battle)
      await battleRepo.recordAttacks(tx, id, records)
      await this.d.outbox.add(tx, drafts.map(({ draft, version }) => ({ ...draft, aggregateId: id, version })))
      if (battle.status !== 'IN_PROGRESS') await this.conclude(tx, battle)
      return outcomes
    })
  }


  /** Rewards or penalties travel to every participant as one event; victory also brings the guild points. */
  private async conclude(tx: Tx, b: Battle): Promise<void> {
    const base = { battleId: b.id, guildId: b.guildId, bossType: b.bossType, participants: b.participants.map((x) => x.avatarId) }
    if (b.status === 'WON') {
      const guildPoints = fight.pointsForVictory(b.boss)
      await guildRepo.addPoints(tx, b.guildId, guildPoints)
      await this.events(tx, b, [{ type: 'BattleWon', payload: { ...base, reward: { experience: b.boss.experienceReward, money: b.boss.moneyReward }, guildPoints } }])
    } else {
      await this.events(tx, b, [{ type: 'BattleLost', payload: { ...base, penalty: b.boss.penalty } }])
    }
  }

  private async events(tx: Tx, b: Battle, drafts: Draft[]): Promise<void> {
    await this.d.outbox.add(tx, drafts.map((e) => ({ ...e, aggregateId: b.id, version: b.currentTurn + 1 })))
  }
}
