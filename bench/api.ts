/**
 * npm run bench — throughput and latency of the API, with a bare baseline in the same run.
 *
 * Starts the platform as a child process on the embedded database, then on PostgreSQL (a fresh
 * database, dropped afterwards), then a bare fastify + pg server doing the same SQL, and drives
 * them with autocannon. This machine has 2 cores: the load generator competes with the server
 * for them, so absolute figures are low; the ratios within one run are what to compare.
 *
 * BENCH_DURATION (s, default 10), BENCH_CONNECTIONS (50), BENCH_ATTENDS (300; 0 skips the attend
 * throughput), BENCH_PROBES (50; 0 skips the attend-to-reward delay), BENCH_DATABASE_URL (admin URL,
 * default postgres://postgres@127.0.0.1:5432/postgres). With the defaults a run takes about 2 minutes.
 * A target that fails is reported and the others still run; the exit code is then 1.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { load, type LoadResult } from './lib/load.js'
import { measureAttends, measureAvatarReads, measureRewardDelay } from './lib/scenarios.js'
import { withBenchDatabase } from './lib/database.js'
import { call } from './lib/http.js'
import { onInterrupt, startServer } from './lib/processes.js'

const DURATION = Number(process.env.BENCH_DURATION ?? 10)
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50)
const ATTENDS = Number(process.env.BENCH_ATTENDS ?? 300)
const PROBES = Number(process.env.BENCH_PROBES ?? 50)
const ADMIN_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'

interface Row extends Partial<LoadResult> {
  target: string
  scenario: string
  note?: string
}
const rows: Row[] = []
const failures: string[] = []

/** Runs one target; a failure is recorded as a row and the bench goes on. */
async function attempt<T>(target: string, run: () => Promise<T>): Promise<T | undefined> {
  try {
    return await run()
  } catch (e) {
    console.error(`${target} failed:`, e)
    failures.push(target)
    rows.push({ target, scenario: '-', note: `FAILED: ${(e as Error).message}` })
    return undefined
  }
}

async function benchPlatform(target: string, env: Record<string, string>): Promise<string> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'questline-bench-'))
  const removeDataDir = () => rm(dataDir, { recursive: true, force: true })
  const unregister = onInterrupt(removeDataDir)
  const server = await startServer(target, 'src/main.ts', ['serve'], { ...env, LOG_LEVEL: 'warn', DATA_DIR: dataDir }, '/readyz').catch(async (e: unknown) => {
    await removeDataDir()
    unregister()
    throw e
  })
  try {
    const base = server.url
    const session = await call(base, undefined, 'POST', '/auth/register', { name: 'Bench', email: `bench-${Date.now()}@example.com`, password: 'bench password' })
    const { token, userId: id } = session as { token: string; userId: string }
    const auth = { authorization: `Bearer ${token}` }

    rows.push({ target, scenario: 'GET /api/v1/avatars/{id}', ...(await measureAvatarReads(base, token, id, CONNECTIONS, DURATION)) })
    rows.push({ target, scenario: 'POST …/money/earn', ...(await load({
      url: `${base}/api/v1/avatars/${id}/money/earn`, method: 'POST', headers: { ...auth, 'content-type': 'application/json' },
      body: '{"amount":1}', connections: CONNECTIONS, duration: DURATION,
    })) })
    if (ATTENDS > 0) rows.push({ target, scenario: `POST …/habits/{id}/attend (${ATTENDS} distinct)`, ...(await measureAttends(base, token, id, ATTENDS, CONNECTIONS)) })
    if (PROBES > 0) rows.push({ target, scenario: `attend → reward visible (${PROBES} sequential)`, ...(await measureRewardDelay(base, token, id, PROBES)) })
    return id
  } finally {
    await server.stop()
    await removeDataDir()
    unregister()
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

function printTable(): void {
  const baseline = (scenario: string) => rows.find((r) => r.target.startsWith('baseline') && r.scenario === scenario)?.rps
  console.log(`\nQuestline API benchmark — ${CONNECTIONS} connections, ${DURATION} s per throughput scenario, 2 cores shared by client and server\n`)
  console.log(['target', 'scenario', 'req/s', 'p50 ms', 'p99 ms', 'non-2xx', 'errors', 'vs baseline'].join(' | '))
  for (const r of rows) {
    const base = baseline(r.scenario)
    const ratio = r.target === 'postgres' && base && r.rps ? `${(r.rps / base).toFixed(2)}${r.scenario.startsWith('GET') ? ' (goal ≥ 0.60)' : ''}` : (r.note ?? '')
    console.log([r.target, r.scenario, r.rps ? Math.round(r.rps) : '', r.p50 ?? '', r.p99 ?? '', r.non2xx ?? '', r.errors ?? '', ratio].join(' | '))
  }
}

async function main(): Promise<void> {
  await attempt('embedded', () => benchPlatform('embedded', {}))
  await attempt('postgres', () => withBenchDatabase(ADMIN_URL, async (url) => {
    const avatarId = await benchPlatform('postgres', { DATABASE_URL: url })
    await attempt('baseline (fastify + pg)', () => benchBaseline(url, avatarId))
  }))
  printTable()
  await mkdir('bench/results', { recursive: true })
  const file = `bench/results/api-${new Date().toISOString().replace(/[:.]/g, '-')}.json`
  await writeFile(file, JSON.stringify({ connections: CONNECTIONS, duration: DURATION, attends: ATTENDS, probes: PROBES, failures, rows }, null, 2))
  console.log(`\nresults: ${file}`)
  if (failures.length > 0) {
    console.error(`\nfailed: ${failures.join(', ')}`)
    process.exitCode = 1
  }
}

main().catch((e: unknown) => {
  console.error(e)
  process.exit(1)
})
