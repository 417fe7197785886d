import { and, asc, desc, eq } from 'drizzle-orm'
import { refusingDuplicates, type Database, type Queryable, type Tx } from '../../../platform/db/database.js'
import { NotFound } from '../../../platform/errors.js'
import type { WrittenEvent } from '../../../platform/events/outbox.js'
import type { Battle, BattleStatus } from '../domain/battle.js'
import { BattleInProgress } from '../domain/errors.js'
import { BOSSES, type BossType } from '../domain/rules.js'
import { attacks, battles } from './tables.js'

type Row = typeof battles.$inferSelect

const toBattle = (r: Row): Battle => ({ ...r, bossType: r.bossType as BossType, boss: BOSSES[r.bossType as BossType], status: r.status as BattleStatus })

function fromBattle({ boss: _boss, ...b }: Battle) {
  return b
}

export interface Attack {
  turn: number
  attackerAvatarId: string
  requestedDamage: number
  dealt: number
  strikeBack: number
  attackerFell: boolean
  at: Date
}

export const battleRepo = {
  async get(q: Queryable, id: string): Promise<Battle> {
    const [row] = await q.select().from(battles).where(eq(battles.id, id))
    if (!row) throw new NotFound('Battle', id)
    return toBattle(row)
  },

  /**
   * Loads and row-locks the battle until the transaction ends: a cancel, and the batch of attacks
   * that wins the battle (other batches write in one statement guarded by the turn they read).
   */
  async getForUpdate(tx: Tx, id: string): Promise<Battle> {
    const [row] = await tx.select().from(battles).where(eq(battles.id, id)).for('update')
    if (!row) throw new NotFound('Battle', id)
    return toBattle(row)
  },

  async inProgressOf(q: Queryable, guildId: string): Promise<Battle | undefined> {
    const [row] = await q.select().from(battles).where(and(eq(battles.guildId, guildId), eq(battles.status, 'IN_PROGRESS')))
    return row && toBattle(row)
  },

  async ofGuild(q: Queryable, guildId: string, limit: number): Promise<Battle[]> {
    const rows = await q.select().from(battles).where(eq(battles.guildId, guildId)).orderBy(desc(battles.startedAt)).limit(limit)
    return rows.map(toBattle)
  },

  async save(tx: Tx, b: Battle): Promise<void> {
    const { id, ...changes } = fromBattle(b)
    await tx.update(battles).set(changes).where(eq(battles.id, id))
  },

  async delete(tx: Tx, id: string): Promise<void> {
    await tx.delete(attacks).where(eq(attacks.battleId, id))
    await tx.delete(battles).where(eq(battles.id, id))
  },

  async recordAttacks(tx: Tx, battleId: string, list: Attack[]): Promise<void> {
    if (list.length > 0) await tx.insert(attacks).values(list.map((a) => ({ battleId, ...a })))
  },

  async attacks(q: Queryable, battleId: string): Promise<Attack[]> {
    const rows = await q.select().from(attacks).where(eq(attacks.battleId, battleId)).orderBy(asc(attacks.turn))
    return rows.map(({ battleId: _b, ...a }) => a)
  },

  async attack(q: Queryable, battleId: string, turn: number): Promise<Attack> {
    const [row] = await q.select().from(attacks).where(and(eq(attacks.battleId, battleId), eq(attacks.turn, turn)))
    if (!row) throw new NotFound('Attack', `${battleId}/${turn}`)
    const { battleId: _b, ...a } = row
    return a
  },
}

/** The outbox rows of a statement's events (a jsonb array, parameter `events`) for the battle of its CTE `b`, occurred `at`. */
const eventsOfBattle = (at: string, events: string) => `insert into guild.outbox (id, type, aggregate_id, version, occurred_at, payload)
  select x.id, x.type, b.id::text, x.version, ${at}::timestamptz, x.payload
    from b, jsonb_to_recordset(${events}::jsonb) as x(id uuid, type text, version int, payload jsonb)`

/**
 * A batch of attacks that does not win the battle, in one statement in autocommit: the battle's
 * new state guarded by the turn that was read (every accepted attack moves it on), the attack
 * records and the events (with `BattleLost` when the batch loses it). A battle that moved on (or
 * is gone) since it was read writes nothing.
 */
const WRITE_ATTACKS = `
with b as (
  update guild.battles
     set status = $3, current_turn = $4, boss_remaining_health = $5, participants = $6::jsonb, ended_at = $7::timestamptz
   where id = $1 and current_turn = $2
  returning id
), a as (
  insert into guild.attacks (battle_id, turn, attacker_avatar_id, requested_damage, dealt, strike_back, attacker_fell, at)
  select b.id, x.turn, x.attacker_avatar_id, x.requested_damage, x.dealt, x.strike_back, x.attacker_fell, $8::timestamptz
    from b, jsonb_to_recordset($9::jsonb) as x(turn int, attacker_avatar_id text, requested_damage int, dealt int, strike_back int, attacker_fell boolean)
), o as (
  ${eventsOfBattle('$8', '$10')}
)
select count(*)::int as updated from b`

/**
 * A new battle with its events, in one statement in autocommit, only while the guild is as the
 * start read it ($3, its membership version): the guild's row is share-locked for the statement,
 * so a membership change or the guild's deletion under way is waited for, and then seen.
 */
const INSERT_STARTED = `
with g as (
  select id from guild.guilds where id = $2 and version = $3 for share
), b as (
  insert into guild.battles (id, guild_id, boss_type, status, current_turn, num_of_turns, boss_remaining_health, participants, started_at, ended_at)
  select $1, g.id, $4, $5, $6, $7, $8, $9::jsonb, $10::timestamptz, null from g
  returning id
), o as (
  ${eventsOfBattle('$10', '$11')}
)
select count(*)::int as inserted from b`

export const battleStarts = {
  /**
   * false when the guild is gone or its membership changed since `guildVersion` was read: nothing
   * was written. A battle already in progress for the guild (started meanwhile) is refused.
   */
  async insert(database: Database, b: Battle, guildVersion: number, events: WrittenEvent[]): Promise<boolean> {
    const [row] = await refusingDuplicates(database.statement('battle_insert_started', INSERT_STARTED, [
      b.id, b.guildId, guildVersion, b.bossType, b.status, b.currentTurn, b.numOfTurns, b.bossRemainingHealth,
      JSON.stringify(b.participants), b.startedAt.toISOString(), JSON.stringify(events),
    ]), { battles_one_in_progress_key: () => new BattleInProgress('(just started)') })
    return row?.inserted === 1
  },
}

export const battleAttacks = {
  /** false when the battle is gone or no longer at `readTurn`: nothing was written. */
  async write(database: Database, readTurn: number, b: Battle, records: Attack[], events: WrittenEvent[], at: Date): Promise<boolean> {
    const [row] = await database.statement('battle_write_attacks', WRITE_ATTACKS, [
      b.id, readTurn, b.status, b.currentTurn, b.bossRemainingHealth, JSON.stringify(b.participants), b.endedAt?.toISOString() ?? null,
      at.toISOString(),
      JSON.stringify(records.map((r) => ({ turn: r.turn, attacker_avatar_id: r.attackerAvatarId, requested_damage: r.requestedDamage, dealt: r.dealt, strike_back: r.strikeBack, attacker_fell: r.attackerFell }))),
      JSON.stringify(events),
    ])
    return row?.updated === 1
  },
}
