/**
 * `npm run compose:smoke [embedded|split]`: compose.yaml brought up both ways (or the shape named) with podman-compose on podman
 * (scripts/containers/podman.ts), a player's first steps through the published port in each, then
 * down with its volumes. The base images are stand-ins built offline under the names the files use
 * (scripts/containers/stand-ins.ts: Node 24 on Debian, Debian's PostgreSQL 15 as postgres:17-bookworm,
 * Debian's nats-server 2.9.10 as nats:2.11-alpine); the Questline image is the Dockerfile's, built
 * as `npm run image:smoke` builds it (the layer cache makes it short).
 *   embedded  the questline service: the runtime smoke (register → habit → attend → reward, /, /docs)
 *   split     postgres, nats, migrate, every context, the gateway and the backup service: migrate
 *             exits 0, every service's health check passes (pg_isready on TCP, NATS with JetStream,
 *             /readyz), the runtime smoke through the gateway, and a pg_dump in the backups folder.
 * Debian's podman-compose (1.0.3) ignores `profiles` (it would start every service) and waits for no
 * health condition, so the services of each shape are named on the command line, and this script
 * waits for what depends_on would have. Secrets and backups go to a temporary folder
 * (QUESTLINE_SECRETS, PG_BACKUP_DIR), the port to loopback. Fails where podman runs and any of it fails.
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto'
import { mkdirSync, openSync, readdirSync, readSync, closeSync, writeFileSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { freePort } from '../../src/platform/net/free-port.js'
import { eventually } from '../../test/support/eventually.js'
import { smokeTest, waitUntilReady } from '../../test/support/runtime-smoke.js'
import { buildImage, IMAGE, imageSize } from '../image-smoke.js'
import { ask, fail, must, podmanEnv, requirePodman, shown, Steps } from './podman.js'
import { ensureStandIns } from './stand-ins.js'

const LABEL = 'compose:smoke'
const READY_TIMEOUT_MS = 180_000
const CONTEXTS = ['avatar-1', 'avatar-2', 'tracking-1', 'tracking-2', 'guild', 'quest', 'marketplace', 'live-1', 'live-2']
const SHAPES = {
  embedded: { services: ['questline'], healthy: ['questline'] },
  split: {
    services: ['postgres', 'nats', 'migrate', ...CONTEXTS, 'gateway', 'backup'],
    healthy: ['postgres', 'nats', ...CONTEXTS, 'gateway'],
  },
} as const

interface Run { project: string; env: NodeJS.ProcessEnv; url: string; backups: string }

const compose = (run: Run, args: string[]) => shown('podman-compose', ['-p', run.project, '-f', 'compose.yaml', ...args], { env: run.env })
const container = (run: Run, service: string) => `${run.project}_${service}_1`

async function lastOutput(run: Run, services: readonly string[]): Promise<void> {
  for (const service of services) {
    const logs = await ask('podman', ['logs', '--tail', '15', container(run, service)])
    console.error(`${LABEL}: ${service}'s last output:\n${logs.ok ? `${logs.stdout}\n${logs.stderr}` : logs.why}`)
  }
}

/** Each service's own health check, run now (podman runs none on a schedule without systemd). */
async function expectHealthy(run: Run, services: readonly string[]): Promise<void> {
  for (const service of services) {
    await eventually(`${service}'s health check passes`, async () => {
      const check = await ask('podman', ['healthcheck', 'run', container(run, service)])
      return check.ok ? true : undefined
    }, { withinMs: 60_000, everyMs: 1_000 })
  }
}

async function expectMigrated(run: Run): Promise<void> {
  await eventually('migrate exited 0', async () => {
    const state = await must('podman', ['inspect', '--format', '{{.State.Status}} {{.State.ExitCode}}', container(run, 'migrate')])
    return state === 'exited 0' ? true : undefined
  }, { withinMs: 60_000, everyMs: 1_000 })
}

/** A custom-format dump (it starts with PGDMP) in the backups folder. */
async function expectBackup(run: Run): Promise<string> {
  return eventually('a pg_dump in the backups folder', async () => {
    const dump = readdirSync(run.backups).find((f) => /^questline-\d{8}T\d{6}Z\.dump$/.test(f))
    if (!dump) return undefined
    const head = Buffer.alloc(5)
    const fd = openSync(path.join(run.backups, dump), 'r')
    try { readSync(fd, head, 0, 5, 0) } finally { closeSync(fd) }
    return head.toString() === 'PGDMP' ? dump : undefined
  }, { withinMs: 60_000, everyMs: 1_000 })
}

/**
 * `down -v`, then what podman-compose 1.0.3 leaves: the anonymous volumes of the images' VOLUMEs
 * and the project's network.
 */
async function down(run: Run): Promise<void> {
  const ids = await ask('podman', ['ps', '-a', '-q', '--filter', `label=io.podman.compose.project=${run.project}`])
  const mounts = ids.ok && ids.stdout !== '' ? await ask('podman', ['inspect', '--format', '{{range .Mounts}}{{.Name}} {{end}}', ...ids.stdout.split('\n')]) : undefined
  await compose(run, ['down', '-v']).catch((e: unknown) => console.error(`${LABEL}: down: ${String(e)}`))
  const anonymous = (mounts?.ok ? mounts.stdout.split(/\s+/) : []).filter((v) => /^[0-9a-f]{64}$/.test(v))
  if (anonymous.length > 0) await ask('podman', ['volume', 'rm', '-f', ...anonymous])
  await ask('podman', ['network', 'rm', '-f', `${run.project}_default`])
}

async function shape(name: keyof typeof SHAPES, run: Run, steps: Steps): Promise<void> {
  const { services, healthy } = SHAPES[name]
  try {
    await steps.step(`${name}: podman-compose up -d ${services.length === 1 ? services[0] : `(${services.length} services)`}`, () => compose(run, ['up', '-d', '--no-build', ...services]))
    await steps.step(`${name}: ${name === 'split' ? 'the gateway' : 'questline'} ready at ${run.url}`, () =>
      waitUntilReady(run.url, { withinMs: READY_TIMEOUT_MS, exited: () => undefined }))
    if (name === 'split') await steps.step('split: migrate exited 0', () => expectMigrated(run))
    await steps.step(`${name}: every health check passes`, () => expectHealthy(run, healthy))
    await steps.step(`${name}: runtime smoke through the published port`, () => smokeTest(run.url))
    if (name === 'split') console.log(`${LABEL}: backup: ${await steps.step('split: a pg_dump from the backup service', () => expectBackup(run))}`)
  } catch (e) {
    await lastOutput(run, services)
    throw e
  } finally {
    await steps.step(`${name}: podman-compose down -v`, () => down(run))
  }
}

async function composeSmoke(shapes: (keyof typeof SHAPES)[], steps: Steps): Promise<void> {
  const version = await ask('podman-compose', ['--version'])
  if (!version.ok) throw new Error(`podman-compose is ${version.why} (apt-get install podman-compose)`)
  // The embedded shape is the Questline image alone; the split one adds PostgreSQL and NATS.
  await ensureStandIns(shapes.includes('split') ? ['node', 'postgres', 'nats'] : ['node'], steps)
  await buildImage(steps)
  const work = await mkdtemp(path.join(os.tmpdir(), 'compose-smoke-'))
  try {
    const secrets = path.join(work, 'secrets')
    const backups = path.join(work, 'backups')
    mkdirSync(secrets)
    mkdirSync(backups)
    // Readable by postgres (uid 999) and node (uid 1000), as docs/deploy.md makes them.
    writeFileSync(path.join(secrets, 'postgres_password'), randomBytes(24).toString('base64url'), { mode: 0o644 })
    writeFileSync(path.join(secrets, 'jwt_private_key.json'), JSON.stringify(generateKeyPairSync('ed25519').privateKey.export({ format: 'jwk' })), { mode: 0o644 })
    const port = await freePort()
    const run: Run = {
      project: `questline-smoke-${process.pid}`,
      url: `http://127.0.0.1:${port}`,
      backups,
      env: { ...podmanEnv(), QUESTLINE_IMAGE: IMAGE, QUESTLINE_PORT: `127.0.0.1:${port}`, QUESTLINE_SECRETS: secrets, PG_BACKUP_DIR: backups, PG_BACKUP_INTERVAL_SECONDS: '3600' },
    }
    for (const name of shapes) await shape(name, run, steps)
  } finally {
    await rm(work, { recursive: true, force: true })
  }
  console.log(`${LABEL}: passed: compose.yaml's ${shapes.join(' and ')} shape${shapes.length > 1 ? 's' : ''} with podman-compose, on stand-in base images (${shapes.includes('split') ? 'Node, PostgreSQL, NATS' : 'Node'}); image ${await imageSize()}`)
  console.log(`${LABEL}: steps:\n${steps.summary()}`)
}

/** The shapes named on the command line (`npm run compose:smoke -- embedded`), else both. */
function shapesAsked(args: string[]): (keyof typeof SHAPES)[] {
  const unknown = args.filter((a) => !(a in SHAPES))
  if (unknown.length > 0) throw new Error(`${LABEL}: no shape ${unknown.join(', ')} (shapes: ${Object.keys(SHAPES).join(', ')})`)
  return args.length > 0 ? args as (keyof typeof SHAPES)[] : ['embedded', 'split']
}

const shapes = shapesAsked(process.argv.slice(2))
await requirePodman(LABEL)
const steps = new Steps(LABEL)
await composeSmoke(shapes, steps).catch((e: unknown) => fail(LABEL, steps, e))
