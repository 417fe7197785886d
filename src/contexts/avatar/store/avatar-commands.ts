/**
 * The avatar's write path in two statements, each in autocommit: one read of the avatar with the
 * idempotency keys it has already answered, and one write of the new state with its events and its
 * keyed answers, guarded by the version that was read. No row lock is held between them, so nothing
 * waits on a lock across a round trip; a write that finds the version moved on changes nothing and
 * the batch is decided again on the new state.
 */
import type { Database } from '../../../platform/db/database.js'
import type { Avatar, Item } from '../domain/avatar.js'
import type { AppliedCall } from './avatars.js'

const COLUMNS = `a.id, a.owner_id, a.name, a.level, a.experience, a.health, a.max_health, a.mana, a.max_mana,
       a.money::float8 as money, a.strength, a.defense, a.intelligence, a.unspent_points,
       a.inventory_id::text as inventory_id, a.equipment_id::text as equipment_id, a.inventory, a.equipped,
       a.time_zone, a.version`

const FIND = `select ${COLUMNS} from avatar.avatars a where a.id = $1`

const LOAD = `
select ${COLUMNS},
       (select coalesce(jsonb_agg(jsonb_build_object('key', c.key, 'avatarId', c.avatar_id, 'operation', c.operation, 'result', c.result)), '[]'::jsonb)
          from avatar.applied_calls c
         where c.key in (select jsonb_array_elements_text($2::jsonb))) as applied
  from avatar.avatars a
 where a.id = $1`

/** The row's new state ($3–$18), guarded by the version read ($2). */
const UPDATE_STATE = `
  update avatar.avatars
     set name = $3, level = $4, experience = $5, health = $6, max_health = $7, mana = $8, max_mana = $9, money = $10,
         strength = $11, defense = $12, intelligence = $13, unspent_points = $14, inventory = $15::jsonb,
         equipped = $16::jsonb, time_zone = $17, version = $18
   where id = $1 and version = $2`

/** A batch with neither events nor keyed answers: the row alone. */
const WRITE_STATE = `${UPDATE_STATE} returning 1 as updated`

const WRITE = `
with a as (${UPDATE_STATE}
  returning id
), o as (
  insert into avatar.outbox (id, type, aggregate_id, version, occurred_at, payload)
  select e.id, e.type, a.id, e.version, $19::timestamptz, e.payload
    from a, jsonb_to_recordset($20::jsonb) as e(id uuid, type text, version int, payload jsonb)
), c as (
  insert into avatar.applied_calls (key, avatar_id, operation, result, applied_at)
  select k.key, a.id, k.operation, k.result, $19::timestamptz
    from a, jsonb_to_recordset($21::jsonb) as k(key text, operation text, result jsonb)
)
select count(*)::int as updated from a`

export interface LoadedAvatar {
  avatar: Avatar
  /** The keyed calls among those asked for that were already answered, by key. */
  applied: Map<string, AppliedCall>
}

export interface AvatarWrite {
  /** The version that was read; the write applies only while the avatar is still at it. */
  readVersion: number
  avatar: Avatar
  events: { id: string; type: string; version: number; payload: unknown }[]
  calls: { key: string; operation: string; result: unknown }[]
  at: Date
}

type Row = Record<string, unknown>

function toAvatar(r: Row): Avatar {
  return {
    id: r.id as string,
    ownerId: r.owner_id as string,
    name: r.name as string,
    level: r.level as number,
    experience: r.experience as number,
    health: r.health as number,
    maxHealth: r.max_health as number,
    mana: r.mana as number,
    maxMana: r.max_mana as number,
    money: Number(r.money),
    strength: r.strength as number,
    defense: r.defense as number,
    intelligence: r.intelligence as number,
    unspentPoints: r.unspent_points as number,
    inventoryId: r.inventory_id as string,
    equipmentId: r.equipment_id as string,
    inventory: r.inventory as Item[],
    equipped: r.equipped as Item[],
    timeZone: r.time_zone as string,
    version: r.version as number,
  }
}

export const avatarCommandStore = {
  /** The avatar as it is now, in one prepared statement of its own (never inside a transaction). */
  async find(database: Database, id: string): Promise<Avatar | undefined> {
    const [row] = await database.statement('avatar_find', FIND, [id])
    return row && toAvatar(row)
  },

  async load(database: Database, id: string, keys: string[]): Promise<LoadedAvatar | undefined> {
    const [row] = await database.statement('avatar_command_load', LOAD, [id, JSON.stringify(keys)])
    if (!row) return undefined
    const applied = new Map((row.applied as (AppliedCall & { key: string })[]).map(({ key, ...call }) => [key, call]))
    return { avatar: toAvatar(row), applied }
  },

  /** Answers false when the avatar is gone or no longer at `readVersion`: nothing was written. */
  async write(database: Database, w: AvatarWrite): Promise<boolean> {
    const a = w.avatar
    const state = [
      a.id, w.readVersion, a.name, a.level, a.experience, a.health, a.maxHealth, a.mana, a.maxMana, a.money,
      a.strength, a.defense, a.intelligence, a.unspentPoints, JSON.stringify(a.inventory), JSON.stringify(a.equipped),
      a.timeZone, a.version,
    ]
    const [row] = w.events.length === 0 && w.calls.length === 0
      ? await database.statement('avatar_state_write', WRITE_STATE, state)
      : await database.statement('avatar_command_write', WRITE, [
        ...state, w.at.toISOString(), JSON.stringify(w.events), JSON.stringify(w.calls.map((c) => ({ ...c, result: c.result ?? null }))),
      ])
    return row?.updated === 1
  },
}
