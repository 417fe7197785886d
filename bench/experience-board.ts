/**
 * npm run bench:experience-board — the experience board (DESIGN §9.5) with 100,000 avatars, on
 * embedded PGlite (a fresh data dir) and on PostgreSQL (a fresh database, dropped afterwards).
 *
 * Seeds BENCH_AVATARS avatars (default 100,000) straight into avatar.avatars in one statement
 * (the board's tally trigger counts them as it would any insert): skewed levels, a fifth of them
 * new (total 0, so one big tie), reaching times spread over a year. Then measures one request at
 * a time (BENCH_SEQUENTIAL each, after 20 unrecorded): the top 11 and top 101, the 11 and 101
 * around random avatars, the 11 around the last-ranked avatar, and as the floor of the same run
 * `GET /api/v1/avatars/{id}` (one row by key through the same stack). Goal: p99 ≤ 20 ms.
 */
import { mkdir, writeFile } from 'node:fs/promises'
import { performance } from 'node:perf_hooks'
import { PGlite } from '@electric-sql/pglite'
import pg from 'pg'
import { withBenchDatabase } from './lib/database.js'
import { call } from './lib/http.js'
import { percentile } from './lib/load.js'
import { startServer, type Started } from './lib/processes.js'
import { withTempDir } from './lib/temp-dir.js'

const AVATARS = Number(process.env.BENCH_AVATARS ?? 100_000)
const SEQUENTIAL = Number(process.env.BENCH_SEQUENTIAL ?? 500)
const ADMIN_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
const ENGINES = (process.env.BENCH_ENGINES ?? 'embedded,postgres').split(',')

interface Row { engine: string; scenario: string; p50: number; p95: number; p99: number }
type Query = (text: string) => Promise<unknown>

/** Avatars bench-board-1..N: levels skewed low, a fifth brand new, totals as the rules count them. */
const SEED = `
  insert into avatar.avatars (id, owner_id, name, level, experience, health, max_health, mana, max_mana, money, strength, defense,
    intelligence, unspent_points, inventory_id, equipment_id, inventory, equipped, version, created_at, total_experience, experience_reached_at)
  select 'bench-board-' || n, gen_random_uuid(), 'Board ' || n, level, experience, 100, 100, 50, 50, 100, 10, 10, 10, 0,
    gen_random_uuid(), gen_random_uuid(), '[]'::jsonb, '[]'::jsonb, 1, now(), 25::bigint * (level - 1) * (level + 2) + experience,
    now() - random() * interval '365 days'
  from (select n, case when n % 5 = 0 then 1 else 1 + floor(power(random(), 3) * 60)::int end as level, random() as r
        from generate_series(1, ${AVATARS}) as n) s,
    lateral (select case when n % 5 = 0 then 0 else floor(r * (50 * level + 50))::int end as experience) e`

async function seed(query: Query): Promise<void> {
  const started = performance.now()
  await query(SEED)
  await query('vacuum analyze avatar.avatars')
  await query('vacuum analyze avatar.experience_tallies')
  console.log(`seeded ${AVATARS} avatars in ${((performance.now() - started) / 1000).toFixed(1)} s`)
}

/** One request at a time: latency without queueing. */
async function sequential(base: string, token: string, paths: string[], count = SEQUENTIAL): Promise<{ p50: number; p95: number; p99: number }> {
  const times: number[] = []
  for (let i = 0; i < count; i++) {
    const path = paths[Math.floor(Math.random() * paths.length)]!
    const started = performance.now()
    const res = await fetch(base + path, { headers: { authorization: `Bearer ${token}` } })
    if (!res.ok) throw new Error(`${path}: ${res.status}`)
    await res.arrayBuffer()
    times.push(performance.now() - started)
  }
  times.sort((a, b) => a - b)
  const at = (p: number) => +percentile(times, p).toFixed(2)
  return { p50: at(50), p95: at(95), p99: at(99) }
}

async function measure(engine: string, server: Started, rows: Row[]): Promise<void> {
  const reg = await call(server.url, undefined, 'POST', '/auth/register', { name: 'Bench', email: `bench-${Date.now()}@example.com`, password: 'bench-password' }) as { token: string; userId: string }
  const top = await call(server.url, reg.token, 'GET', '/api/v1/leaderboards/experience?limit=1') as { total: number }
  const last = await call(server.url, reg.token, 'GET', `/api/v1/leaderboards/experience?around=${reg.userId}&limit=1`) as { items: { rank: number }[] }
  if (top.total !== AVATARS + 1 || last.items[0]!.rank !== AVATARS + 1) throw new Error(`the newest avatar ranks ${last.items[0]!.rank} of ${top.total}, not last of ${AVATARS + 1}`)
  const random = Array.from({ length: 200 }, () => `bench-board-${1 + Math.floor(Math.random() * AVATARS)}`)
  const scenarios: [string, string[]][] = [
    ['GET /api/v1/avatars/{id} (floor: one row by key)', random.map((id) => `/api/v1/avatars/${id}`)],
    ['top 11', ['/api/v1/leaderboards/experience']],
    ['top 101', ['/api/v1/leaderboards/experience?limit=101']],
    ['11 around random avatars', random.map((id) => `/api/v1/leaderboards/experience?around=${id}`)],
    ['101 around random avatars', random.map((id) => `/api/v1/leaderboards/experience?around=${id}&limit=101`)],
    ['11 around the last-ranked avatar', [`/api/v1/leaderboards/experience?around=${reg.userId}`]],
  ]
  for (const [scenario, paths] of scenarios) {
    await sequential(server.url, reg.token, paths, 20)
    rows.push({ engine, scenario, ...(await sequential(server.url, reg.token, paths)) })
    console.log(`${engine}: ${scenario}: ${JSON.stringify(rows.at(-1))}`)
  }
}

const serve = (env: Record<string, string>) =>
  startServer('platform', 'src/main.ts', ['serve'], { LOG_LEVEL: 'warn', JOBS_ENABLED: 'false', ...env }, '/readyz')

async function embedded(rows: Row[]): Promise<void> {
  await withTempDir('questline-bench-board-', async (dir) => {
    await (await serve({ DATA_DIR: dir })).stop() // makes and migrates the data dir
    const db = await PGlite.create({ dataDir: `${dir}/pgdata` }) // where the platform keeps it (platform/db/database.ts)
    await seed((text) => db.exec(text))
    await db.close()
    const server = await serve({ DATA_DIR: dir })
    try {
      await measure('embedded', server, rows)
    } finally {
      await server.stop()
    }
  })
}

async function postgres(rows: Row[]): Promise<void> {
  await withBenchDatabase(ADMIN_URL, async (url) => {
    const server = await serve({ DATABASE_URL: url })
    try {
      const db = new pg.Client({ connectionString: url })
      await db.connect()
      await seed((text) => db.query(text)).finally(() => db.end())
      await measure('postgres', server, rows)
    } finally {
      await server.stop()
    }
  })
}

async function main(): Promise<void> {
  const rows: Row[] = []
  if (ENGINES.includes('embedded')) await embedded(rows)
  if (ENGINES.includes('postgres')) await postgres(rows)
  console.log(`\n${AVATARS} avatars; latency one request at a time (${SEQUENTIAL} each)\n`)
  console.log('engine | scenario | p50 ms | p95 ms | p99 ms')
  console.log('---|---|---|---|---')
  for (const r of rows) console.log([r.engine, r.scenario, r.p50, r.p95, r.p99].join(' | '))
  const goal = rows.filter((r) => !r.scenario.startsWith('GET')).every((r) => r.p99 <= 20)
  console.log(`\ngoal p99 ≤ 20 ms for every board request: ${goal ? 'met' : 'NOT met'}`)
  await mkdir('bench/results', { recursive: true })
  const file = `bench/results/experience-board-${new Date().toISOString().replace(/[:.]/g, '-')}.json`
  await writeFile(file, JSON.stringify({ avatars: AVATARS, sequential: SEQUENTIAL, rows }, null, 2))
  console.log(`results: ${file}`)
}

main().catch((e: unknown) => {
  console.error(e)
  process.exit(1)
})
