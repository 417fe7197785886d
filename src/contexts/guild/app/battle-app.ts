import type { GuildDraft } from '../../../contracts/events/guild.js'
import type { Principal } from '../../../platform/auth/principal.js'
import type { Clock } from '../../../platform/clock.js'
import type { Database, Tx } from '../../../platform/db/database.js'
import { NotFound } from '../../../platform/errors.js'
import { effectKey } from '../../../platform/events/contract.js'
import type { Outbox } from '../../../platform/events/outbox.js'
import { newId } from '../../../platform/ids.js'
import type { Logger } from '../../../platform/log.js'
import type { BatchedCommand, DecidedEvent, Decision } from '../../../platform/writer/decisions.js'
import { RACE_LOST, untilWritten } from '../../../platform/writer/retry.js'
import { AggregateWriter } from '../../../platform/writer/writer.js'
import { BoundedMap } from '../../../platform/bounded-map.js'
import { requireOwnedAvatar, requireOwnedProfile, requireOwner, UnknownAvatar, type AvatarClient, type AvatarProfile } from '../../avatar/client.js'
import * as fight from '../domain/battle.js'
import type { Attack, Battle, Fighter, StrikeBackDue } from '../domain/battle.js'
import { BattleInProgress, BattleOfAnotherGuild, BattleOver } from '../domain/errors.js'
import { actingAs, LEADER_ONLY } from '../domain/guild.js'
import type { BossType } from '../domain/rules.js'
import { battleAggregate, battleRepo } from '../store/battles.js'
import { guildRepo } from '../store/guilds.js'

interface BattleDeps {
  database: Database
  outbox: Outbox<GuildDraft>
  clock: Clock
  avatars: AvatarClient
  log?: Logger
}

const REMEMBERED_BATTLES = 1_000
/**
 * What a batch of attacks reads first: which of the battle's strike-backs due are known applied,
 * each attacker as it is now (undefined: gone), and the health it has in this batch (less the
 * strike-backs not applied yet, and those of the batch's earlier attacks).
 */
interface Attackers {
  applied: Set<string>
  fighters: Map<string, Fighter | undefined>
  health: Map<string, number>
}

/** A command in a battle's batch, naming the attacker the batch reads for it (none for a fall it hears of). */
type AttackCommand = BatchedCommand<Battle, GuildDraft, number, Attackers> & { attacker?: string }
type AttackDecision = Decision<Battle, GuildDraft, number, 'attacks'>

/** How many strike-back keys a process remembers as applied (a fact that never changes). */
const REMEMBERED_STRIKE_BACKS = 10_000

/** The values of settled promises, or the error of the first one (in their order) that failed. */
const inOrder = <T extends readonly unknown[]>(results: { [K in keyof T]: PromiseSettledResult<T[K]> }): T =>
  results.map((r) => {
    if (r.status === 'rejected') throw r.reason
    return r.value
  }) as unknown as T

/** What the events that start and end a battle say of it. */
const aboutBattle = (b: Battle) => ({ battleId: b.id, guildId: b.guildId, bossType: b.bossType, participants: b.participants.map((x) => x.avatarId) })

/** The events a change that ended the battle adds: the reward of a win, or the penalty of a loss. */
function endingOf(b: Battle): GuildDraft[] {
  if (b.status === 'WON') {
    const reward = { experience: b.boss.experienceReward, money: b.boss.moneyReward }
    return [{ type: 'BattleWon', payload: { ...aboutBattle(b), reward, guildPoints: fight.pointsForVictory(b.boss) } }]
  }
  return b.status === 'LOST' ? [{ type: 'BattleLost', payload: { ...aboutBattle(b), penalty: b.boss.penalty } }] : []
}

/**
 * Boss battles of guilds. Attacks are batched commands of the platform writer: each batch reads
 * its attackers as they are (owner, attack, defense, health, deaths, and which of the battle's
 * strike-backs they have taken), judges its attacks in arrival order and writes the battle with
 * its attack log, its strike-backs due and its events in one statement; then the strike-backs are
 * applied to the avatars, under the keys their events' consumer applies them with.
 */
export class BattleApp {
  private readonly writer: AggregateWriter<Battle, GuildDraft, Attackers, AttackCommand>
  /** Keys of strike-backs this process saw applied. */
  private readonly applied = new BoundedMap<string, true>(REMEMBERED_STRIKE_BACKS)

  constructor(private readonly d: BattleDeps) {
    this.writer = new AggregateWriter<Battle, GuildDraft, Attackers, AttackCommand>(battleAggregate(d.outbox), {
      database: d.database, clock: d.clock, missing: (id) => new NotFound('Battle', id), remember: REMEMBERED_BATTLES,
      // Only a battle in progress is ever cancelled or deleted: a finished one stays as it ended.
      final: (b) => b.status !== 'IN_PROGRESS',
      readFirst: (battle, commands) => this.readAttackers(battle, commands),
      // Started at once, not awaited: until it is known applied, the battle counts a strike-back against the health it reads.
      afterWrite: async (w) => void this.applyDue(w.state.strikeBacksDue).catch(() => undefined),
      ...(d.log ? { log: d.log } : {}),
    })
  }

  get(id: string): Promise<Battle> {
    return battleRepo.get(this.d.database.current(), id)
  }

  async inProgressOf(guildId: string): Promise<Battle | undefined> {
    await this.requireGuild(guildId)
    return battleRepo.inProgressOf(this.d.database.current(), guildId)
  }

  async ofGuild(guildId: string, limit: number): Promise<Battle[]> {
    await this.requireGuild(guildId)
    return battleRepo.ofGuild(this.d.database.current(), guildId, limit)
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
   * Leader only. The guild's members now are the participants; each one's fighter is read before
   * anything is written (one that cannot be read enters with its first attack instead). The battle
   * is then made, only while the guild's membership is the one that was read (a change meanwhile,
   * or the guild's deletion, means reading again).
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
      const battle = fight.startBattle({ id: newId(), guildId: guild.id, bossType, memberIds, fighters, now: this.d.clock.now() })
      return this.d.database.transaction(async (tx) => {
        if ((await guildRepo.versionForShare(tx, guild.id)) !== guild.version) return RACE_LOST
        const made = await this.writer.insert(tx, battle, [{ type: 'BattleStarted', payload: aboutBattle(battle) }])
        // The only key a new battle can clash on: one battle in progress per guild.
        if (!made) throw new BattleInProgress('(just started)')
        return made
      })
    })
  }

  /** What can be read of these avatars as fighters, in one read; when it cannot be read now, the battle starts without it. */
  private async fightersOf(avatarIds: string[]): Promise<Map<string, Fighter>> {
    return this.d.avatars.profiles(avatarIds).catch(() => new Map<string, Fighter>())
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
      await this.callOff(tx, battle, input.requesterId)
    })
  }

  /** The guild goes (in the caller's transaction): its battle in progress is called off on the word of `by`. */
  async callOffWithGuild(tx: Tx, guildId: string, by: string): Promise<void> {
    const battle = await battleRepo.inProgressOf(tx, guildId)
    if (battle) await this.callOff(tx, battle, by)
  }

  /** A battle in progress called off: gone, without reward or penalty; its participants are told. */
  private async callOff(tx: Tx, b: Battle, by: string): Promise<void> {
    await battleRepo.deleteAttacks(tx, b.id)
    await this.writer.remove(tx, b, [{ type: 'BattleCancelled', payload: { battleId: b.id, guildId: b.guildId, cancelledBy: by, participants: b.participants.map((x) => x.avatarId) } }])
  }

  /**
   * One attack, one turn, judged in the battle's next batch (`judgeAttack`) on the attacker as it is
   * now. Answers the turn it used. An attacker who has died since it entered the battle is refused
   * (400 attacker-fallen), one whose avatar is gone too (400 unknown-avatar); a refusal changes
   * nothing (the battle marks the fall when it hears of the death: `fighterOut`).
   */
  async attackBoss(p: Principal, id: string, input: { damage: number; attackerAvatarId: string }): Promise<number> {
    const attacker = input.attackerAvatarId
    return this.writer.submit(id, {
      attacker,
      decide: (battle, attackers): AttackDecision => {
        // Over is over, whoever asks: nothing of the attacker was read for it.
        if (battle.status !== 'IN_PROGRESS') throw new BattleOver(battle.status)
        const fighter = attackers.fighters.get(attacker)
        if (!fighter) throw new UnknownAvatar(attacker, '/attackerAvatarId')
        requireOwner(p, attacker, fighter.ownerId)
        const judged = fight.judgeAttack(battle, attacker, input.damage, fighter, attackers.health.get(attacker)!, this.d.clock.now())
        attackers.health.set(attacker, attackers.health.get(attacker)! - judged.strikeBack)
        const due = battle.strikeBacksDue.filter((x) => !attackers.applied.has(x.key))
        return this.struck(battle, { ...judged, battle: { ...judged.battle, strikeBacksDue: due } }, attacker, input.damage)
      },
    })
  }

  /**
   * An avatar can fight no more (it died, or it is gone: the avatar context's AvatarDied and
   * AvatarDeleted): it is fallen in every battle in progress it takes part in, which is lost when no
   * one is left standing. Idempotent: a redelivery finds it fallen already.
   */
  async fighterOut(avatarId: string): Promise<void> {
    for (const id of await battleRepo.inProgressWith(this.d.database.db, avatarId)) {
      await this.writer.submit(id, {
        decide: (battle): AttackDecision => {
          const after = fight.fallOut(battle, avatarId, this.d.clock.now())
          return { state: after, events: after === battle ? [] : endingOf(after), result: battle.currentTurn }
        },
      }).catch((e: unknown) => {
        // Gone meanwhile (cancelled, or with its guild): nothing to mark.
        if (!(e instanceof NotFound)) throw e
      })
    }
  }

  /** An attack that landed: its turn, the boss's strike-back and the battle's end if it came, with the attack in the log. */
  private struck(before: Battle, s: fight.Strike, attacker: string, requestedDamage: number): AttackDecision {
    const b = s.battle
    const turn = b.currentTurn
    const events: DecidedEvent<GuildDraft>[] = [{ type: 'BattleTurnTaken', payload: {
      battleId: b.id, guildId: b.guildId, turn, numOfTurns: b.numOfTurns, avatarId: attacker, dealt: s.dealt, strikeBack: s.strikeBack,
      attackerFell: s.attackerFell, bossHealth: b.bossRemainingHealth, bossMaxHealth: b.boss.health, status: b.status,
    } }]
    let state = b
    if (s.strikeBack > 0) {
      // Named here, so the strike-back's key (which its consumer derives from it too) goes with the battle.
      const id = newId()
      events.push({ id, type: 'BossStruckBack', payload: { battleId: b.id, guildId: b.guildId, turn, avatarId: attacker, damage: s.strikeBack } })
      state = { ...b, strikeBacksDue: [...b.strikeBacksDue, { avatarId: attacker, damage: s.strikeBack, key: effectKey(id, attacker) }] }
    }
    if (before.status !== b.status) events.push(...endingOf(b))
    const record = { battleId: b.id, turn, attackerAvatarId: attacker, requestedDamage, dealt: s.dealt, strikeBack: s.strikeBack, attackerFell: s.attackerFell, at: this.d.clock.now() }
    return { state, events, parts: { attacks: [record] }, result: turn }
  }

  /** The strike-backs due to the avatar not known applied. */
  private dueOf(due: StrikeBackDue[], avatarId: string): StrikeBackDue[] {
    return due.filter((x) => x.avatarId === avatarId && !this.applied.has(x.key))
  }

  /**
   * The batch's attackers as they are, each read with which of its strike-backs due it has taken:
   * one not taken yet still counts against the health read (it will be applied, by the battle's
   * `afterWrite` or by its event's consumer), so a fall is exact whichever process judges.
   */
  private async readAttackers(battle: Battle, commands: AttackCommand[]): Promise<Attackers> {
    if (battle.status !== 'IN_PROGRESS') return { applied: new Set(), fighters: new Map(), health: new Map() }
    const ids = [...new Set(commands.flatMap((c) => (c.attacker === undefined ? [] : [c.attacker])))]
    const fighters = new Map<string, AvatarProfile | undefined>()
    const health = new Map<string, number>()
    await Promise.all(ids.map(async (id) => {
      // What was not known applied when the read was asked for, and not taken by the avatar it read, is still to come.
      const due = this.dueOf(battle.strikeBacksDue, id)
      const fighter = await this.d.avatars.profile(id, due.map((x) => x.key)).catch((e: unknown) => {
        if (e instanceof NotFound) return undefined
        throw e
      })
      const taken = new Set(fighter?.taken)
      for (const key of taken) this.applied.set(key, true)
      fighters.set(id, fighter)
      health.set(id, (fighter?.health ?? 0) - due.filter((x) => !taken.has(x.key)).reduce((sum, x) => sum + x.damage, 0))
    }))
    return { applied: new Set(battle.strikeBacksDue.filter((x) => this.applied.has(x.key)).map((x) => x.key)), fighters, health }
  }

  /** Applies the strike-backs not known applied, each under its key (its event's consumer applies any that fail). An avatar gone since has nothing left to hurt. */
  private async applyDue(due: StrikeBackDue[]): Promise<void> {
    const pending = due.filter((x) => !this.applied.has(x.key))
    const results = await Promise.allSettled(pending.map((x) => this.d.avatars.damage(x.avatarId, x.damage, x.key)))
    pending.forEach((x, i) => {
      const r = results[i]!
      if (r.status === 'fulfilled' || r.reason instanceof NotFound) this.applied.set(x.key, true)
    })
  }
}
