/**
 * The deployment files held against the code: no container runs on the CI machines, so CI reads
 * compose.yaml, the Helm chart's manifests (rendered by real Helm, scripts/helm-chart.ts, with each
 * value set in deploy/helm/questline/ci, linted and checked against Kubernetes' schemas) and the
 * Dockerfile, and fails when a setting they pass is not one src/config.ts reads (or is refused by it), a probe
 * or scrape names a path or port a process does not serve, a context has no Deployment or compose
 * service, a process lacks where a context it calls runs, the image's entry is not what
 * bin/questline.js runs, the stream job's settings are not the processes', or a pod may be killed
 * before it has drained. Each workload is assembled (not started) with its own settings and
 * arguments, as `questline serve` would, and asked for the paths it serves.
 */
import { generateKeyPairSync } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { parse } from 'yaml'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { loadConfig } from '../src/config.js'
import { CONTEXT_NAMES } from '../src/contexts/modules.js'
import { Database } from '../src/platform/db/database.js'
import { streamSettings } from '../src/platform/events/nats-settings.js'
import { listenForMetrics } from '../src/platform/http/metrics-listener.js'
import { assemblePlatform, type ContextName } from '../src/server.js'
import { settingsRead } from './check-docs.js'
import { lint, manifestsOf, RELEASE, schemaErrors, VALUE_SETS } from './helm-chart.js'

type Manifest = Record<string, any> // eslint-disable-line @typescript-eslint/no-explicit-any -- parsed YAML, read by shape
type Env = Record<string, string>

const read = (file: string) => readFileSync(new URL(`../${file}`, import.meta.url), 'utf8')
const CONTEXTS = CONTEXT_NAMES.filter((c) => c !== 'edge')
/** `name=postgres://…` stand-ins for what a Secret holds. */
const SECRET_VALUES: Record<string, string | undefined> = {
  'database-url': 'postgres://questline:secret@postgres:5432/questline',
  'database-migration-url': 'postgres://questline:secret@postgres:5432/questline',
}

/** Whether src/config.ts reads the setting: by name, or as one of its per-context families (`UPSTREAM_AVATAR`). */
const known = (() => {
  const names = settingsRead(loadConfig, read('src/config.ts'))
  return (name: string) => names.includes(name) || names.some((family) => family.endsWith('_<CONTEXT>') &&
    name.startsWith(family.replace('<CONTEXT>', '')) && (CONTEXT_NAMES as readonly string[]).includes(name.slice(family.length - 9).toLowerCase()))
})()

/** `--only a,b` of a `serve` command line. */
const onlyOf = (args: string[]) => args[args.indexOf('--only') + 1]!.split(',') as ContextName[]

let database: Database
let secretsDir: string
beforeAll(async () => {
  database = await Database.embedded({})
  secretsDir = mkdtempSync(path.join(tmpdir(), 'ql-deploy-'))
}, 60_000)
afterAll(async () => {
  await database?.close()
  rmSync(secretsDir, { recursive: true, force: true })
})

/** The process `questline <args>` with these settings would be: assembled, asked which GET paths it serves, closed. */
async function serves(args: string[], env: Env, paths: string[]): Promise<string[]> {
  expect(args[0], args.join(' ')).toBe('serve')
  const config = loadConfig({ ...env, LOG_LEVEL: 'silent', JOBS_ENABLED: 'false' })
  const { http } = await assemblePlatform({ config, logger: false, database, ...(args.includes('--only') ? { only: onlyOf(args) } : {}) })
  try {
    await http.ready()
    return paths.filter((url) => http.hasRoute({ method: 'GET', url }))
  } finally {
    await http.close()
  }
}

/** The Dockerfile's instructions, continuation lines joined. */
function dockerfile(): { instruction: string; value: string }[] {
  return read('Dockerfile').replace(/\\\n/g, ' ').split('\n').filter((l) => l.trim() !== '' && !l.trim().startsWith('#'))
    .map((l) => /^(\w+)\s+(.*)$/.exec(l.trim())!).map((m) => ({ instruction: m[1]!.toUpperCase(), value: m[2]! }))
}

/** The path a health check command asks (`fetch('http://127.0.0.1:8080/readyz')`, or `… + '/readyz'`). */
const healthCheckPath = (command: string) => {
  const m = /http:\/\/127\.0\.0\.1:\d+(\/[\w/-]*)|'(\/[\w/-]*)'/.exec(command)
  return m?.[1] ?? m?.[2]
}

describe('the image', () => {
  const instructions = dockerfile()
  const of = (name: string) => instructions.filter((i) => i.instruction === name).map((i) => i.value)

  test('its entry is what bin/questline.js loads, with npm start\'s command: the bundle, serve', () => {
    const bundle = /await import\('\.\.\/(dist\/[\w.]+\.js)'\)\s*$/.exec(read('bin/questline.js'))?.[1]
    const startArgs = (JSON.parse(read('package.json')) as { scripts: Env }).scripts.start!.split(' ')
    expect(startArgs.slice(0, 2)).toEqual(['node', 'bin/questline.js'])
    expect(of('ENTRYPOINT').map((v) => JSON.parse(v) as unknown)).toEqual([['node', bundle]])
    expect(of('CMD').map((v) => JSON.parse(v) as unknown)).toEqual([startArgs.slice(2)])
  })

  test('both stages are on one base (native modules), the runtime runs unprivileged, and its settings are read by src/config.ts', () => {
    expect(of('FROM').map((v) => v.split(/\s+/)[0])).toEqual(['${NODE_IMAGE}', '${NODE_IMAGE}'])
    expect(of('USER').at(-1)).not.toMatch(/^(root|0)$/)
    const env = Object.fromEntries(of('ENV').flatMap((v) => [...v.matchAll(/(\w+)=(\S+)/g)].map((m) => [m[1]!, m[2]!])))
    expect(Object.keys(env).filter((name) => name !== 'NODE_ENV' && !known(name))).toEqual([])
    expect(env).toMatchObject({ HOST: '0.0.0.0', DATA_DIR: '/data', BACKUP_DIR: '/backups' })
    expect(of('EXPOSE')).toEqual([env.PORT])
    expect(of('VOLUME').map((v) => JSON.parse(v) as unknown)).toEqual([[env.DATA_DIR]])
  })

  test('its health check asks a path the platform serves', async () => {
    const [check] = of('HEALTHCHECK')
    const probe = healthCheckPath(check ?? '')
    expect(probe).toBeDefined()
    expect(await serves(['serve'], {}, [probe!])).toEqual([probe])
  }, 60_000)
})

describe('compose.yaml', () => {
  const compose = parse(read('compose.yaml'), { merge: true }) as Manifest
  const services = Object.entries(compose.services as Record<string, Manifest>)
  /** The services running the Questline image, with their command line (the image's CMD by default). */
  const questline = services.filter(([, s]) => s.build === '.').map(([name, s]) => ({ name, service: s, args: (s.command ?? ['serve']) as string[] }))
  /** The service's settings, each file a secret names made a file of a stand-in. */
  const settingsOf = (s: Manifest): Env => Object.fromEntries(Object.entries((s.environment ?? {}) as Env).map(([k, raw]) => {
    // As compose reads it with nothing in .env: each ${NAME:-default} its default.
    const v = String(raw).replace(/\$\{\w+:-([^}]*)\}/g, '$1')
    if (!k.endsWith('_FILE')) return [k, v]
    const secret = path.basename(v)
    expect(s.secrets, `${k} names a secret the service is not given`).toContain(secret)
    const file = path.join(secretsDir, secret)
    writeFileSync(file, secret.startsWith('jwt') ? JSON.stringify(generateKeyPairSync('ed25519').privateKey.export({ format: 'jwk' })) : 'secret')
    return [k, file]
  }))

  test('every setting a Questline service is given is one src/config.ts reads, and takes', () => {
    for (const { name, service } of questline) {
      const env = settingsOf(service)
      expect(Object.keys(env).filter((k) => !known(k)), name).toEqual([])
      expect(() => loadConfig(env), name).not.toThrow()
      expect(service.entrypoint, `${name} keeps the image's entry`).toBeUndefined()
    }
  })

  test('the embedded profile is the whole platform on a volume at /data, its backups on another at the image\'s BACKUP_DIR; the split profile runs every context, three of them twice, and the gateway; no service is in both', () => {
    const embedded = compose.services.questline as Manifest
    expect(embedded.profiles).toEqual(['embedded'])
    for (const [name, service] of services) expect(service.profiles?.length, `${name} is in one profile`).toBe(1)
    expect(embedded.volumes).toEqual([expect.stringMatching(/^[\w-]+:\/data$/), expect.stringMatching(/^[\w-]+:\/backups$/)])
    const split = questline.filter(({ service }) => service.profiles?.includes('split'))
    const serving = (context: string) => split.filter(({ args }) => args.includes('--only') && onlyOf(args).includes(context as ContextName))
    for (const context of CONTEXT_NAMES) expect(serving(context).length, context).toBeGreaterThanOrEqual(['avatar', 'tracking', 'live'].includes(context) ? 2 : 1)
    expect(split.find(({ args }) => args[0] === 'migrate'), 'a one-shot migrate, run again until the database answers').toMatchObject({ service: { restart: 'on-failure' } })
    for (const infra of ['postgres', 'nats']) expect(compose.services[infra]?.healthcheck, infra).toBeDefined()
    // On TCP: on a new volume the image's first server answers on its socket only.
    expect(compose.services.postgres.healthcheck.test).toEqual(expect.arrayContaining(['pg_isready', '-h', '127.0.0.1']))
    expect(compose.services.backup, 'pg_dump on a schedule, with the PostgreSQL image').toMatchObject({ image: compose.services.postgres.image, profiles: ['split'] })
  })

  test('each replica finds itself among its context\'s upstreams, and every upstream is a service that serves that context', () => {
    const serviceNames = new Set(questline.map((q) => q.name))
    for (const { name, service, args } of questline.filter(({ args }) => args.includes('--only'))) {
      const env = service.environment as Env
      for (const [key, urls] of Object.entries(env).filter(([k]) => k.startsWith('UPSTREAM_'))) {
        for (const url of urls.split(',')) {
          const host = new URL(url).hostname
          expect(serviceNames.has(host), `${name}: ${key} names ${host}`).toBe(true)
          expect(onlyOf(questline.find((q) => q.name === host)!.args), `${host} serves ${key}`).toContain(key.slice(9).toLowerCase())
        }
      }
      const own = onlyOf(args)[0]!
      if (own !== 'edge') expect(env[`UPSTREAM_${own.toUpperCase()}`]?.split(','), name).toContain(env.ADVERTISE_URL)
    }
  })

  test('every health check asks a path its process serves, and a container stops only after it has drained', async () => {
    for (const { name, service, args } of questline.filter(({ args }) => args[0] === 'serve')) {
      const probe = healthCheckPath((service.healthcheck?.test as string[]).join(' '))
      expect(probe, name).toBeDefined()
      expect(await serves(args, settingsOf(service), [probe!]), name).toEqual([probe])
      const config = loadConfig(settingsOf(service))
      expect(Number(/^(\d+)s$/.exec(service.stop_grace_period as string)?.[1]) * 1000, name).toBeGreaterThan(config.drainTimeoutMs)
    }
  }, 120_000)
})

describe.each(VALUE_SETS)('the Helm chart, with the %s values', (set) => {
  const manifests = manifestsOf(set)
  const ofKind = (...kinds: string[]) => manifests.filter((m) => kinds.includes(m.kind as string))
  const values = parse(read(`deploy/helm/questline/ci/${set}-values.yaml`)) as Manifest
  const defaults = parse(read('deploy/helm/questline/values.yaml')) as Manifest
  const questlineImage = (image: string) => image.split(':')[0] === (values.image?.repository ?? defaults.image.repository)
  const secret = ofKind('Secret')[0]
  /** A container's settings: from a Secret, the stand-ins (optional keys left out); `$(POD_NAME)` as in the workload's first pod. */
  const settingsOf = (workload: Manifest, container: Manifest): Env => {
    const pod = workload.kind === 'StatefulSet' ? `${workload.metadata.name}-0` : workload.metadata.name as string
    return Object.fromEntries((container.env as Manifest[])
      .map((e) => [e.name as string, e.valueFrom?.fieldRef ? pod : e.value ?? SECRET_VALUES[e.valueFrom?.secretKeyRef?.key as string]])
      .filter(([, v]) => v !== undefined).map(([k, v]) => [k, (v as string).replace('$(POD_NAME)', pod)])) as Env
  }
  /** Every Questline container of the chart, with its settings. */
  const containers = ofKind('Deployment', 'StatefulSet', 'Job').flatMap((m) => (m.spec.template.spec.containers as Manifest[])
    .filter((c) => questlineImage(c.image as string)).map((container) => ({ workload: m, container, env: settingsOf(m, container) })))
  const serving = containers.filter(({ workload }) => workload.kind !== 'Job')
  const nameOf = (m: Manifest) => m.metadata.name as string

  test('helm lint --strict passes, and every manifest is valid against Kubernetes\' schema of its kind', async () => {
    const { ok, output } = lint(set)
    expect(ok, output).toBe(true)
    expect((await Promise.all(manifests.map(schemaErrors))).flat()).toEqual([])
    for (const m of manifests) expect(m.metadata.labels, nameOf(m)).toMatchObject({ 'app.kubernetes.io/name': 'questline', 'app.kubernetes.io/instance': RELEASE, 'app.kubernetes.io/part-of': 'questline', 'app.kubernetes.io/managed-by': 'Helm' })
  })

  test('every setting a Questline container is given is one src/config.ts reads, and takes; none replaces the image\'s entry', () => {
    expect(serving.length).toBeGreaterThan(CONTEXTS.length)
    for (const { workload, container, env } of containers) {
      const given = container.env as Manifest[]
      // A setting the code does not read is there only to be spelled into another: `$(POD_NAME)`.
      const unread = given.filter((e) => !known(e.name as string))
      for (const e of unread) expect(e.valueFrom?.fieldRef && given.some((o) => String(o.value).includes(`$(${e.name})`)), `${nameOf(workload)}: ${e.name}`).toBe(true)
      expect(() => loadConfig(env), nameOf(workload)).not.toThrow()
      expect(container.command, nameOf(workload)).toBeUndefined()
      expect(container.image, 'image.tag, else the appVersion').toBe(`${values.image?.repository ?? 'questline'}:${values.image?.tag ?? parse(read('deploy/helm/questline/Chart.yaml')).appVersion}`)
    }
  })

  test('every context has one workload serving it (with owners a StatefulSet), the gateway one serving the edge, each with a Service, a PodDisruptionBudget and an autoscaler when asked', () => {
    for (const context of CONTEXT_NAMES) {
      const its = serving.filter(({ container }) => (container.args as string[])[0] === 'serve' && onlyOf(container.args as string[]).includes(context))
      expect(its.length, `${context} has a workload`).toBe(1)
      const process = context === 'edge' ? { ...defaults.gateway, ...values.gateway } : { ...defaults.contexts[context], ...values.contexts?.[context] }
      expect(its[0]!.workload.kind, context).toBe(process.owners ? 'StatefulSet' : 'Deployment')
      expect(its[0]!.workload.spec.replicas, context).toBe(process.autoscaling?.enabled ? undefined : process.replicas)
    }
    expect(Object.keys(defaults.contexts as Manifest).filter((c) => defaults.contexts[c].owners).sort(), 'as compose runs twice').toEqual(['avatar', 'live', 'tracking'])
    const names = serving.map(({ workload }) => nameOf(workload))
    const headless = (name: string) => ofKind('StatefulSet').find((s) => nameOf(s) === name)?.spec.serviceName as string | undefined
    expect(ofKind('Service').map(nameOf).filter((n) => !n.endsWith('-metrics')).sort()).toEqual(names.map((n) => headless(n) ?? n).sort())
    expect(ofKind('PodDisruptionBudget').map(nameOf).sort()).toEqual([...names].sort())
    for (const hpa of ofKind('HorizontalPodAutoscaler')) expect(ofKind('Deployment').map(nameOf)).toContain(hpa.spec.scaleTargetRef.name)
    // Pods roll when the chart's Secret changes.
    for (const { workload } of serving) expect(workload.spec.template.metadata.annotations['checksum/secret'], nameOf(workload)).toMatch(/^[0-9a-f]{64}$/)
  })

  test('every Secret key a container reads is in the Secret the chart makes', () => {
    if (values.existingSecret) return expect(secret).toBeUndefined()
    for (const { container } of containers) {
      for (const ref of (container.env as Manifest[]).map((e) => e.valueFrom?.secretKeyRef as Manifest | undefined).filter((r) => r !== undefined)) {
        expect(ref.name).toBe(nameOf(secret!))
        if (!ref.optional) expect(Object.keys(secret!.stringData as Env)).toContain(ref.key)
      }
    }
  })

  test('every upstream and the JWKS URL name a Service (or a replica behind a headless one) of the process serving that context, on a port it publishes; each replica with owners finds itself among its context\'s', () => {
    const services = new Map(ofKind('Service').map((s) => [nameOf(s), s]))
    const workloads = new Map(serving.map(({ workload, container }) => [nameOf(workload), { workload, only: onlyOf(container.args as string[]) }]))
    /** The workload a host names: `<service>.<namespace>.svc…` with its pod name first when headless. */
    const resolve = (host: string) => {
      const [first, second] = host.split('.')
      const direct = services.get(first!)
      if (direct && direct.spec.clusterIP !== 'None') return { service: direct, workload: workloads.get(first!) }
      // <pod>.<headless>: a replica of the StatefulSet whose serviceName is <headless>, by its ordinal.
      const set = ofKind('StatefulSet').find((s) => s.spec.serviceName === second)
      const ordinal = set ? first!.slice(nameOf(set).length + 1) : ''
      if (!set || !first!.startsWith(`${nameOf(set)}-`) || !/^\d+$/.test(ordinal) || Number(ordinal) >= set.spec.replicas) return {}
      return { service: services.get(second!), workload: workloads.get(nameOf(set)) }
    }
    for (const { workload, env } of serving) {
      for (const [key, value] of Object.entries(env).filter(([k]) => k.startsWith('UPSTREAM_') || k === 'JWKS_URL')) {
        for (const url of value.split(',').map((u) => new URL(u))) {
          const { service, workload: target } = resolve(url.hostname)
          expect(target, `${nameOf(workload)}: ${key} names ${url.hostname}`).toBeDefined()
          expect((service!.spec.ports as Manifest[]).map((p) => String(p.port)), key).toContain(url.port || '80')
          expect(target!.only, key).toContain(key === 'JWKS_URL' ? 'edge' : key.slice(9).toLowerCase())
          if (url.hostname.includes('.')) expect(url.hostname, 'a replica\'s full name').toMatch(/^[\w-]+\.[\w-]+\.questline\.svc\.cluster\.local$/)
        }
      }
      if (workload.kind === 'StatefulSet') {
        const own = onlyOf(workload.spec.template.spec.containers[0].args as string[])[0]!
        const upstreams = env[`UPSTREAM_${own.toUpperCase()}`]!.split(',')
        expect(upstreams, nameOf(workload)).toHaveLength(workload.spec.replicas as number)
        expect(upstreams, nameOf(workload)).toContain(env.ADVERTISE_URL)
        expect(services.get(workload.spec.serviceName as string)?.spec, 'headless, every replica listed').toMatchObject({ clusterIP: 'None', publishNotReadyAddresses: true })
      }
    }
  })

  test('migrations run as a hook before install and upgrade; the stream job gives the stream the processes\' settings and its replica count', () => {
    const hooks = ofKind('Job').map((j) => [nameOf(j), j.metadata.annotations['helm.sh/hook']])
    expect(hooks).toEqual([
      ...(values.nats?.streamJob?.enabled === false ? [] : [[`${RELEASE}-stream`, 'pre-install,pre-upgrade']]),
      ...(values.migrations?.enabled === false ? [] : [[`${RELEASE}-migrate`, 'pre-install,pre-upgrade']]),
    ].sort((a, b) => a[0]!.localeCompare(b[0]!)))
    const migrate = containers.find(({ workload }) => workload.kind === 'Job')
    if (migrate) expect(migrate.container.args).toEqual(['migrate'])
    const config = ofKind('ConfigMap').find((m) => nameOf(m) === `${RELEASE}-stream`)
    if (!config) return
    const stream = JSON.parse(config.data['stream.json'] as string) as Manifest
    for (const { env } of serving) {
      const { natsStream, natsSubjectPrefix, retentionDays } = loadConfig(env)
      expect(stream).toMatchObject({ ...streamSettings(natsStream, natsSubjectPrefix, retentionDays * 86_400), num_replicas: values.nats?.streamReplicas ?? 1 })
    }
    const job = ofKind('Job').find((m) => nameOf(m) === `${RELEASE}-stream`)!
    expect(job.spec.template.spec.containers[0].args[0]).toContain(`nats stream add ${stream.name} --config`)
    expect(job.spec.template.spec.containers[0].resources.limits.memory).toBeDefined()
  })

  test('backups, when on, are a pg_dump CronJob of PostgreSQL itself (not the pooler) into a volume, keeping backup.keep', () => {
    const [cron] = ofKind('CronJob')
    if (!values.backup?.enabled) return expect(cron).toBeUndefined()
    const pod = cron!.spec.jobTemplate.spec.template.spec as Manifest
    const env = pod.containers[0].env as Manifest[]
    expect(env.find((e) => e.name === 'DATABASE_URL')?.valueFrom.secretKeyRef.key).toBe('database-migration-url')
    expect(env.find((e) => e.name === 'KEEP')?.value).toBe(String(values.backup.keep ?? defaults.backup.keep))
    expect(pod.containers[0].args[0]).toContain('pg_dump --format=custom')
    const claim = pod.volumes.find((v: Manifest) => v.name === 'backups').persistentVolumeClaim.claimName as string
    expect(values.backup.persistence?.existingClaim ?? ofKind('PersistentVolumeClaim').map(nameOf)[0]).toBe(claim)
  })

  // Assembles every workload's process: once, on the value set that has them all.
  if (set === 'full') test('every probe asks a path its process serves, on its API port; the scrape asks the metrics port, which the public Service lacks; a pod is killed only after it has drained', async () => {
    for (const { workload, container, env } of serving) {
      const pod = workload.spec.template.spec as Manifest
      const ports = new Map((container.ports as Manifest[]).map((p) => [p.name as string, String(p.containerPort)]))
      const probes = ['startupProbe', 'livenessProbe', 'readinessProbe'].map((p) => container[p]?.httpGet as Manifest)
      expect(probes.map((p) => ports.get(p.port as string)), nameOf(workload)).toEqual([env.PORT, env.PORT, env.PORT])
      const paths = probes.map((p) => p.path as string)
      expect(await serves(container.args as string[], env, paths), nameOf(workload)).toEqual(paths)
      const preStopSeconds = Number((container.lifecycle.preStop.exec.command as string[])[1])
      expect(pod.terminationGracePeriodSeconds * 1000, nameOf(workload)).toBeGreaterThan(loadConfig(env).drainTimeoutMs + preStopSeconds * 1000)
      expect(ports.get('metrics')).toBe(env.METRICS_PORT)
      // Each workload's pods are scraped through a Service of the release that has the metrics port.
      const scraped = ofKind('Service').filter((s) => (s.spec.ports as Manifest[]).some((p) => p.name === 'metrics' && p.targetPort === 'metrics'))
      expect(scraped.filter((s) => s.spec.selector['app.kubernetes.io/component'] === workload.metadata.labels['app.kubernetes.io/component']), nameOf(workload)).toHaveLength(1)
    }
    expect((ofKind('Service').find((s) => nameOf(s) === `${RELEASE}-gateway`)!.spec.ports as Manifest[]).map((p) => p.name)).toEqual(['http'])
    const [monitor] = ofKind('ServiceMonitor')
    expect(monitor!.spec.selector.matchLabels).toEqual({ 'app.kubernetes.io/name': 'questline', 'app.kubernetes.io/instance': RELEASE })
    const [endpoint] = monitor!.spec.endpoints as Manifest[]
    expect(endpoint!.port).toBe('metrics')
    // /metrics on the listener METRICS_PORT opens: asked for real, on a free port.
    const config = loadConfig({ ...serving[0]!.env, METRICS_PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent', JOBS_ENABLED: 'false' })
    const { http } = await assemblePlatform({ config, logger: false, database, only: onlyOf(serving[0]!.container.args as string[]) })
    try {
      const at = await listenForMetrics(http)
      expect((await fetch(`${at}${endpoint!.path}`)).status).toBe(200)
    } finally {
      await http.close()
    }
  }, 120_000)
})
