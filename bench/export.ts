/**
 * npx tsx bench/export.ts — a player's export (DESIGN §9.4) of a large account: BENCH_HABITS habits
 * (default 100) × BENCH_DAYS days (default 3 years) of daily history. Goal: under 2 s.
 *
 * Starts the platform (`questline serve`) on a fresh PostgreSQL database (BENCH_DATABASE_URL, an
 * admin URL; dropped afterwards), or with BENCH_EMBEDDED=1 on the embedded database in a temporary
 * directory. Registers a player and seeds the history through the import (one export document:
 * every day completed but every tenth, judged missed), then times `GET /api/v1/me/export` over HTTP
 * BENCH_RUNS times (default 5), reading the whole streamed body, and checks what it holds. Prints
 * the import's time, each export's time to first byte and to the end, the size, and the rows read.
 *
 * On PostgreSQL it also times, in the same run and on the same database, the floor: one statement
 * reading the same history rows (completions and judged windows of the avatar's habits) with a
 * bare client, serialized with JSON.stringify, no HTTP; and prints the export's median over the
 * floor's. (The embedded data directory belongs to the server process, so there the floor is not run.)
 */
import { performance } from 'node:perf_hooks'
import pg from 'pg'
import { withBenchDatabase } from './lib/database.js'
import { call } from './lib/http.js'
import { startServer, type Started } from './lib/processes.js'
import { withTempDir } from './lib/temp-dir.js'

const HABITS = Number(process.env.BENCH_HABITS ?? 100)
const DAYS = Number(process.env.BENCH_DAYS ?? 3 * 365)
const RUNS = Number(process.env.BENCH_RUNS ?? 5)
const EMBEDDED = process.env.BENCH_EMBEDDED === '1'
const ADMIN_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
/** Every MISS_EVERY-th day is a missed window rather than a completion. */
const MISS_EVERY = 10

const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10)

/** An export document holding one avatar with HABITS daily habits, each with DAYS days of history ending yesterday. */
function seedDocument(): { document: unknown; completions: number; missed: number } {
  let completions = 0
  let missed = 0
  const habits = Array.from({ length: HABITS }, (_, h) => {
    const record = { habit: { title: `Habit ${h + 1}`, tags: ['bench'], recurrence: { type: 'DAILY' }, firstWindowStart: day(-DAYS) }, completions: [] as unknown[], missed: [] as unknown[], frozen: [] }
    for (let d = DAYS; d >= 1; d--) {
      const date = day(-d)
      if (d % MISS_EVERY === 0) record.missed.push({ windowStart: date, outcome: 'MISSED' })
      else record.completions.push({ windowStart: date, attendedAt: `${date}T07:${String(h % 60).padStart(2, '0')}:00` })
    }
    completions += record.completions.length
    missed += record.missed.length
    return record
  })
  return { document: { format: 'questline-export', version: 1, avatars: [{ habits }] }, completions, missed }
}

async function timedExport(base: string, token: string): Promise<{ firstByteMs: number; totalMs: number; bytes: number; body: string }> {
  const started = performance.now()
  const res = await fetch(`${base}/api/v1/me/export`, { headers: { authorization: `Bearer ${token}` } })
  if (!res.ok || !res.body) throw new Error(`export: ${res.status} ${await res.text()}`)
  let firstByteMs = 0
  const chunks: Buffer[] = []
  for await (const chunk of res.body) {
    if (chunks.length === 0) firstByteMs = performance.now() - started
    chunks.push(Buffer.from(chunk))
  }
  const body = Buffer.concat(chunks)
  return { firstByteMs, totalMs: performance.now() - started, bytes: body.length, body: body.toString('utf8') }
}

/** The floor's one statement: every history row of the avatar's habits, as the export reads them. */
const FLOOR_QUERY = `select c.habit_id, c.window_start, c.attended_at as detail from tracking.completions c
    join tracking.habits h on h.id = c.habit_id where h.avatar_id = $1
  union all
  select m.habit_id, m.window_start, m.outcome from tracking.missed_windows m
    join tracking.habits h on h.id = m.habit_id where h.avatar_id = $1`

/** The floor's median over RUNS: the rows read in one statement and serialized, in ms. */
async function floorMs(url: string, avatarId: string, expectedRows: number): Promise<number> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    const times = []
    for (let i = 0; i < RUNS; i++) {
      const started = performance.now()
      const { rows } = await client.query(FLOOR_QUERY, [avatarId])
      const bytes = JSON.stringify(rows).length
      times.push(performance.now() - started)
      if (rows.length !== expectedRows || bytes === 0) throw new Error(`the floor read ${rows.length} rows, not ${expectedRows}`)
    }
    return times.sort((a, b) => a - b)[Math.floor(times.length / 2)]!
  } finally {
    await client.end()
  }
}

async function measure(server: Started, databaseUrl?: string): Promise<void> {
  const base = server.url
  const session = await call(base, undefined, 'POST', '/auth/register', { name: 'Bench', email: `bench-${Date.now()}@example.com`, password: 'correct horse battery' }) as { token: string; userId: string }
  const seed = seedDocument()
  const payload = JSON.stringify(seed.document)
  const importStarted = performance.now()
  const imported = await fetch(`${base}/api/v1/avatars/${session.userId}/import`, {
    method: 'POST', headers: { authorization: `Bearer ${session.token}`, 'content-type': 'application/json' }, body: payload,
  })
  if (!imported.ok) throw new Error(`import: ${imported.status} ${await imported.text()}`)
  const importMs = performance.now() - importStarted
  console.log(`seeded by import: ${HABITS} habits, ${seed.completions} completions, ${seed.missed} missed windows, ${(payload.length / 1e6).toFixed(1)} MB in ${importMs.toFixed(0)} ms`)

  const runs = []
  for (let i = 0; i < RUNS; i++) {
    const run = await timedExport(base, session.token)
    const doc = JSON.parse(run.body) as { avatars: { habits: { completions: unknown[]; missed: unknown[] }[] }[] }
    const habits = doc.avatars[0]!.habits
    const rows = habits.reduce((n, h) => n + h.completions.length + h.missed.length, 0)
    if (habits.length !== HABITS || rows !== seed.completions + seed.missed) throw new Error(`export ${i + 1} holds ${habits.length} habits and ${rows} rows`)
    runs.push(run)
    console.log(`export ${i + 1}: first byte ${run.firstByteMs.toFixed(0)} ms, whole ${run.totalMs.toFixed(0)} ms, ${(run.bytes / 1e6).toFixed(1)} MB, ${rows} history rows`)
  }
  const totals = runs.map((r) => r.totalMs).sort((a, b) => a - b)
  const median = totals[Math.floor(totals.length / 2)]!
  console.log(`\nexport of ${HABITS} habits × ${DAYS} days (${EMBEDDED ? 'embedded' : 'PostgreSQL'}): median ${median.toFixed(0)} ms, best ${totals[0]!.toFixed(0)} ms, worst ${totals.at(-1)!.toFixed(0)} ms (goal < 2000 ms)`)
  if (databaseUrl) {
    const floor = await floorMs(databaseUrl, session.userId, seed.completions + seed.missed)
    console.log(`floor (one statement reading the same rows, JSON.stringify, no HTTP): median ${floor.toFixed(0)} ms; export / floor ${(median / floor).toFixed(1)}×`)
  }
}

async function main(): Promise<void> {
  const env = { LOG_LEVEL: 'warn', JOBS_ENABLED: 'false' }
  if (EMBEDDED) {
    await withTempDir('ql-bench-export-', async (dir) => {
      const server = await startServer('platform', 'src/main.ts', ['serve'], { ...env, DATA_DIR: dir }, '/readyz')
      try { await measure(server) } finally { await server.stop() }
    })
    return
  }
  await withBenchDatabase(ADMIN_URL, async (url) => {
    const server = await startServer('platform', 'src/main.ts', ['serve'], { ...env, DATABASE_URL: url }, '/readyz')
    try { await measure(server, url) } finally { await server.stop() }
  })
}

await main()
