import { and, asc, desc, eq } from 'drizzle-orm'
import type { Queryable, Tx } from '../../../platform/db/database.js'
import { NotFound } from '../../../platform/errors.js'
import type { Battle, BattleStatus } from '../domain/battle.js'
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

  /** Loads and row-locks the battle: attacks on one battle are applied one at a time. */
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

  async insert(tx: Tx, b: Battle): Promise<void> {
    await tx.insert(battles).values(fromBattle(b))
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
