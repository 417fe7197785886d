/**
 * Split-services clusters shared by the test files of one run. Starting every context as its own
 * process takes 10–30 s on two cores, so the global setup keeps a cluster per distinct set of
 * settings and lends it to each test app that asks for those settings (over a small loopback
 * HTTP endpoint, since test files run in worker processes); a test app gives it back when it
 * closes, and clusters nobody holds are stopped once more than CLUSTERS_KEPT are alive, or once
 * nobody has held them for IDLE_STOP_MS (the split files have run: the fault and web tests that
 * follow them need the cores). Each
 * cluster has a database and a NATS stream of its own; all are stopped and removed when the run ends.
 */
import { createServer, type Server } from 'node:http'
import { generateSigningJwk } from '../../src/platform/auth/keys.js'
import { Cluster } from '../../src/split/cluster.js'
import { openPostgresTestDatabase, type TemplateInfo, type TestDatabase } from './backends.js'
import { ownStream, type NatsSettings } from './nats.js'

/** Which processes a cluster runs: contexts with their replica counts, and how many gateways. */
export interface ClusterShape {
  contexts: { context: string; replicas: number }[]
  gateways: number
}

/**
 * The black-box suites' clusters: two of every context, and two gateways behind a round-robin
 * balancer, so consecutive requests reach different gateways and any replica may answer.
 */
export const SHARED_SHAPE: ClusterShape = {
  contexts: ['avatar', 'tracking', 'guild', 'quest', 'marketplace', 'live'].map((context) => ({ context, replicas: 2 })),
  gateways: 2,
}

/** A fault test's own cluster, unless it asks for another: fewer processes start sooner, and each test kills a few. */
export const OWN_SHAPE: ClusterShape = {
  contexts: [{ context: 'avatar', replicas: 2 }, { context: 'tracking', replicas: 2 }, { context: 'guild', replicas: 1 },
    { context: 'quest', replicas: 1 }, { context: 'marketplace', replicas: 1 }, { context: 'live', replicas: 2 }],
  gateways: 1,
}

/** What a test app needs to drive a lent cluster. */
export interface ClusterLease {
  gateway: string
  processes: { name: string; context: string; url: string }[]
  databaseUrl: string
  /** The signing key every process shares (tests mint tokens with it). */
  jwk: string
}

interface Running {
  lease: ClusterLease
  stop(): Promise<void>
}

/** A cluster kept by the broker: how many test apps hold it now, and when it was last lent. */
interface Kept {
  running: Promise<Running>
  holders: number
  lastLent: number
  idleStop?: NodeJS.Timeout
}

/**
 * Clusters kept alive at once, beyond those held. Each idle cluster still holds about one
 * PostgreSQL connection per process (its pollers), and the machine's PostgreSQL takes 100 in all:
 * keeping every cluster a run made (six) held 70 of them while the fault tests needed 50.
 */
const CLUSTERS_KEPT = 2
/**
 * A cluster nobody has held for this long is stopped. The split files run one after another, a
 * few seconds apart; once they are done, an idle cluster's fourteen processes would only take CPU
 * from the tests after them.
 */
const IDLE_STOP_MS = 30_000

export class SplitClusterBroker {
  private readonly clusters = new Map<string, Kept>()
  private server: Server | undefined
  private made = 0
  /** Idle clusters being stopped: the run's end waits for them. */
  private readonly stopping = new Set<Promise<void>>()

  constructor(
    private readonly templates: TemplateInfo,
    private readonly natsUrl: string,
    private readonly output?: (line: string) => void,
  ) {}

  /**
   * Serves `POST /clusters {env}` (a lease of the cluster for those settings, with its `key`) and
   * `POST /clusters/release {key}` (a test app is done with it) on a loopback port; answers its base URL.
   */
  async listen(): Promise<string> {
    const server = createServer((req, res) => {
      let body = ''
      req.on('data', (chunk: Buffer) => (body += chunk.toString()))
      req.on('end', () => {
        const asked = JSON.parse(body || '{}') as { env?: Record<string, string>; key?: string }
        const answer = req.url === '/clusters/release' ? Promise.resolve(this.release(asked.key ?? '')) : this.lend(asked.env ?? {})
        answer.then(
          (lease) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(lease ?? {})),
          (e: unknown) => res.writeHead(500, { 'content-type': 'text/plain' }).end(String((e as Error).stack ?? e)),
        )
      })
    })
    this.server = server
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    return `http://127.0.0.1:${(server.address() as { port: number }).port}`
  }

  async close(): Promise<void> {
    await new Promise((resolve) => this.server?.close(resolve) ?? resolve(undefined))
    for (const k of this.clusters.values()) clearTimeout(k.idleStop)
    await Promise.allSettled([...this.stopping])
    const running = await Promise.allSettled([...this.clusters.values()].map((k) => k.running))
    for (const r of running) if (r.status === 'fulfilled') await r.value.stop()
  }

  private async lend(env: Record<string, string>): Promise<ClusterLease & { key: string }> {
    const key = JSON.stringify(Object.entries(env).sort(([a], [b]) => a.localeCompare(b)))
    let kept = this.clusters.get(key)
    if (!kept) {
      await this.stopIdleBeyond(CLUSTERS_KEPT - 1)
      kept = { running: this.start(env), holders: 0, lastLent: 0 }
      this.clusters.set(key, kept)
      // A failed start is not kept: the next test asks again and sees its own error.
      kept.running.catch(() => this.clusters.delete(key))
    }
    kept.holders++
    kept.lastLent = Date.now()
    clearTimeout(kept.idleStop)
    try {
      return { ...(await kept.running).lease, key }
    } catch (e) {
      kept.holders--
      throw e
    }
  }

  private release(key: string): void {
    const kept = this.clusters.get(key)
    if (!kept || kept.holders === 0) return
    if (--kept.holders > 0) return
    kept.idleStop = setTimeout(() => void this.stopIfIdle(key, kept), IDLE_STOP_MS)
  }

  private async stopIfIdle(key: string, kept: Kept): Promise<void> {
    if (kept.holders > 0 || this.clusters.get(key) !== kept) return
    this.clusters.delete(key)
    const stopped = kept.running.then((r) => r.stop(), () => undefined)
    this.stopping.add(stopped)
    await stopped.finally(() => this.stopping.delete(stopped))
  }

  /** Stops the clusters nobody holds, least recently lent first, until at most `keep` clusters are left. */
  private async stopIdleBeyond(keep: number): Promise<void> {
    const idle = [...this.clusters.entries()].filter(([, k]) => k.holders === 0).sort(([, a], [, b]) => a.lastLent - b.lastLent)
    for (const [key, k] of idle) {
      if (this.clusters.size <= keep) return
      this.clusters.delete(key)
      await k.running.then((r) => r.stop(), () => undefined)
    }
  }

  private async start(env: Record<string, string>): Promise<Running> {
    const nats = ownStream(this.natsUrl, `qltest_split_${this.templates.runId}_${++this.made}`)
    const t = await startTestCluster(this.templates, nats, env, SHARED_SHAPE, 1, this.output)
    return {
      lease: {
        gateway: t.cluster.url,
        processes: t.cluster.processes.map((p) => ({ name: p.name, context: p.context, url: p.url })),
        databaseUrl: t.db.url!,
        jwk: t.jwk,
      },
      stop: t.stop,
    }
  }
}

interface TestCluster {
  cluster: Cluster
  db: TestDatabase
  /** The signing key every process shares (tests mint tokens with it). */
  jwk: string
  /** Stops every process and removes the database and what `nats` made. */
  stop(): Promise<void>
}

/**
 * Every context as its own process (as `shape` says) behind its gateways, on a fresh copy of the
 * run's migrated database and the NATS settings given; `env` goes on top (JWT_PRIVATE_KEY in it
 * chooses the key). A cluster that fails to start leaves nothing behind.
 */
export async function startTestCluster(
  templates: TemplateInfo, nats: NatsSettings, env: Record<string, string>, shape: ClusterShape, poolSize: number, output?: (line: string) => void,
): Promise<TestCluster> {
  const jwk = env.JWT_PRIVATE_KEY ?? JSON.stringify(await generateSigningJwk())
  // A process's errors (a 500's stack, a crash) always reach the run's output: a failure seen only
  // under CI's load must say why. Everything else only when asked (QL_TEST_SPLIT_LOGS).
  const lines = output ?? ((line: string) => console.error(line))
  const db = await openPostgresTestDatabase(templates, poolSize)
  const remove = async () => {
    await db.drop()
    await nats.cleanup()
  }
  try {
    const cluster = await Cluster.start({
      port: 0,
      host: '127.0.0.1',
      contexts: shape.contexts,
      gateways: shape.gateways,
      ...(templates.bundle ? { entry: [templates.bundle] } : {}),
      testControls: true,
      env: {
        // The machine's PostgreSQL takes 100 connections, and a cluster is up to fourteen processes that run
        // beside a fault test's cluster and the other projects' databases: at the default pool of 10, one busy
        // cluster could take them all, and at 4 two clusters and a fault test's did (CI saw "sorry, too many
        // clients already").
        DATABASE_URL: db.url!, DATABASE_POOL_SIZE: '2', ...nats.env, LOG_LEVEL: output ? 'warn' : 'error', JOBS_ENABLED: 'false',
        JWT_PRIVATE_KEY: jwk, ...env,
      },
      output: lines,
    })
    return {
      cluster, db, jwk,
      stop: async () => {
        await cluster.stop()
        await remove()
      },
    }
  } catch (e) {
    await remove()
    throw e
  }
}
