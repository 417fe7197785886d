/**
 * The Helm chart as Helm itself sees it (scripts/helm.ts runs the real binary): its value sets
 * (deploy/helm/questline/ci/*-values.yaml), `helm lint --strict`, `helm template` parsed into
 * manifests, and each manifest checked against Kubernetes' own schemas (kubernetes-models: the
 * OpenAPI schemas of the API, compiled, offline; the Prometheus Operator's for a ServiceMonitor).
 */
import { readdirSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseAllDocuments } from 'yaml'
import { helm } from './helm.js'

type Manifest = Record<string, any> // eslint-disable-line @typescript-eslint/no-explicit-any -- parsed YAML, read by shape

export const CHART = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../deploy/helm/questline')
export const RELEASE = 'questline'

/** The value sets CI renders the chart with, by name (`default` for ci/default-values.yaml). */
export const VALUE_SETS: readonly string[] = readdirSync(path.join(CHART, 'ci'))
  .filter((f) => f.endsWith('-values.yaml')).map((f) => f.slice(0, -'-values.yaml'.length)).sort()

const valueArgs = (set: string | undefined, sets: string[]) =>
  [...(set ? ['--values', path.join(CHART, 'ci', `${set}-values.yaml`)] : []), ...sets.flatMap((s) => ['--set', s])]

/** `helm lint --strict` with a value set: what it printed, and whether it passed. */
export function lint(set: string): { ok: boolean; output: string } {
  const { status, stdout, stderr } = helm(['lint', '--strict', CHART, ...valueArgs(set, [])])
  return { ok: status === 0, output: stdout + stderr }
}

/** `helm template` with a value set and `--set` overrides: the manifests, or Helm's error. */
export function template(set: string | undefined, sets: string[] = []): { manifests: Manifest[]; error?: string } {
  const { status, stdout, stderr } = helm(['template', RELEASE, CHART, '--namespace', 'questline', ...valueArgs(set, sets)])
  if (status !== 0) return { manifests: [], error: stderr.trim() }
  const manifests = parseAllDocuments(stdout).map((d) => d.toJS() as Manifest | null).filter((m): m is Manifest => m !== null)
  return { manifests }
}

/** The manifests of a value set; Helm's error thrown. */
export function manifestsOf(set: string, sets: string[] = []): Manifest[] {
  const { manifests, error } = template(set, sets)
  if (error !== undefined) throw new Error(`helm template (${set}): ${error}`)
  return manifests
}

/** What Kubernetes' schema of its kind finds wrong with a manifest (none: []). An unknown kind is itself wrong. */
export async function schemaErrors(manifest: Manifest): Promise<string[]> {
  const { apiVersion, kind } = manifest as { apiVersion: string; kind: string }
  const module = apiVersion === 'monitoring.coreos.com/v1'
    ? `@kubernetes-models/prometheus-operator/${apiVersion}/${kind}`
    : `kubernetes-models/${apiVersion}/${kind}`
  let Model: new (data: Manifest) => { validate(): void }
  try {
    Model = ((await import(module)) as Record<string, typeof Model>)[kind]!
  } catch {
    return [`${apiVersion} ${kind}: no schema (not a kind of the Kubernetes API)`]
  }
  try {
    new Model(manifest).validate()
    return []
  } catch (error) {
    const errors = (error as { errors?: { instancePath: string; message: string }[] }).errors
    return errors?.map((e) => `${kind} ${manifest.metadata?.name}: ${e.instancePath} ${e.message}`) ?? [String(error)]
  }
}
