/**
 * A rolling restart of split services under steady load (the split-faults project): every process,
 * behind two gateways and a balancer, drains on SIGTERM and starts again, in waves that keep each
 * context serving. Nothing may fail: every request is answered 2xx, every acknowledged write is
 * there once, and a stream is told to reconnect. The test starts a cluster of its own and removes
 * everything it made, also when it fails.
 */
import { randomUUID } from 'node:crypto'
import { expect, test } from 'vitest'
import { newGuild } from './support/guilds.js'
import { avatarOf, newHabit } from './support/habits.js'
import { marketplaceOf } from './support/marketplaces.js'
import { ownStream } from './support/nats.js'
import { newPlayer } from './support/players.js'
import { buildOwnSplitApp } from './support/split-app.js'
import { SHARED_SHAPE } from './support/split-clusters.js'
import { openStream } from './support/streams.js'

/** What a process that drained had in hand is taken up by another after these leases (30 s by default). */
const LEASES = { OUTBOX_LEASE_SECONDS: '5', NATS_ACK_WAIT_SECONDS: '5' }
/**
 * Fourteen processes started, then restarted in two waves (one of each context and a gateway at
 * once), each waited for: a process starts in seconds, but many times slower on a loaded machine.
 */
const ROLLING_RESTART_TIMEOUT_MS = 300_000

test('a rolling restart under steady load: each process drains and exits 0, no request fails, every acknowledged write is there, streams are told to reconnect', async ({ onTestFinished }) => {
  const CLIENTS = 4
  /** Bounds the load whatever happens: per client, and in time. */
  const MAX_REQUESTS_PER_CLIENT = 1_500
  const natsUrl = process.env.TEST_NATS_URL
  if (!natsUrl) throw new Error('The split-faults project needs TEST_NATS_URL.')
  const app = await buildOwnSplitApp({ env: { ACCESS_TOKEN_TTL_SECONDS: '86400', ...LEASES }, shape: SHARED_SHAPE },
    ownStream(natsUrl, `qlrolling_${process.pid}_${Date.now().toString(36)}`))
  onTestFinished(() => app.close())
  const players = await Promise.all(Array.from({ length: CLIENTS }, () => newPlayer(app)))
  const worlds = await Promise.all(players.map(async (p) => ({
    p, habit: await newHabit(app, p), guild: await newGuild(app, p), marketplace: await marketplaceOf(app, p),
  })))
  // A read of every context, then a keyed write (the avatar honours Idempotency-Key), in turn.
  const reads = (w: (typeof worlds)[number]) => [
    `/api/v1/avatars/${w.p.avatarId}`, `/api/v1/habits/${w.habit}`, `/api/v1/guilds/${w.guild}`, '/api/v1/quests',
    `/api/v1/marketplaces/${w.marketplace}/items`, `/api/v1/avatars/${w.p.avatarId}/notifications`,
  ]
  const stream = await openStream(`${await app.baseUrl()}/api/v1/avatars/${players[0]!.avatarId}/stream`, players[0]!.auth)
  onTestFinished(() => stream.close())
  expect(stream.status).toBe(200)

  let restarting = true
  const earned = new Map<string, number>()
  const failures: string[] = []
  const load = Promise.all(worlds.map(async (w) => {
    const urls = reads(w)
    let sent = 0
    for (; restarting && sent < MAX_REQUESTS_PER_CLIENT; sent++) {
      const write = sent % 2 === 1
      const res = write
        ? await app.inject({ method: 'POST', url: `/api/v1/avatars/${w.p.avatarId}/money/earn`, headers: { ...w.p.auth, 'idempotency-key': randomUUID() }, payload: { amount: 1 } })
        : await app.inject({ url: urls[(sent / 2) % urls.length]!, headers: w.p.auth })
      if (res.statusCode >= 300) failures.push(`${res.statusCode} ${res.body}`)
      else if (write) earned.set(w.p.avatarId, (earned.get(w.p.avatarId) ?? 0) + 1)
    }
    return sent
  }))
  const started = Date.now()
  const exits = await app.cluster.rollingRestart().finally(() => {
    restarting = false
  })
  const sent = (await load).reduce((n, k) => n + k, 0)
  console.log(`rolling restart of ${exits.size} processes in ${Date.now() - started} ms under ${sent} requests`)

  expect(Object.fromEntries(exits)).toEqual(Object.fromEntries([...exits.keys()].map((name) => [name, 0])))
  expect(exits.size).toBe(14)
  expect(failures).toEqual([])
  expect(sent).toBeGreaterThan(exits.size * CLIENTS)
  // Every acknowledged earn is in the wallet, once: 100 to start with, 1 per earn.
  for (const w of worlds) expect((await avatarOf(app, w.p)).money.amount, w.p.avatarId).toBe(100 + (earned.get(w.p.avatarId) ?? 0))
  // The live process holding the stream drained: it ended the stream with a reconnect hint.
  const hint = await stream.next((e) => e.event === 'reconnect', 1_000)
  expect((hint.data as { retryMs: number }).retryMs).toBeGreaterThanOrEqual(1_000)
  expect(hint.id).toBeUndefined()
  await stream.ended
}, ROLLING_RESTART_TIMEOUT_MS)
