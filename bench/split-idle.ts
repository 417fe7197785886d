/**
 * npm run bench:split-idle — what a split cluster costs while nobody uses it: every context twice
 * and two gateways (the shape the black-box tests share), started from the bundle `npm install`
 * builds, on a fresh PostgreSQL database and NATS stream; a player registers and reads from every
 * context through the gateways, then the cluster is left alone for BENCH_IDLE=30 s.
 * Prints each process's CPU over that time (from /proc), their sum, and the CPU of the PostgreSQL
 * backends serving the cluster's database. An idle cluster should cost next to nothing: what it
 * does costs every other process on the machine (on two cores, a test beside it).
 */
import { readdir, readFile } from 'node:fs/promises'
import path from 'node:path'
import { generateSigningJwk } from '../src/platform/auth/keys.js'
import { Cluster } from '../src/split/cluster.js'
import { buildServer } from '../scripts/build.js'
import { withBenchDatabase } from './lib/database.js'
import { withStream } from './lib/nats.js'

const IDLE_SECONDS = Number(process.env.BENCH_IDLE ?? 30)
const SETTLE_SECONDS = 10
const adminUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
const natsUrl = process.env.NATS_URL ?? 'nats://127.0.0.1:4222'
const TICKS_PER_SECOND = 100

/** CPU seconds a process has used (user + system), from /proc; 0 once it is gone. */
async function cpuSeconds(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '')
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return (Number(fields[11] ?? 0) + Number(fields[12] ?? 0)) / TICKS_PER_SECOND
}

/** The PostgreSQL backends connected to `database` (their process titles name it). */
async function backendsOf(database: string): Promise<number[]> {
  const pids: number[] = []
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    const title = await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '')
    if (title.startsWith('postgres: ') && title.includes(` ${database} `)) pids.push(Number(entry))
  }
  return pids
}

const percent = (cpu: number) => `${((cpu / IDLE_SECONDS) * 100).toFixed(1)}%`

/** A player registers and reads from every context, through both gateways (every path a cluster in use has taken). */
async function touchEveryContext(base: string): Promise<void> {
  const registered = await fetch(`${base}/auth/register`, {
    method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Idle', email: `idle-${Date.now()}@example.com`, password: 'long enough password' }),
  })
  const { token, userId } = await registered.json() as { token: string; userId: string }
  const reads = [`/api/v1/avatars/${userId}`, `/api/v1/habits?avatarId=${userId}`, `/api/v1/guilds?memberId=${userId}`,
    `/api/v1/quests?avatarId=${userId}`, `/api/v1/marketplaces?avatarId=${userId}`, `/api/v1/avatars/${userId}/notifications`]
  for (const read of [...reads, ...reads]) {
    const res = await fetch(base + read, { headers: { authorization: `Bearer ${token}` } })
    if (!res.ok) throw new Error(`GET ${read} answered ${res.status}`)
  }
}

// BENCH_PROFILE_DIR=dir: every process writes a CPU profile there when it stops (open it in Chrome's DevTools).
const profiling = process.env.BENCH_PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE_DIR}`] : []

await withBenchDatabase(adminUrl, (url) => withStream(natsUrl, async (natsEnv) => {
  const bundle = await buildServer(path.resolve('node_modules/.cache/questline-bench/split-idle'))
  const cluster = await Cluster.start({
    port: 0, host: '127.0.0.1', gateways: 2, entry: [...profiling, bundle], testControls: true,
    contexts: ['avatar', 'tracking', 'guild', 'quest', 'marketplace', 'live'].map((context) => ({ context, replicas: 2 })),
    env: { DATABASE_URL: url, DATABASE_POOL_SIZE: '2', ...natsEnv, LOG_LEVEL: 'error', JWT_PRIVATE_KEY: JSON.stringify(await generateSigningJwk()) },
  })
  try {
    await touchEveryContext(cluster.url)
    await new Promise((r) => setTimeout(r, SETTLE_SECONDS * 1000))
    const processes = cluster.processes.map((p) => ({ name: p.name, pid: p.child.pid! }))
    const database = new URL(url).pathname.slice(1)
    const backends = await backendsOf(database)
    const before = await Promise.all(processes.map((p) => cpuSeconds(p.pid)))
    const backendsBefore = await Promise.all(backends.map(cpuSeconds))
    await new Promise((r) => setTimeout(r, IDLE_SECONDS * 1000))
    const used = await Promise.all(processes.map(async (p, i) => (await cpuSeconds(p.pid)) - before[i]!))
    // A backend gone meanwhile (a pool let a connection go) counts nothing rather than minus its total.
    const backendsAfter = await Promise.all(backends.map(cpuSeconds))
    const backendsUsed = backendsAfter.reduce((all, after, i) => all + (after > 0 ? after - backendsBefore[i]! : 0), 0)
    console.log(`An idle cluster of ${processes.length} processes over ${IDLE_SECONDS} s (CPU as a share of one core):`)
    for (const [i, p] of processes.entries()) console.log(`  ${p.name.padEnd(14)} ${percent(used[i]!)}`)
    const total = used.reduce((a, b) => a + b, 0)
    console.log(`  ${'all processes'.padEnd(14)} ${percent(total)}`)
    console.log(`  ${'PostgreSQL'.padEnd(14)} ${percent(backendsUsed)} (${backends.length} backends)`)
  } finally {
    await cluster.stop()
  }
}))
