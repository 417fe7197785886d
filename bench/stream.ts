/**
 * npm run bench:stream — what issue 16 asks of the live stream at scale, on PostgreSQL:
 *  1. one all-in-one process: STREAM_COUNT (2,000) streams opened (STREAM_PLAYERS (200) players,
 *     each watched by the same number), the server's RSS before and after (memory per stream);
 *     earns at STREAM_RATE (50/s) for STREAM_SECONDS (10) s on random players, every stream of the
 *     player timing each AvatarChanged from its `occurredAt` (set as the avatar's write is decided,
 *     just before it commits; same machine, same clock) to its arrival: delay from commit to
 *     delivery, p50/p99, and whether every stream got every event; then the API's GET throughput
 *     (autocannon, BENCH_CONNECTIONS (50), BENCH_DURATION (10) s) with the streams open, and after
 *     they closed, each beside the floor's GET (bench/baseline-server.ts: one select, same database)
 *     in the same phase. Goals: p99 ≤ 100 ms, GET with streams within 10 %.
 *  2. split services (gateway, live twice, the others once; not pinned) on PostgreSQL and NATS: the
 *     same with SPLIT_STREAM_COUNT (500) streams through the gateway (SPLIT=false skips it); memory
 *     is the gateway's and the live processes' together.
 * Servers on core 1, this load generator on core 0 (BENCH_PIN=false: not pinned). Results also go
 * to bench/results/stream-<time>.json.
 */
import { mkdir, writeFile } from 'node:fs/promises'
import { Agent, request, type IncomingMessage } from 'node:http'
import path from 'node:path'
import { buildAll } from '../scripts/build.js'
import { generateSigningJwk } from '../src/platform/auth/keys.js'
import { Cluster } from '../src/split/cluster.js'
import { withBenchDatabase } from './lib/database.js'
import { load, percentile } from './lib/load.js'
import { rssMb } from './lib/memory.js'
import { pinCores } from './lib/pinning.js'
import { register, type Player } from './lib/players.js'
import { withStream } from './lib/nats.js'
import { onInterrupt, startServer, type Started } from './lib/processes.js'
import { inBatches } from './lib/scenarios.js'
import { fmt, table } from './lib/table.js'
import { withTempDir } from './lib/temp-dir.js'

const STREAMS = Number(process.env.STREAM_COUNT ?? 2000)
const SPLIT_STREAMS = Number(process.env.SPLIT_STREAM_COUNT ?? 500)
const PLAYERS = Number(process.env.STREAM_PLAYERS ?? 200)
const RATE = Number(process.env.STREAM_RATE ?? 50)
const SECONDS = Number(process.env.STREAM_SECONDS ?? 10)
const DURATION = Number(process.env.BENCH_DURATION ?? 10)
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50)
const ADMIN_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
const NATS_URL = process.env.BENCH_NATS_URL ?? 'nats://127.0.0.1:4222'
/** After the last earn, how long streams may take to deliver before an event counts as lost. */
const DELIVERY_GRACE_MS = 3_000

const pinning = pinCores()
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const began = performance.now()
const step = (message: string) => console.log(`[${Math.round((performance.now() - began) / 1000)} s] ${message}`)

interface Watched {
  avatarId: string
  /** Delays (ms) of the AvatarChanged events this stream got, by the money they showed. */
  delays: number[]
  events: number
  response: IncomingMessage
}

/** Opens `count` streams, spread evenly over the players, each on its own connection. */
async function openStreams(base: string, players: Player[], count: number): Promise<Watched[]> {
  const agent = new Agent({ keepAlive: false, maxSockets: Infinity })
  return inBatches(count, 50, (i) => new Promise<Watched>((resolve, reject) => {
    const p = players[i % players.length]!
    const req = request(`${base}/api/v1/avatars/${p.avatarId}/stream`, { agent, headers: { ...p.auth, accept: 'text/event-stream' } }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`stream ${i}: ${res.statusCode}`))
      const watched: Watched = { avatarId: p.avatarId, delays: [], events: 0, response: res }
      let buffer = ''
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => {
        const at = Date.now()
        buffer += chunk
        for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
          const block = buffer.slice(0, end)
          buffer = buffer.slice(end + 2)
          if (!block.includes('event: AvatarChanged')) continue
          const data = block.slice(block.indexOf('data: ') + 6)
          watched.events++
          watched.delays.push(at - Date.parse((JSON.parse(data) as { occurredAt: string }).occurredAt))
        }
      })
      res.on('error', () => undefined)
      resolve(watched)
    })
    req.on('error', reject)
    req.end()
  }))
}

/** Earns on random players at `rate`/s for `seconds`: answers how many each player got. */
async function earnTrickle(base: string, players: Player[], rate: number, seconds: number): Promise<Map<string, number>> {
  const earned = new Map<string, number>()
  const t0 = performance.now()
  const pending: Promise<void>[] = []
  for (let i = 0; i < rate * seconds; i++) {
    await sleep(Math.max(0, t0 + (i * 1000) / rate - performance.now()))
    const p = players[Math.floor(Math.random() * players.length)]!
    pending.push(fetch(`${base}/api/v1/avatars/${p.avatarId}/money/earn`, {
      method: 'POST', headers: { ...p.auth, 'content-type': 'application/json' }, body: '{"amount":1}',
    }).then((r) => {
      if (r.status !== 204) throw new Error(`earn: ${r.status}`)
      earned.set(p.avatarId, (earned.get(p.avatarId) ?? 0) + 1)
    }))
  }
  await Promise.all(pending)
  return earned
}

interface Figures {
  shape: string
  streams: number
  getWithout: number
  getWith: number
  /** The floor's GET (bench/baseline-server.ts, one select) in the same phases, all-in-one only. */
  floorWith?: number | undefined
  floorWithout?: number | undefined
  rssBeforeMb?: number | undefined
  rssAfterMb?: number | undefined
  kbPerStream?: number | undefined
  delivered: number
  expected: number
  p50: number
  p99: number
  max: number
}

/**
 * In this order, so that neither the GET load's garbage nor its backlog colours the other figures:
 * RSS; streams opened; RSS again; the earns, timed to the streams; GET with the streams open; the
 * streams closed; GET without them.
 */
async function measure(shape: string, base: string, serverPids: number[], players: Player[], streams: number, floorUrl?: string): Promise<Figures> {
  const getUrl = `${base}/api/v1/avatars/${players[0]!.avatarId}`
  const get = () => load({ url: getUrl, headers: players[0]!.auth, connections: CONNECTIONS, duration: DURATION })
  const floorGet = async () => (floorUrl ? (await load({ url: `${floorUrl}/avatars/${players[0]!.avatarId}`, connections: CONNECTIONS, duration: DURATION })).rps : undefined)
  const rss = async () => (await Promise.all(serverPids.map(rssMb))).reduce((s: number, v) => s + (v ?? 0), 0)
  await sleep(1_000)
  const rssBefore = await rss()
  step(`${shape}: opening ${streams} streams`)
  const watched = await openStreams(base, players, streams)
  await sleep(2_000)
  const rssAfter = await rss()
  step(`${shape}: earns at ${RATE}/s for ${SECONDS} s, timed to each stream`)
  const earned = await earnTrickle(base, players, RATE, SECONDS)
  const expected = watched.reduce((n, w) => n + (earned.get(w.avatarId) ?? 0), 0)
  const deadline = Date.now() + DELIVERY_GRACE_MS
  const delivered = () => watched.reduce((n, w) => n + w.events, 0)
  while (delivered() < expected && Date.now() < deadline) await sleep(100)
  const delays = watched.flatMap((w) => w.delays).sort((a, b) => a - b)
  const got = delivered()
  step(`${shape}: GET with ${streams} streams open, ${DURATION} s`)
  await load({ url: getUrl, headers: players[0]!.auth, connections: CONNECTIONS, duration: 2 })
  const withStreams = await get()
  const floorWith = await floorGet()
  for (const w of watched) w.response.destroy()
  await sleep(1_000)
  step(`${shape}: GET without streams, ${DURATION} s`)
  const without = await get()
  const floorWithout = await floorGet()
  return {
    shape, streams, getWithout: without.rps, getWith: withStreams.rps, floorWith, floorWithout,
    rssBeforeMb: rssBefore, rssAfterMb: rssAfter, kbPerStream: ((rssAfter - rssBefore) * 1024) / streams,
    delivered: got, expected, p50: percentile(delays, 50), p99: percentile(delays, 99), max: delays.at(-1) ?? NaN,
  }
}

async function allInOne(url: string, dataDir: string): Promise<Figures> {
  const server = await startServer('all-in-one', 'bin/questline.js', ['serve'], { DATABASE_URL: url, DATA_DIR: dataDir, LOG_LEVEL: 'warn', DATABASE_POOL_SIZE: '20' }, '/readyz', { cpus: pinning.serverCpus })
  let floor: Started | undefined
  try {
    step(`all-in-one: ${PLAYERS} players`)
    const players = await inBatches(PLAYERS, 4, (i) => register(server.url, `Watcher ${i}`))
    // The floor on the same database, serving the first player's avatar from its own table.
    floor = await startServer('floor', 'bench/baseline-server.ts', [], { DATABASE_URL: url, FLOOR_ENGINE: 'postgres', FLOOR_HOT_ID: players[0]!.avatarId, FLOOR_SPREAD: '0' }, '/healthz', { cpus: pinning.serverCpus })
    return await measure('all-in-one', server.url, [server.pid], players, STREAMS, floor.url)
  } finally {
    await floor?.stop()
    await server.stop()
  }
}

async function split(url: string, nats: Record<string, string>): Promise<Figures> {
  const cluster = await Cluster.start({
    port: 0, host: '127.0.0.1',
    contexts: [{ context: 'avatar', replicas: 1 }, { context: 'tracking', replicas: 1 }, { context: 'guild', replicas: 1 }, { context: 'quest', replicas: 1 },
      { context: 'marketplace', replicas: 1 }, { context: 'live', replicas: 2 }],
    env: { DATABASE_URL: url, ...nats, LOG_LEVEL: 'warn', JWT_PRIVATE_KEY: JSON.stringify(await generateSigningJwk()) },
  })
  const unregister = onInterrupt(() => cluster.stop())
  try {
    const base = cluster.url
    step(`split: ${PLAYERS} players`)
    const players = await inBatches(PLAYERS, 4, (i) => register(base, `Watcher ${i}`))
    const pids = [cluster.gateway, ...cluster.of('live')].map((p) => p.child.pid!)
    return await measure('split (gateway + live ×2)', base, pids, players, SPLIT_STREAMS)
  } finally {
    await cluster.stop()
    unregister()
  }
}

async function main(): Promise<void> {
  await buildAll({ ifStale: true })
  const results: Figures[] = []
  await withBenchDatabase(ADMIN_URL, (url) => withTempDir('questline-stream-', async (dir) => void results.push(await allInOne(url, dir))))
  if (process.env.SPLIT !== 'false') await withBenchDatabase(ADMIN_URL, (url) => withStream(NATS_URL, async (nats) => void results.push(await split(url, nats))))
  console.log(`\nLive streams on PostgreSQL; ${pinning.description}`)
  console.log(table(
    ['shape', 'streams', 'GET req/s without', 'with', 'ratio', 'ours/floor without', 'with', 'RSS MB before → after', 'KB per stream', 'AvatarChanged delivered / earns', 'delay p50 ms', 'p99', 'max'],
    results.map((r) => [r.shape, fmt(r.streams), fmt(r.getWithout), fmt(r.getWith), fmt(r.getWith / r.getWithout, 2),
      r.floorWithout ? fmt(r.getWithout / r.floorWithout, 2) : '', r.floorWith ? fmt(r.getWith / r.floorWith, 2) : '', `${fmt(r.rssBeforeMb)} → ${fmt(r.rssAfterMb)}`,
      fmt(r.kbPerStream, 1), `${fmt(r.delivered)} / ${fmt(r.expected)}`, fmt(r.p50, 1), fmt(r.p99, 1), fmt(r.max)]),
    [false, true, true, true, true, true, true, true, true, true, true, true, true],
  ))
  const dir = path.join('bench', 'results')
  await mkdir(dir, { recursive: true })
  await writeFile(path.join(dir, `stream-${new Date().toISOString().replace(/[:.]/g, '-')}.json`), JSON.stringify({ pinning: pinning.description, results }, null, 2))
}

await main()
