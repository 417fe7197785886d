/**
 * The avatar's write path in two statements, each in autocommit and each for every avatar with a
 * batch at that moment: one read of the avatars with the idempotency keys they have already
 * answered, and one write of their new states with their events and keyed answers, each avatar
 * guarded by the version that was read. No row lock is held between them, so nothing waits on a
 * lock across a round trip; an avatar whose version moved on is not written (the others are) and
 * its batch is decided again on the new state.
 */
import type { Database } from '../../../platform/db/database.js'
import type { Avatar, Item } from '../domain/avatar.js'
import { earnedAnything, earningsBucket, type Earned } from '../domain/earnings.js'
import type { AppliedCall } from './avatars.js'

const COLUMNS = `a.id, a.owner_id, a.name, a.level, a.experience, a.health, a.max_health, a.mana, a.max_mana,
       a.money::float8 as money, a.strength, a.defense, a.intelligence, a.unspent_points,
       a.inventory_id::text as inventory_id, a.equipment_id::text as equipment_id, a.inventory, a.equipped,
       a.streak_freezes, a.missed_damage, a.time_zone, a.version`

const FIND_MANY = `select ${COLUMNS} from avatar.avatars a where a.id = any($1::text[])`

/** $1: [{id, keys}]: each avatar with those of its keys already answered. */
const LOAD_MANY = `
select ${COLUMNS},
       (select coalesce(jsonb_agg(jsonb_build_object('key', c.key, 'avatarId', c.avatar_id, 'operation', c.operation, 'result', c.result)), '[]'::jsonb)
          from avatar.applied_calls c
         where c.key in (select jsonb_array_elements_text(r.keys))) as applied
  from jsonb_to_recordset($1::jsonb) as r(id text, keys jsonb)
  join avatar.avatars a on a.id = r.id`

/**
 * One avatar alone (the row's new state in $3–$20, guarded by the version read in $2): a lighter
 * statement to plan, and the whole write when there are neither events nor keyed answers.
 */
const UPDATE_ONE = `
  update avatar.avatars
     set name = $3, level = $4, experience = $5, health = $6, max_health = $7, mana = $8, max_mana = $9, money = $10,
         strength = $11, defense = $12, intelligence = $13, unspent_points = $14, inventory = $15::jsonb,
         equipped = $16::jsonb, streak_freezes = $17, missed_damage = $18::jsonb, time_zone = $19, version = $20
   where id = $1 and version = $2
  returning id`

/**
 * What a write earned, added to its avatar's bucket in the same statement (earnings.ts). Several
 * changes in one bucket add up in one row, so the record grows by a row per avatar and bucket,
 * not per change.
 */
const ADD_EARNINGS = `on conflict (avatar_id, bucket) do update
     set experience = acc.experience + excluded.experience, money = acc.money + excluded.money`

/** One avatar's write with its events ($22), keyed answers ($23) and earnings ($24 bucket, $25 experience, $26 money), at $21. */
const WRITE_ONE = `
with a as (${UPDATE_ONE}
), o as (
  insert into avatar.outbox (id, type, aggregate_id, version, occurred_at, payload)
  select e.id, e.type, a.id, e.version, $21::timestamptz, e.payload
    from a, jsonb_to_recordset($22::jsonb) as e(id uuid, type text, version int, payload jsonb)
), c as (
  insert into avatar.applied_calls (key, avatar_id, operation, result, applied_at)
  select k.key, a.id, k.operation, k.result, $21::timestamptz
    from a, jsonb_to_recordset($23::jsonb) as k(key text, operation text, result jsonb)
), earned as (
  insert into avatar.earnings as acc (avatar_id, bucket, experience, money)
  select a.id, $24::timestamptz, $25::bigint, $26::bigint from a where $25::bigint > 0 or $26::bigint > 0
  ${ADD_EARNINGS}
)
select id from a`

/**
 * $1: the new states, each guarded by the version read; $2: the events; $3: the keyed answers;
 * $4: the earnings. Events, answers and earnings are written only with their avatar's state.
 */
const WRITE_MANY = `
with input as (
  select * from jsonb_to_recordset($1::jsonb) as x(
    id text, read_version int, name text, level int, experience int, health int, max_health int, mana int, max_mana int,
    money bigint, strength int, defense int, intelligence int, unspent_points int, inventory jsonb, equipped jsonb,
    streak_freezes int, missed_damage jsonb, time_zone text, version int)
), a as (
  update avatar.avatars t
     set name = i.name, level = i.level, experience = i.experience, health = i.health, max_health = i.max_health,
         mana = i.mana, max_mana = i.max_mana, money = i.money, strength = i.strength, defense = i.defense,
         intelligence = i.intelligence, unspent_points = i.unspent_points, inventory = i.inventory,
         equipped = i.equipped, streak_freezes = i.streak_freezes, missed_damage = i.missed_damage,
         time_zone = i.time_zone, version = i.version
    from input i
   where t.id = i.id and t.version = i.read_version
  returning t.id
), o as (
  insert into avatar.outbox (id, type, aggregate_id, version, occurred_at, payload)
  select e.id, e.type, a.id, e.version, e.occurred_at, e.payload
    from jsonb_to_recordset($2::jsonb) as e(id uuid, avatar_id text, type text, version int, occurred_at timestamptz, payload jsonb)
    join a on a.id = e.avatar_id
), c as (
  insert into avatar.applied_calls (key, avatar_id, operation, result, applied_at)
  select k.key, a.id, k.operation, k.result, k.applied_at
    from jsonb_to_recordset($3::jsonb) as k(key text, avatar_id text, operation text, result jsonb, applied_at timestamptz)
    join a on a.id = k.avatar_id
), earned as (
  insert into avatar.earnings as acc (avatar_id, bucket, experience, money)
  select x.avatar_id, x.bucket, x.experience, x.money
    from jsonb_to_recordset($4::jsonb) as x(avatar_id text, bucket timestamptz, experience bigint, money bigint)
    join a on a.id = x.avatar_id
  ${ADD_EARNINGS}
)
select id from a`

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
  /** What the changes earned (nothing for most), added to the avatar's bucket of `at`. */
  earned: Earned
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
    streakFreezes: r.streak_freezes as number,
    missedDamage: r.missed_damage as Record<string, number>,
    timeZone: r.time_zone as string,
    version: r.version as number,
  }
}

export const avatarCommandStore = {
  /** The avatars as they are now, by id, in one prepared statement of its own (never inside a transaction). */
  async findMany(database: Database, ids: string[]): Promise<Map<string, Avatar>> {
    const rows = await database.statement('avatar_find_many', FIND_MANY, [ids])
    return new Map(rows.map((r) => [r.id as string, toAvatar(r)]))
  },

  /** Each avatar asked for that exists, with those of its keys already answered, by id. */
  async loadMany(database: Database, asked: { id: string; keys: string[] }[]): Promise<Map<string, LoadedAvatar>> {
    const rows = await database.statement('avatar_command_load_many', LOAD_MANY, [JSON.stringify(asked)])
    return new Map(rows.map((row) => {
      const applied = new Map((row.applied as (AppliedCall & { key: string })[]).map(({ key, ...call }) => [key, call]))
      return [row.id as string, { avatar: toAvatar(row), applied }]
    }))
  },

  /** Answers the ids written; an avatar gone or no longer at its `readVersion` is not (nothing of it is written). */
  async writeMany(database: Database, writes: AvatarWrite[]): Promise<Set<string>> {
    if (writes.length === 1) return writeOne(database, writes[0]!)
    // In one order in every process, so that two writes of overlapping avatars rarely deadlock.
    const sorted = [...writes].sort((x, y) => (x.avatar.id < y.avatar.id ? -1 : 1))
    const states = sorted.map(({ readVersion, avatar: a }) => ({
      id: a.id, read_version: readVersion, name: a.name, level: a.level, experience: a.experience, health: a.health,
      max_health: a.maxHealth, mana: a.mana, max_mana: a.maxMana, money: a.money, strength: a.strength, defense: a.defense,
      intelligence: a.intelligence, unspent_points: a.unspentPoints, inventory: a.inventory, equipped: a.equipped,
      streak_freezes: a.streakFreezes, missed_damage: a.missedDamage, time_zone: a.timeZone, version: a.version,
    }))
    const events = writes.flatMap((w) => w.events.map((e) => ({ ...e, avatar_id: w.avatar.id, occurred_at: w.at })))
    const calls = writes.flatMap((w) => w.calls.map((c) => ({ ...c, avatar_id: w.avatar.id, result: c.result ?? null, applied_at: w.at })))
    // One avatar has one write in a batch, so no two rows name the same bucket (which the upsert could not take).
    const earned = sorted.filter((w) => earnedAnything(w.earned))
      .map((w) => ({ avatar_id: w.avatar.id, bucket: earningsBucket(w.at), experience: w.earned.experience, money: w.earned.money }))
    const rows = await database.statement('avatar_command_write_many', WRITE_MANY, [
      JSON.stringify(states), JSON.stringify(events), JSON.stringify(calls), JSON.stringify(earned),
    ])
    return new Set(rows.map((r) => r.id as string))
  },
}

async function writeOne(database: Database, w: AvatarWrite): Promise<Set<string>> {
  const a = w.avatar
  const state = [
    a.id, w.readVersion, a.name, a.level, a.experience, a.health, a.maxHealth, a.mana, a.maxMana, a.money,
    a.strength, a.defense, a.intelligence, a.unspentPoints, JSON.stringify(a.inventory), JSON.stringify(a.equipped),
    a.streakFreezes, JSON.stringify(a.missedDamage), a.timeZone, a.version,
  ]
  const rows = w.events.length === 0 && w.calls.length === 0 && !earnedAnything(w.earned)
    ? await database.statement('avatar_command_write_one_state', UPDATE_ONE, state)
    : await database.statement('avatar_command_write_one', WRITE_ONE, [
      ...state, w.at.toISOString(), JSON.stringify(w.events), JSON.stringify(w.calls.map((c) => ({ ...c, result: c.result ?? null }))),
      earningsBucket(w.at).toISOString(), w.earned.experience, w.earned.money,
    ])
  return new Set(rows.map((r) => r.id as string))
}
