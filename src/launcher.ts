/**
 * npm run start:split — every context as its own process on PostgreSQL and NATS, behind a
 * gateway on PORT. REPLICAS_<CONTEXT>=N runs N of one; REPLICAS_EDGE=N runs N gateways behind a
 * round-robin balancer on PORT. Every process signs and verifies with the
 * same keys: JWT_PRIVATE_KEY when set (each inherits it), else those kept in the database. Logs are
 * prefixed with the process name. SIGINT/SIGTERM stops them all; a process that dies before it
 * is ready stops the launch with a non-zero exit.
 */
import { ConfigError, loadConfigFromEnvironment } from './config.js'
import { CONTEXT_NAMES } from './contexts/modules.js'
import { Cluster } from './split/cluster.js'

function fail(message: string): never {
  console.error(message)
  process.exit(1)
}

async function main(): Promise<void> {
  let config
  try {
    config = loadConfigFromEnvironment()
  } catch (e) {
    if (e instanceof ConfigError) fail(e.message)
    throw e
  }
  const missing = [['DATABASE_URL', config.databaseUrl], ['NATS_URL', config.natsUrl]].filter(([, v]) => !v).map(([k]) => k)
  if (missing.length > 0) {
    fail(`start:split needs ${missing.join(' and ')}: every process shares one PostgreSQL database and one NATS JetStream.\n` +
      'e.g. DATABASE_URL=postgres://postgres@127.0.0.1:5432/questline NATS_URL=nats://127.0.0.1:4222 npm run start:split')
  }
  // The edge is started last, as the gateway in front of them (Cluster).
  const contexts = CONTEXT_NAMES.filter((c) => c !== 'edge').map((context) => ({ context, replicas: config.replicas[context] ?? 1 }))
  let cluster: Cluster
  try {
    cluster = await Cluster.start({
      port: config.port, host: config.host, contexts, gateways: config.replicas.edge ?? 1, env: {}, output: (line) => console.log(line),
    })
  } catch (e) {
    fail(`[launcher] ${(e as Error).message}; stopped`)
  }
  const stop = () => void cluster.stop().then(() => process.exit(0))
  process.once('SIGINT', stop)
  process.once('SIGTERM', stop)
  // One write, so a reader that sees the first line of the listing has the whole of it.
  console.log([
    `[launcher] Questline (split) is up on ${cluster.url}; processes:`,
    ...cluster.processes.map((p) => `[launcher]   ${p.name} ${p.url}`),
  ].join('\n'))
}

void main()
