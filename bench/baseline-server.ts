/**
 * The floor: what the simplest server could do for the avatar GET, money earn and attend. Fastify
 * with no auth, no validation, no events; one table holding the avatar with its inventory,
 * equipment and spells as jsonb (plus habits and their completions for the attend); one statement
 * per request in autocommit.
 *
 *   GET  /avatars/:id         select * … where id = $1, mapped to the contract's Avatar JSON
 *   GET  /avatars/:id/level   select level, experience … where id = $1, as the contract's Level
 *   POST /avatars/:id/earn    update … set money = money + $2 where id = $1 returning *  → 204
 *   POST /habits/:id/attend   {date}: one CTE inserts the completion of the DAILY window holding
 *                             `date` (its date part; on conflict do nothing) and, when it inserted
 *                             one, pays the habit's avatar a first completion's reward (10
 *                             experience, 2 money, from the tracking rules)  → 204 (400
 *                             when the window was completed already)
 *   POST /seed/habits         {habits: [[id, avatarId], …]}: the bench's habits, in bulk, outside
 *                             anything timed; adds the avatars they name that are not there yet
 *
 * FLOOR_ENGINE=postgres (DATABASE_URL, a pg Pool of 10 like the platform's default) or embedded
 * (PGlite in-process on FLOOR_DATA_DIR, default a temporary directory removed at exit; PGlite
 * has one connection and queues queries). It creates its own tables in schema floor, and seeds
 * floor.avatars with FLOOR_HOT_ID (default 'hot') and the bench's spread ids (FLOOR_SPREAD of
 * them, default 1000).
 */
import { randomUUID } from 'node:crypto'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { PGlite } from '@electric-sql/pglite'
import Fastify from 'fastify'
import pg from 'pg'
import { rewardForStreak } from '../src/contexts/tracking/domain/rules.js'
import { SPREAD_AVATARS, spreadIds } from './lib/bench-avatars.js'

interface Query {
  query(sql: string, params?: unknown[]): Promise<{ rows: Record<string, unknown>[] }>
  close(): Promise<void>
}

async function open(): Promise<Query> {
  if (process.env.FLOOR_ENGINE === 'embedded') {
    const given = process.env.FLOOR_DATA_DIR
    const dir = given ?? await mkdtemp(path.join(tmpdir(), 'questline-floor-'))
    const db = await PGlite.create({ dataDir: dir })
    return {
      query: (sql, params) => db.query<Record<string, unknown>>(sql, params),
      close: async () => {
        await db.close()
        if (!given) await rm(dir, { recursive: true, force: true })
      },
    }
  }
  const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 })
  return { query: (sql, params) => pool.query(sql, params), close: () => pool.end() }
}

const db = await open()

// A fresh avatar as the platform makes one (level 1, 100 health, 50 mana, 100 money, stats 10/10/10, 5 points).
await db.query('create schema if not exists floor')
await db.query('drop table if exists floor.avatars')
await db.query(`create table floor.avatars (
  id text primary key, owner_id uuid not null, name text not null,
  level integer not null, experience integer not null, health integer not null, max_health integer not null,
  mana integer not null, max_mana integer not null, money bigint not null,
  strength integer not null, defense integer not null, intelligence integer not null, unspent_points integer not null,
  inventory_id uuid not null, equipment_id uuid not null,
  inventory jsonb not null, equipped jsonb not null, spells jsonb not null,
  version integer not null, created_at timestamptz not null)`)
const seedAvatars = (ids: string[]) => db.query(`insert into floor.avatars
  select id, $2::uuid, 'Bench', 1, 0, 100, 100, 50, 50, 100, 10, 10, 10, 5, gen_random_uuid(), gen_random_uuid(), '[]', '[]', '[]', 1, now()
  from unnest($1::text[]) as id on conflict (id) do nothing`, [ids, randomUUID()])
await seedAvatars([process.env.FLOOR_HOT_ID ?? 'hot', ...spreadIds(Number(process.env.FLOOR_SPREAD ?? SPREAD_AVATARS))])
await db.query('analyze floor.avatars')

// The attend's: a habit names its avatar; a completion is one per habit and window (DAILY: a date).
await db.query('drop table if exists floor.completions, floor.habits')
await db.query('create table floor.habits (id uuid primary key, avatar_id text not null)')
await db.query('create table floor.completions (habit_id uuid, window_start date, attended_at text, primary key (habit_id, window_start))')

/** A first completion's reward, as the platform's tracking rules pay it (10 experience, 2 money). */
const reward = rewardForStreak(1)
const ATTEND = `with inserted as (
    insert into floor.completions (habit_id, window_start, attended_at)
    values ($1::uuid, $2::text::timestamp::date, $2::text)
    on conflict do nothing
    returning habit_id)
  update floor.avatars set experience = experience + ${reward.experience}, money = money + ${reward.money}
  where id = (select avatar_id from floor.habits where id = $1::uuid) and exists (select 1 from inserted)
  returning id`

const self = (id: string) => `/api/v1/avatars/${encodeURIComponent(id)}`

/** The row as the contract's Avatar, `_links` included (the platform's avatarView, by hand). */
function avatarJson(r: Record<string, unknown>) {
  const id = r.id as string
  const level = r.level as number
  const href = self(id)
  return {
    id,
    name: r.name,
    money: { amount: Number(r.money) },
    // experienceRequired is 50 × level + 50 (DESIGN §6); the floor computes it as the platform does.
    level: { levelNumber: level, currentExperience: r.experience, experienceRequired: 50 * level + 50 },
    health: { current: r.health, max: r.max_health },
    mana: { amount: r.mana, max: r.max_mana },
    stats: { strength: r.strength, defense: r.defense, intelligence: r.intelligence },
    inventory: { id: r.inventory_id, items: r.inventory },
    equippedItems: { id: r.equipment_id, items: r.equipped },
    spells: r.spells,
    _links: {
      self: { href }, avatar: { href }, name: { href: `${href}/name` }, inventory: { href: `${href}/inventory` },
      equippedItems: { href: `${href}/equipped-items` }, stats: { href: `${href}/stats` }, experience: { href: `${href}/experience` },
      level: { href: `${href}/level` }, health: { href: `${href}/health` }, mana: { href: `${href}/mana` },
      money: { href: `${href}/money` }, delete: { href },
    },
  }
}

const app = Fastify()

app.get('/healthz', async () => ({ status: 'ok' }))

app.get<{ Params: { id: string } }>('/avatars/:id', async (req, reply) => {
  const { rows } = await db.query('select * from floor.avatars where id = $1', [req.params.id])
  if (rows.length === 0) return reply.code(404).send({ error: 'not found' })
  return avatarJson(rows[0]!)
})

app.post<{ Params: { id: string }; Body: { amount: number } }>('/avatars/:id/earn', async (req, reply) => {
  const { rows } = await db.query('update floor.avatars set money = money + $2 where id = $1 returning *', [req.params.id, req.body.amount])
  if (rows.length === 0) return reply.code(404).send({ error: 'not found' })
  return reply.code(204).send()
})

app.get<{ Params: { id: string } }>('/avatars/:id/level', async (req, reply) => {
  const { rows } = await db.query('select level, experience from floor.avatars where id = $1', [req.params.id])
  if (rows.length === 0) return reply.code(404).send({ error: 'not found' })
  const level = rows[0]!.level as number
  return { levelNumber: level, currentExperience: rows[0]!.experience, experienceRequired: 50 * level + 50 }
})

app.post<{ Params: { id: string }; Body: { date: string } }>('/habits/:id/attend', async (req, reply) => {
  const { rows } = await db.query(ATTEND, [req.params.id, req.body.date])
  if (rows.length === 0) return reply.code(400).send({ error: 'completed already (or no such habit)' })
  return reply.code(204).send()
})

app.post<{ Body: { habits: [string, string][] } }>('/seed/habits', { bodyLimit: 64 * 1024 * 1024 }, async (req, reply) => {
  const habits = req.body.habits
  await seedAvatars([...new Set(habits.map(([, avatarId]) => avatarId))])
  await db.query('insert into floor.habits select * from unnest($1::uuid[], $2::text[])', [habits.map(([id]) => id), habits.map(([, avatarId]) => avatarId)])
  await db.query('analyze floor.habits, floor.avatars')
  return reply.code(204).send()
})

await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' })
process.once('SIGTERM', () => void app.close().then(() => db.close()).then(() => process.exit(0)))
