/**
 * podman as these machines run it (docs/testing.md#containers): runc rather than crun (which refuses
 * the hybrid cgroup layout), cgroupfs rather than systemd, and no default ulimits (setting
 * RLIMIT_NPROC is refused). The settings live in a containers.conf this module writes and hands to
 * podman and podman-compose by CONTAINERS_CONF, so both run the same way. Also: timed steps, and
 * whether an engine is here at all.
 */
import { execFile, spawn } from 'node:child_process'
import { mkdirSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { ROOT } from '../outputs.js'

const CONF = `[containers]
default_ulimits = []

[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "file"
`

/** The environment podman and podman-compose run with: CONTAINERS_CONF names the settings above. */
export function podmanEnv(): NodeJS.ProcessEnv {
  const dir = path.join(os.tmpdir(), 'questline-containers')
  mkdirSync(dir, { recursive: true })
  const conf = path.join(dir, 'containers.conf')
  writeFileSync(conf, CONF)
  return { ...process.env, CONTAINERS_CONF: conf }
}

export type Answer = { ok: true; stdout: string; stderr: string } | { ok: false; why: string; stdout: string }

const run = promisify(execFile)

/** A command's answer, or why it failed (the first line of its error output). */
export async function ask(command: string, args: string[], { timeoutMs = 60_000, env = podmanEnv(), cwd = ROOT } = {}): Promise<Answer> {
  try {
    const { stdout, stderr } = await run(command, args, { timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024, env, cwd })
    return { ok: true, stdout: stdout.trim(), stderr: stderr.trim() }
  } catch (e) {
    const failure = e as NodeJS.ErrnoException & { stderr?: string; stdout?: string; killed?: boolean }
    if (failure.code === 'ENOENT') return { ok: false, why: 'not installed', stdout: '' }
    if (failure.killed) return { ok: false, why: `no answer within ${timeoutMs / 1000} s`, stdout: failure.stdout ?? '' }
    const line = (failure.stderr ?? failure.message).trim().split('\n').filter((l) => l.trim() !== '').at(-1) ?? `exit ${String(failure.code)}`
    return { ok: false, why: line.trim(), stdout: (failure.stdout ?? '').trim() }
  }
}

/** `ask`, throwing when the command fails; answers its standard output. */
export async function must(command: string, args: string[], options: Parameters<typeof ask>[2] = {}): Promise<string> {
  const answer = await ask(command, args, options)
  if (!answer.ok) throw new Error(`${command} ${args.join(' ')}: ${answer.why}`)
  return answer.stdout
}

/** Runs a command with its output shown, prefixed (a build's progress); rejects when it fails. */
export function shown(command: string, args: string[], { env = podmanEnv(), cwd = ROOT, prefix = '  | ' } = {}): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] })
    const relay = (to: NodeJS.WriteStream) => (chunk: Buffer) => to.write(chunk.toString().replace(/^(?=.)/gm, prefix))
    child.stdout.on('data', relay(process.stdout))
    child.stderr.on('data', relay(process.stderr))
    child.once('error', reject)
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${command} ${args.join(' ')} exited with ${code}`))))
  })
}

/** Every step's name and seconds, printed as it ends and again as a table at the end. */
export class Steps {
  readonly times: { name: string; seconds: number }[] = []
  constructor(private readonly label: string) {}

  async step<T>(name: string, body: () => Promise<T>): Promise<T> {
    console.log(`${this.label}: ${name}…`)
    const t0 = performance.now()
    try {
      return await body()
    } finally {
      const seconds = (performance.now() - t0) / 1000
      this.times.push({ name, seconds })
      console.log(`${this.label}: ${name}: ${seconds.toFixed(1)} s`)
    }
  }

  summary(): string {
    const total = this.times.reduce((sum, t) => sum + t.seconds, 0)
    return [...this.times.map((t) => `  ${t.seconds.toFixed(1).padStart(6)} s  ${t.name}`), `  ${total.toFixed(1).padStart(6)} s  in all`].join('\n')
  }
}

/**
 * Whether podman is here. Where it is not (and CI is not set) a smoke may skip in one line; under
 * CI=true a missing podman is a failure, and where podman is installed every failure is one.
 */
export async function requirePodman(label: string): Promise<void> {
  const version = await ask('podman', ['--version'])
  if (version.ok) return
  if (process.env.CI === 'true') {
    console.error(`${label}: failed: CI=true and podman is ${version.why} (CI installs podman, runc, mmdebstrap and podman-compose)`)
    process.exit(1)
  }
  console.log(`${label}: skipped, no container engine here (podman: ${version.why})`)
  process.exit(0)
}

/** Ends the process with the error said, after the step times so far. */
export function fail(label: string, steps: Steps, e: unknown): never {
  console.error(`${label}: failed: ${e instanceof Error ? e.message : String(e)}`)
  console.error(`${label}: steps so far:\n${steps.summary()}`)
  process.exit(1)
}
