/**
 * npm run bench — throughput and latency of the API, with a bare baseline in the same run.
 *
 * Starts the platform as a child process on the embedded database, then on PostgreSQL (a fresh
 * database, dropped afterwards), then a bare fastify + pg server doing the same SQL, and drives
 * them with autocannon. This machine has 2 cores: the load generator competes with the server
 * for them, so absolute figures are low; the ratios within one run are what to compare.
 *
 * BENCH_DURATION (s, default 10), BENCH_CONNECTIONS (50), BENCH_ATTENDS (2000),
 * BENCH_PROBES (200), BENCH_DATABASE_URL (admin URL, default postgres://postgres@127.0.0.1:5432/postgres).
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { performance } from 'node:perf_hooks'
import pg from 'pg'
import { load, percentile, type LoadResult } from './lib/load.js'
import { startServer } from './lib/processes.js'

const DURATION = Number(process.env.BENCH_DURATION ?? 10)
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50)
const ATTENDS = Number(process.env.BENCH_ATTENDS ?? 2000)
const PROBES = Number(process.env.BENCH_PROBES ?? 200)
const ADMIN_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'

interface Row extends Partial<LoadResult> {
  target: string
  scenario: string
  note?: string
}
const rows: Row[] = []

async function call(base: string, token: string | undefined, method: string, url: string, body?: unknown) {
  const res = await fetch(base + url, {
    method,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  })
  if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${await res.text()}`)
  return res.status === 204 ? undefined : res.json()
}

async function inBatches<T>(n: number, width: number, make: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = []
  for (let i = 0; i < n; i += width) out.push(...(await Promise.all(Array.from({ length: Math.min(width, n - i) }, (_, k) => make(i + k)))))
  return out
}

const nowLocal = () => new Date().toISOString().slice(0, 19)

async function benchPlatform(target: string, env: Record<string, string>): Promise<string> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'questline-bench-'))
  const server = await startServer(target, 'src/main.ts', ['serve'], { ...env, LOG_LEVEL: 'warn', DATA_DIR: dataDir }, '/readyz')
  try {
    const base = server.url
    const session = await call(base, undefined, 'POST', '/auth/register', { name: 'Bench', email: `bench-${Date.now()}@example.com`, password: 'bench password' })
    const { token, userId: id } = session as { token: string; userId: string }
    const auth = { authorization: `Bearer ${token}` }

    rows.push({ target, scenario: 'GET /api/v1/avatars/{id}', ...(await load({ url: `${base}/api/v1/avatars/${id}`, headers: auth, connections: CONNECTIONS, duration: DURATION })) })
    rows.push({ target, scenario: 'POST …/money/earn', ...(await load({
      url: `${base}/api/v1/avatars/${id}/money/earn`, method: 'POST', headers: { ...auth, 'content-type': 'application/json' },
      body: '{"amount":1}', connections: CONNECTIONS, duration: DURATION,
    })) })

    const newHabit = async (i: number) => ((await call(base, token, 'POST', '/api/v1/habits', { avatarId: id, title: `habit ${i}`, recurrenceType: 'DAILY' })) as { id: string }).id
    const habits = await inBatches(ATTENDS, 16, newHabit)
    rows.push({ target, scenario: `POST …/habits/{id}/attend (${ATTENDS} distinct)`, ...(await load({
      url: base, method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ date: nowLocal() }),
      connections: CONNECTIONS, amount: ATTENDS, paths: habits.map((h) => `/api/v1/habits/${h}/attend`),
    })) })

    // End to end: from the attend request to the reward readable on the avatar (events + consumer).
    const probes = await inBatches(PROBES, 16, (i) => newHabit(10_000 + i))
    const delays: number[] = []
    for (const habit of probes) {
      const before = ((await call(base, token, 'GET', `/api/v1/avatars/${id}/money`)) as { amount: number }).amount
      const t0 = performance.now()
      await call(base, token, 'POST', `/api/v1/habits/${habit}/attend`, { date: nowLocal() })
      for (;;) {
        const money = ((await call(base, token, 'GET', `/api/v1/avatars/${id}/money`)) as { amount: number }).amount
        if (money > before) break
        if (performance.now() - t0 > 10_000) throw new Error('a reward did not arrive within 10 s')
      }
      delays.push(performance.now() - t0)
    }
    delays.sort((a, b) => a - b)
    rows.push({ target, scenario: `attend → reward visible (${PROBES} sequential)`, p50: round(percentile(delays, 50)), p99: round(percentile(delays, 99)) })
    return id
  } finally {
    await server.stop()
    await rm(dataDir, { recursive: true, force: true })
  }
}

async function benchBaseline(databaseUrl: string, avatarId: string): Promise<void> {
  const server = await startServer('baseline', 'bench/baseline-server.ts', [], { DATABASE_URL: databaseUrl }, '/healthz')
  try {
    rows.push({ target: 'baseline (fastify + pg)', scenario: 'GET /api/v1/avatars/{id}', ...(await load({ url: `${server.url}/avatars/${avatarId}`, connections: CONNECTIONS, duration: DURATION })) })
    rows.push({ target: 'baseline (fastify + pg)', scenario: 'POST …/money/earn', ...(await load({
      url: `${server.url}/avatars/${avatarId}/earn`, method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"amount":1}',
      connections: CONNECTIONS, duration: DURATION,
    })) })
  } finally {
    await server.stop()
  }
}

const round = (n: number) => Math.round(n * 100) / 100

function printTable(): void {
  const baseline = (scenario: string) => rows.find((r) => r.target.startsWith('baseline') && r.scenario === scenario)?.rps
  console.log(`\nQuestline API benchmark — ${CONNECTIONS} connections, ${DURATION} s per throughput scenario, 2 cores shared by client and server\n`)
  console.log(['target', 'scenario', 'req/s', 'p50 ms', 'p99 ms', 'non-2xx', 'errors', 'vs baseline'].join(' | '))
  for (const r of rows) {
    const base = baseline(r.scenario)
    const ratio = r.target === 'postgres' && base && r.rps ? `${(r.rps / base).toFixed(2)}${r.scenario.startsWith('GET') ? ' (goal ≥ 0.60)' : ''}` : ''
    console.log([r.target, r.scenario, r.rps ? Math.round(r.rps) : '', r.p50 ?? '', r.p99 ?? '', r.non2xx ?? '', r.errors ?? '', ratio].join(' | '))
  }
}

async function main(): Promise<void> {
  const database = `ql_bench_${Date.now()}`
  const admin = new pg.Client({ connectionString: ADMIN_URL })
  await admin.connect()
  await admin.query(`create database "${database}"`)
  const url = new URL(ADMIN_URL)
  url.pathname = `/${database}`
  try {
    await benchPlatform('embedded', {})
    const avatarId = await benchPlatform('postgres', { DATABASE_URL: url.toString() })
    await benchBaseline(url.toString(), avatarId)
  } finally {
    await admin.query(`drop database if exists "${database}" with (force)`)
    await admin.end()
  }
  printTable()
  await mkdir('bench/results', { recursive: true })
  const file = `bench/results/api-${new Date().toISOString().replace(/[:.]/g, '-')}.json`
  await writeFile(file, JSON.stringify({ connections: CONNECTIONS, duration: DURATION, rows }, null, 2))
  console.log(`\nresults: ${file}`)
}

main().catch((e: unknown) => {
  console.error(e)
  process.exit(1)
})
