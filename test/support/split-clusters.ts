/**
 * Split-services clusters shared by the test files of one run. Starting every context as its own
 * process takes 10–30 s on two cores, so the global setup keeps one cluster per distinct set of
 * settings and lends it to each test app that asks for those settings (over a small loopback
 * HTTP endpoint, since test files run in worker processes). Each cluster has a database and a
 * NATS stream of its own; all are stopped and removed when the run ends.
 */
import { createServer, type Server } from 'node:http'
import { generateSigningJwk } from '../../src/platform/auth/keys.js'
import { Cluster } from '../../src/split/cluster.js'
import { openPostgresTestDatabase, type TemplateInfo, type TestDatabase } from './backends.js'
import { ownStream, type NatsSettings } from './nats.js'

/** Avatar and tracking run twice, as the split-services issue asks. */
export const SPLIT_CONTEXTS = [
  { context: 'avatar', replicas: 2 },
  { context: 'tracking', replicas: 2 },
  { context: 'guild', replicas: 1 },
  { context: 'quest', replicas: 1 },
  { context: 'marketplace', replicas: 1 },
  { context: 'live', replicas: 2 },
]

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

export class SplitClusterBroker {
  private readonly clusters = new Map<string, Promise<Running>>()
  private server: Server | undefined
  private made = 0

  constructor(
    private readonly templates: TemplateInfo,
    private readonly natsUrl: string,
    private readonly output?: (line: string) => void,
  ) {}

  /** Serves `POST /clusters {env}` on a loopback port; answers its base URL. */
  async listen(): Promise<string> {
    const server = createServer((req, res) => {
      let body = ''
      req.on('data', (chunk: Buffer) => (body += chunk.toString()))
      req.on('end', () => {
        const { env } = JSON.parse(body || '{}') as { env?: Record<string, string> }
        this.lend(env ?? {}).then(
          (lease) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(lease)),
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
    const running = await Promise.allSettled(this.clusters.values())
    for (const r of running) if (r.status === 'fulfilled') await r.value.stop()
  }

  private async lend(env: Record<string, string>): Promise<ClusterLease> {
    const key = JSON.stringify(Object.entries(env).sort(([a], [b]) => a.localeCompare(b)))
    let running = this.clusters.get(key)
    if (!running) {
      running = this.start(env)
      this.clusters.set(key, running)
      // A failed start is not kept: the next test asks again and sees its own error.
      running.catch(() => this.clusters.delete(key))
    }
    return (await running).lease
  }

  private async start(env: Record<string, string>): Promise<Running> {
    const nats = ownStream(this.natsUrl, `qltest_split_${this.templates.runId}_${++this.made}`)
    const t = await startTestCluster(this.templates, nats, env, 1, this.output)
    return {
      lease: {
        gateway: t.cluster.gateway.url,
        processes: t.cluster.processes.map((p) => ({ name: p.name, context: p.context, url: p.url })),
        databaseUrl: t.db.url!,
        jwk: t.jwk,
      },
      stop: t.stop,
    }
  }
}

export interface TestCluster {
  cluster: Cluster
  db: TestDatabase
  /** The signing key every process shares (tests mint tokens with it). */
  jwk: string
  /** Stops every process and removes the database and what `nats` made. */
  stop(): Promise<void>
}

/**
 * Every context as its own process (SPLIT_CONTEXTS) behind a gateway, on a fresh copy of the
 * run's migrated database and the NATS settings given; `env` goes on top (JWT_PRIVATE_KEY in it
 * chooses the key). A cluster that fails to start leaves nothing behind.
 */
export async function startTestCluster(
  templates: TemplateInfo, nats: NatsSettings, env: Record<string, string>, poolSize: number, output?: (line: string) => void,
): Promise<TestCluster> {
  const jwk = env.JWT_PRIVATE_KEY ?? JSON.stringify(await generateSigningJwk())
  const db = await openPostgresTestDatabase(templates, poolSize)
  const remove = async () => {
    await db.drop()
    await nats.cleanup()
  }
  try {
    const cluster = await Cluster.start({
      port: 0,
      host: '127.0.0.1',
      contexts: SPLIT_CONTEXTS,
      ...(templates.bundle ? { entry: [templates.bundle] } : {}),
      testControls: true,
      env: {
        DATABASE_URL: db.url!, ...nats.env, LOG_LEVEL: output ? 'warn' : 'silent', JOBS_ENABLED: 'false',
        JWT_PRIVATE_KEY: jwk, ...env,
      },
      ...(output ? { output } : {}),
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
