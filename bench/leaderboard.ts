/**
 * npm run bench:leaderboard — the guild leaderboard and a guild's rank with 100,000 guilds.
 *
 * Starts the platform on a fresh PostgreSQL database (dropped afterwards), seeds BENCH_GUILDS
 * guilds (default 100,000) of 1–5 members each with skewed points straight into the guild tables,
 * then measures, one request at a time (latency) and with BENCH_CONNECTIONS clients (throughput):
 * `GET /api/v1/guilds/leaderboard` (top 100 with members), `GET /api/v1/guilds/{id}/rank` for
 * random guilds and for the last-ranked guild (the most rows ahead of it), and as the bare
 * baseline of the same run `GET /api/v1/avatars/{id}` (one row by key). Goal: p99 under 20 ms.
 */
import { mkdir, writeFile } from 'node:fs/promises'
import { performance } from 'node:perf_hooks'
import pg from 'pg'
import { withBenchDatabase } from './lib/database.js'
import { call } from './lib/http.js'
import { load, percentile } from './lib/load.js'
import { startServer } from './lib/processes.js'

const GUILDS = Number(process.env.BENCH_GUILDS ?? 100_000)
const SEQUENTIAL = Number(process.env.BENCH_SEQUENTIAL ?? 500)
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10)
const DURATION = Number(process.env.BENCH_DURATION ?? 10)
const ADMIN_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'

interface Row { scenario: string; p50: number; p99: number; rps?: number; ratio?: string }

/** Guilds with skewed points (many small, few large), ties included, and 1–5 members each. */
async function seed(url: string): Promise<void> {
  const db = new pg.Client({ connectionString: url })
  await db.connect()
  try {
    await db.query(`
      insert into guild.guilds (id, name, points, created_at)
      select gen_random_uuid(), 'Bench guild ' || n, floor(power(random(), 3) * 50000)::bigint, now() - (n || ' seconds')::interval
      from generate_series(1, $1) as n`, [GUILDS])
    await db.query(`
      insert into guild.members (avatar_id, guild_id, nickname, role, joined_at)
      select 'bench-' || g.seq || '-' || k, g.id, 'Member ' || k, case when k = 1 then 'LEADER' else 'MEMBER' end, g.created_at
      from guild.guilds g, generate_series(1, 1 + (g.seq % 5)::int) as k`)
    // The rank tallies the repository keeps (guild/store/guilds.ts: 100-point buckets, 1,000-guild blocks).
    await db.query(`insert into guild.rank_tallies (level, key, block, guilds)
      select 0, points, seq / 1000, count(*) from guild.guilds group by points, seq / 1000
      union all select 1, points / 100, -1, count(*) from guild.guilds group by points / 100`)
    await db.query('vacuum analyze guild.rank_tallies')
    await db.query('vacuum analyze guild.guilds')
    await db.query('vacuum analyze guild.members')
  } finally {
    await db.end()
  }
}

async function guildIds(url: string): Promise<{ random: string[]; last: string }> {
  const db = new pg.Client({ connectionString: url })
  await db.connect()
  try {
    const random = (await db.query<{ id: string }>('select id from guild.guilds order by random() limit 200')).rows.map((r) => r.id)
    const last = (await db.query<{ id: string }>('select id from guild.guilds order by points asc, seq desc limit 1')).rows[0]!.id
    return { random, last }
  } finally {
    await db.end()
  }
}

/** One request at a time: latency without queueing. */
async function sequential(base: string, token: string, paths: string[]): Promise<{ p50: number; p99: number }> {
  const times: number[] = []
  for (let i = 0; i < SEQUENTIAL; i++) {
    const started = performance.now()
    const res = await fetch(base + paths[i % paths.length]!, { headers: { authorization: `Bearer ${token}` } })
    if (!res.ok) throw new Error(`${paths[i % paths.length]}: ${res.status}`)
    await res.arrayBuffer()
    times.push(performance.now() - started)
  }
  times.sort((a, b) => a - b)
  return { p50: +percentile(times, 50).toFixed(2), p99: +percentile(times, 99).toFixed(2) }
}

async function main(): Promise<void> {
  const rows: Row[] = []
  await withBenchDatabase(ADMIN_URL, async (url) => {
    const server = await startServer('platform', 'src/main.ts', ['serve'], { DATABASE_URL: url, LOG_LEVEL: 'warn', JOBS_ENABLED: 'false' }, '/readyz')
    try {
      const seeding = performance.now()
      await seed(url)
      console.log(`seeded ${GUILDS} guilds in ${((performance.now() - seeding) / 1000).toFixed(1)} s`)
      const reg = await call(server.url, undefined, 'POST', '/auth/register', { name: 'Bench', email: `bench-${Date.now()}@example.com`, password: 'bench-password' }) as { token: string; userId: string }
      const ids = await guildIds(url)
      const lastRank = (await call(server.url, reg.token, 'GET', `/api/v1/guilds/${ids.last}/rank`) as { globalRank: number }).globalRank
      if (lastRank !== GUILDS) throw new Error(`the last-ranked guild answered rank ${lastRank}, not ${GUILDS}`)
      const scenarios: [string, string[]][] = [
        ['GET /api/v1/avatars/{id} (baseline)', [`/api/v1/avatars/${reg.userId}`]],
        ['GET /api/v1/guilds/leaderboard (top 100)', ['/api/v1/guilds/leaderboard']],
        ['GET /api/v1/guilds/{id}/rank (random guilds)', ids.random.map((id) => `/api/v1/guilds/${id}/rank`)],
        ['GET /api/v1/guilds/{id}/rank (last-ranked guild)', [`/api/v1/guilds/${ids.last}/rank`]],
        ['GET /api/v1/guilds/{id} (random guilds, with rank)', ids.random.map((id) => `/api/v1/guilds/${id}`)],
      ]
      for (const [scenario, paths] of scenarios) {
        await sequential(server.url, reg.token, paths.slice(0, 20)) // warm-up
        const latency = await sequential(server.url, reg.token, paths)
        const loaded = await load({ url: server.url, headers: { authorization: `Bearer ${reg.token}` }, connections: CONNECTIONS, duration: DURATION, paths })
        if (loaded.non2xx > 0 || loaded.errors > 0) throw new Error(`${scenario}: ${loaded.non2xx} non-2xx, ${loaded.errors} errors`)
        rows.push({ scenario, ...latency, rps: Math.round(loaded.rps) })
      }
    } finally {
      await server.stop()
    }
  })
  const base = rows[0]!
  for (const r of rows.slice(1)) r.ratio = `${(r.p99 / base.p99).toFixed(2)}× baseline p99`
  console.log(`\n${GUILDS} guilds on PostgreSQL; latency one request at a time (${SEQUENTIAL}), throughput with ${CONNECTIONS} connections for ${DURATION} s\n`)
  console.log('scenario | p50 ms | p99 ms | req/s | vs baseline')
  console.log('---|---|---|---|---')
  for (const r of rows) console.log([r.scenario, r.p50, r.p99, r.rps, r.ratio ?? ''].join(' | '))
  const goal = rows.filter((r) => r.scenario.includes('leaderboard') || r.scenario.includes('/rank')).every((r) => r.p99 < 20)
  console.log(`\ngoal p99 < 20 ms for leaderboard and rank: ${goal ? 'met' : 'NOT met'}`)
  await mkdir('bench/results', { recursive: true })
  const file = `bench/results/leaderboard-${new Date().toISOString().replace(/[:.]/g, '-')}.json`
  await writeFile(file, JSON.stringify({ guilds: GUILDS, sequential: SEQUENTIAL, connections: CONNECTIONS, duration: DURATION, rows }, null, 2))
  console.log(`results: ${file}`)
}

main().catch((e: unknown) => {
  console.error(e)
  process.exit(1)
})
