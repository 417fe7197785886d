import { and, asc, desc, eq, sql } from 'drizzle-orm'
import type { Queryable, Tx } from '../../../platform/db/database.js'
import { NotFound } from '../../../platform/errors.js'
import type { Outbox } from '../../../platform/events/outbox.js'
import type { AggregateDefinition } from '../../../platform/writer/aggregate.js'
import type { Attack, Battle, BattleStatus, Participant } from '../domain/battle.js'
import { BOSSES, type BossType } from '../domain/rules.js'
import type { GuildDraft } from '../../../contracts/events/guild.js'
import { attacks, battles } from './tables.js'

type Row = typeof battles.$inferSelect

/** A participant as the battle keeps it (rows written under earlier rules may carry more: it is left out). */
const participant = ({ avatarId, fallen, damageDealt, attacks: made, deathsAtEntry }: Participant): Participant =>
  ({ avatarId, fallen, damageDealt, attacks: made, ...(deathsAtEntry === undefined ? {} : { deathsAtEntry }) })

const toBattle = (r: Row): Battle => ({
  ...r, bossType: r.bossType as BossType, boss: BOSSES[r.bossType as BossType], status: r.status as BattleStatus, participants: r.participants.map(participant),
})

const fromBattle = ({ boss: _boss, ...b }: Battle) => b

/**
 * The battle as the platform writer stores it: its row (what is set when it starts is never
 * written again), and the log of its attacks, written with the turns they used.
 */
export const battleAggregate = (outbox: Outbox<GuildDraft>): AggregateDefinition<Battle, typeof battles, 'attacks'> => ({
  name: 'battle',
  table: battles,
  key: battles.id,
  version: battles.version,
  fixed: [battles.guildId, battles.bossType, battles.numOfTurns, battles.startedAt],
  outbox,
  toState: toBattle,
  toRow: fromBattle,
  keyOf: (b) => b.id,
  parts: { attacks: { table: attacks, of: attacks.battleId } },
})

export const battleRepo = {
  async get(q: Queryable, id: string): Promise<Battle> {
    const [row] = await q.select().from(battles).where(eq(battles.id, id))
    if (!row) throw new NotFound('Battle', id)
    return toBattle(row)
  },

  /** Loads and row-locks the battle until the transaction ends (a cancel). */
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

  /** The battles in progress the avatar takes part in (few rows: at most one per guild). */
  async inProgressWith(q: Queryable, avatarId: string): Promise<string[]> {
    const rows = await q.select({ id: battles.id }).from(battles)
      .where(and(eq(battles.status, 'IN_PROGRESS'), sql`${battles.participants} @> ${JSON.stringify([{ avatarId }])}::jsonb`))
    return rows.map((r) => r.id)
  },

  /** The attack log goes with its battle (the writer deletes the battle's row). */
  async deleteAttacks(tx: Tx, id: string): Promise<void> {
    await tx.delete(attacks).where(eq(attacks.battleId, id))
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
