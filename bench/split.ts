/**
 * npm run bench:split — the cost of split services: the same figures through the gateway
 * (every context its own process, on PostgreSQL and NATS) with one and with two avatar replicas,
 * and for all-in-one on the same PostgreSQL and NATS, in one run.
 *
 * Figures: GET /api/v1/avatars/{id} req/s and p50/p99 (autocannon, BENCH_CONNECTIONS=50 for
 * BENCH_DURATION=10 s), earn on one hot avatar (POST …/money/earn, the same connections and duration),
 * attend end to end over BENCH_ATTENDS=2000 distinct habits
 * (after BENCH_ATTEND_WARMUP=300 unrecorded ones; from the first request until every reward is visible), and attend →
 * experience visible p50/p99 over BENCH_PROBES=200 sequential probes, and a battle: BENCH_GUILD=20
 * members of one guild attacking a BENCH_BOSS=DRAGON at once for BENCH_DURATION, a new battle
 * whenever one ends (attacks/s and p50/p99 over the whole run, and the rate while a boss stands, as
 * in bench/api.ts). Each target gets a fresh database and NATS stream, removed afterwards. Last,
 * each scenario's figure with two avatar replicas over its figure with one (requests and events for
 * an avatar reach the replica that owns it, so a second replica should cost little).
 * BENCH_ONLY=earn,battle runs only those scenarios (reads, earn, attends, probes, battle);
 * BENCH_ALL_IN_ONE=false leaves out the all-in-one target. BENCH_ROUNDS=3 measures one and two
 * replicas in turn three times and prints each round's ratio and their median (one 10 s run on
 * these shared cores varies by a quarter). Beside the rates, what does not depend on the machine:
 * the avatar context's write statements (batches) and its attempts made again on fresh state (a
 * race lost to another replica, or stale memory) per 1,000 accepted attacks, summed over replicas.
 */
import { mkdir, writeFile } from 'node:fs/promises'
import { generateSigningJwk } from '../src/platform/auth/keys.js'
import { Cluster } from '../src/split/cluster.js'
import { withBenchDatabase } from './lib/database.js'
import { measureBattle } from './lib/battle.js'
import { call } from './lib/http.js'
import { load } from './lib/load.js'
import { withStream } from './lib/nats.js'
import { guildOf } from './lib/players.js'
import { onInterrupt, startServer } from './lib/processes.js'
import { measureAttendsEndToEnd, measureAvatarReads, measureRewardDelay } from './lib/scenarios.js'

const DURATION = Number(process.env.BENCH_DURATION ?? 10)
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50)
const ATTENDS = Number(process.env.BENCH_ATTENDS ?? 2000)
const ATTEND_WARMUP = Number(process.env.BENCH_ATTEND_WARMUP ?? 300)
const PROBES = Number(process.env.BENCH_PROBES ?? 200)
const GUILD = Number(process.env.BENCH_GUILD ?? 20)
const BOSS = process.env.BENCH_BOSS ?? 'DRAGON'
const ADMIN_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
const NATS_URL = process.env.BENCH_NATS_URL ?? 'nats://127.0.0.1:4222'
const SCENARIOS = ['reads', 'earn', 'attends', 'probes', 'battle'] as const
const ONLY = new Set(process.env.BENCH_ONLY ? process.env.BENCH_ONLY.split(',') : SCENARIOS)
const ALL_IN_ONE = process.env.BENCH_ALL_IN_ONE !== 'false'
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 1)
const json = { 'content-type': 'application/json' }

interface Row { target: string; scenario: string; round: number; rps?: number; p50?: number; p99?: number; per1000?: number }
const rows: Row[] = []
let round = 1

/** The avatar context's writer figures, summed over its processes (`/metrics`). */
async function avatarWrites(urls: string[]): Promise<{ batches: number; madeAgain: number }> {
  const totals = { batches: 0, madeAgain: 0 }
  for (const url of urls) {
    const text = await (await fetch(`${url}/metrics`)).text()
    const value = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? 0)
    totals.batches += value('avatar_command_batches')
    totals.madeAgain += value('write_attempts_made_again')
  }
  return totals
}

async function measure(target: string, base: string, avatarUrls: string[] = []): Promise<void> {
  const push = (row: Omit<Row, 'target' | 'round'>) => rows.push({ target, round, ...row })
  const session = await call(base, undefined, 'POST', '/auth/register', { name: 'Bench', email: `bench-${Date.now()}@example.com`, password: 'bench password' })
  const { token, userId } = session as { token: string; userId: string }
  if (ONLY.has('reads')) {
    const reads = await measureAvatarReads(base, token, userId, CONNECTIONS, DURATION)
    push({ scenario: 'GET /api/v1/avatars/{id}', rps: Math.round(reads.rps), p50: reads.p50, p99: reads.p99 })
  }
  if (ONLY.has('earn')) {
    const earn = await load({
      url: `${base}/api/v1/avatars/${userId}/money/earn`, method: 'POST', headers: { authorization: `Bearer ${token}`, ...json },
      body: '{"amount":1}', connections: CONNECTIONS, duration: DURATION,
    })
    push({ scenario: `earn, one hot avatar (${CONNECTIONS} conn)`, rps: Math.round(earn.rps), p50: earn.p50, p99: earn.p99 })
  }
  if (ONLY.has('attends')) {
    if (ATTEND_WARMUP > 0) await measureAttendsEndToEnd(base, token, userId, ATTEND_WARMUP, CONNECTIONS)
    const attends = await measureAttendsEndToEnd(base, token, userId, ATTENDS, CONNECTIONS)
    push({ scenario: `attend end to end (${ATTENDS} distinct habits)`, rps: Math.round(attends.perSecond), p50: attends.requests.p50, p99: attends.requests.p99 })
  }
  if (ONLY.has('probes')) push({ scenario: `attend → experience visible (${PROBES} sequential)`, ...(await measureRewardDelay(base, token, userId, PROBES)) })
  if (GUILD > 0 && ONLY.has('battle')) {
    const guild = await guildOf(base, GUILD)
    const before = await avatarWrites(avatarUrls)
    const battle = await measureBattle(base, guild, BOSS, DURATION)
    push({ scenario: `battle: ${GUILD} members attack one ${BOSS}`, rps: Math.round(battle.rps), p50: battle.p50, p99: battle.p99 })
    push({ scenario: 'battle while a boss stands (the same attacks)', rps: Math.round(battle.standingRps) })
    if (avatarUrls.length > 0) {
      const after = await avatarWrites(avatarUrls)
      const per1000 = (n: number) => Math.round((n / battle.attacks) * 1000)
      push({ scenario: 'battle: avatar write statements per 1,000 attacks', per1000: per1000(after.batches - before.batches) })
      push({ scenario: 'battle: avatar attempts made again per 1,000 attacks', per1000: per1000(after.madeAgain - before.madeAgain) })
    }
  }
}

const SPLIT_1 = 'split, 1 avatar replica'
const SPLIT_2 = 'split, 2 avatar replicas'

async function allInOne(): Promise<void> {
  await withBenchDatabase(ADMIN_URL, (url) => withStream(NATS_URL, async (nats) => {
    const server = await startServer('all-in-one', 'src/main.ts', ['serve'], { DATABASE_URL: url, ...nats, LOG_LEVEL: 'warn' }, '/readyz')
    try {
      await measure('all-in-one (PostgreSQL + NATS)', server.url)
    } finally {
      await server.stop()
    }
  }))
}

async function split(avatarReplicas: number): Promise<void> {
  await withBenchDatabase(ADMIN_URL, (url) => withStream(NATS_URL, async (nats) => {
    const cluster = await Cluster.start({
      port: 0, host: '127.0.0.1',
      // Every context: the gateway calls each (a player's export), and refuses to start without one.
      contexts: [{ context: 'avatar', replicas: avatarReplicas }, ...['tracking', 'guild', 'quest', 'marketplace', 'live'].map((context) => ({ context, replicas: 1 }))],
      env: { DATABASE_URL: url, ...nats, LOG_LEVEL: 'warn', JWT_PRIVATE_KEY: JSON.stringify(await generateSigningJwk()) },
      output: (line) => console.log(line),
    })
    const unregister = onInterrupt(() => cluster.stop())
    try {
      await measure(avatarReplicas > 1 ? SPLIT_2 : SPLIT_1, cluster.url, cluster.of('avatar').map((p) => p.url))
    } finally {
      await cluster.stop()
      unregister()
    }
  }))
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

/**
 * Two avatar replicas against one, per scenario and round: req/s over req/s (p50 over p50 for the
 * latency probes; per 1,000 attacks for the writer's counts), and the median of the rounds.
 */
function printReplicaRatios(): void {
  console.log('\nscenario | round | 1 avatar replica | 2 avatar replicas | 2 ÷ 1')
  console.log('---|---|---|---|---')
  const scenarios = [...new Set(rows.filter((r) => r.target === SPLIT_1).map((r) => r.scenario))]
  for (const scenario of scenarios) {
    const ratios: number[] = []
    for (let r = 1; r <= ROUNDS; r++) {
      const one = rows.find((x) => x.target === SPLIT_1 && x.scenario === scenario && x.round === r)
      const two = rows.find((x) => x.target === SPLIT_2 && x.scenario === scenario && x.round === r)
      if (!one || !two) continue
      const [a, b, unit] = one.per1000 !== undefined ? [one.per1000, two.per1000 ?? 0, 'per 1,000']
        : one.rps && two.rps ? [one.rps, two.rps, 'req/s'] : [one.p50 ?? 0, two.p50 ?? 0, 'p50 ms']
      if (a) ratios.push(b / a)
      console.log([scenario, r, `${a} ${unit}`, `${b} ${unit}`, a ? `${(b / a).toFixed(2)} ×` : ''].join(' | '))
    }
    if (ROUNDS > 1 && ratios.length > 0) console.log([scenario, 'median', '', '', `${median(ratios).toFixed(2)} ×`].join(' | '))
  }
}

async function main(): Promise<void> {
  if (ALL_IN_ONE) await allInOne()
  for (; round <= ROUNDS; round++) {
    await split(1)
    await split(2)
  }
  const base = (scenario: string) => rows.find((r) => r.target.startsWith('all-in-one') && r.scenario === scenario)
  console.log(`\n${ROUNDS} round(s)`)
  console.log(`\n${CONNECTIONS} connections, ${DURATION} s per read run; 2 cores shared by load generator and every process\n`)
  console.log('target | round | scenario | req/s (or per 1,000) | p50 ms | p99 ms | vs all-in-one')
  console.log('---|---|---|---|---|---|---')
  for (const r of rows) {
    const b = base(r.scenario)
    const ratio = r.target.startsWith('all-in-one') || !b ? '' : b.rps && r.rps ? `${(r.rps / b.rps).toFixed(2)} × req/s` : b.p50 && r.p50 ? `${(r.p50 / b.p50).toFixed(2)} × p50` : ''
    console.log([r.target, r.round, r.scenario, r.rps ?? r.per1000 ?? '', r.p50 ?? '', r.p99 ?? '', ratio].join(' | '))
  }
  printReplicaRatios()
  await mkdir('bench/results', { recursive: true })
  const file = `bench/results/split-${new Date().toISOString().replace(/[:.]/g, '-')}.json`
  await writeFile(file, JSON.stringify({ rounds: ROUNDS, connections: CONNECTIONS, duration: DURATION, attends: ATTENDS, attendWarmUp: ATTEND_WARMUP, probes: PROBES, rows }, null, 2))
  console.log(`results: ${file}`)
}

main().catch((e: unknown) => {
  console.error(e)
  process.exit(1)
})
