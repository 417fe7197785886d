/**
 * `npm run image:smoke`: builds the image from the Dockerfile and runs the smoke of
 * test/support/runtime-smoke.ts (register → habit → attend → reward, the web app, the API docs)
 * against a container of it, as it ships: its own entry, settings and /data volume, the port
 * published on loopback. Uses docker, else podman: the first that runs a container. Where neither
 * can (not installed, no daemon, no rights), it says so in one line and exits 0.
 */
import { execFile, spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import path from 'node:path'
import { promisify } from 'node:util'
import { loadConfig } from '../src/config.js'
import { freePort } from '../src/platform/net/free-port.js'
import { smokeTest, waitUntilReady } from '../test/support/runtime-smoke.js'
import { ROOT } from './outputs.js'

const ENGINES = ['docker', 'podman']
/** A tiny image whose `true` shows that the engine can pull and run a container at all. */
const PROBE_IMAGE = 'docker.io/library/busybox:1.37'
const PROBE_TIMEOUT_MS = 90_000
const READY_TIMEOUT_MS = 120_000
/** The port the image serves on: the platform's default PORT. */
const CONTAINER_PORT = loadConfig({}).port

const run = promisify(execFile)

/** The engine's answer to one command, or why it failed (its first line of error). */
async function ask(engine: string, args: string[], timeoutMs = 30_000): Promise<{ ok: true; stdout: string; stderr: string } | { ok: false; why: string }> {
  try {
    const { stdout, stderr } = await run(engine, args, { timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024 })
    return { ok: true, stdout: stdout.trim(), stderr: stderr.trim() }
  } catch (e) {
    const failure = e as NodeJS.ErrnoException & { stderr?: string; killed?: boolean }
    if (failure.code === 'ENOENT') return { ok: false, why: 'not installed' }
    if (failure.killed) return { ok: false, why: `no answer within ${timeoutMs / 1000} s` }
    const line = (failure.stderr ?? failure.message).trim().split('\n').find((l) => l.trim() !== '') ?? `exit ${String(failure.code)}`
    // docker starts its errors with its own name; the skip line names the engine already.
    return { ok: false, why: line.trim().replace(`${engine}: `, '') }
  }
}

/** The first engine that runs a container here, or why none does. */
async function usableEngine(): Promise<{ engine: string } | { none: string }> {
  const reasons: string[] = []
  for (const engine of ENGINES) {
    const probe = await ask(engine, ['run', '--rm', PROBE_IMAGE, 'true'], PROBE_TIMEOUT_MS)
    if (probe.ok) return { engine }
    reasons.push(`${engine}: ${probe.why}`)
  }
  return { none: reasons.join('; ') }
}

/** Runs the engine with its output shown (the build's progress); rejects when it fails. */
function runShown(engine: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(engine, args, { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'] })
    child.once('error', reject)
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${engine} ${args.join(' ')} exited with ${code}`))))
  })
}

async function smokeImage(engine: string): Promise<void> {
  if (!existsSync(path.join(ROOT, 'Dockerfile'))) throw new Error(`no Dockerfile in ${ROOT}: nothing to build`)
  const tag = `questline-smoke:${process.pid}`
  const container = `questline-smoke-${process.pid}`
  console.log(`image:smoke: building ${tag} with ${engine}`)
  await runShown(engine, ['build', '-t', tag, '-f', 'Dockerfile', '.'])
  const port = await freePort()
  try {
    const started = await ask(engine, ['run', '-d', '--name', container, '-p', `127.0.0.1:${port}:${CONTAINER_PORT}`, tag])
    if (!started.ok) throw new Error(`the container did not start: ${started.why}`)
    const url = `http://127.0.0.1:${port}`
    const stopped = async () => {
      const state = await ask(engine, ['inspect', '-f', '{{.State.Running}}', container])
      return state.ok && state.stdout === 'true' ? undefined : 'the container stopped'
    }
    try {
      await waitUntilReady(url, { withinMs: READY_TIMEOUT_MS, exited: stopped })
      await smokeTest(url)
    } catch (e) {
      const logs = await ask(engine, ['logs', '--tail', '50', container])
      // The container's standard output and error come back as the command's own.
      console.error(`image:smoke: the container's last output:\n${logs.ok ? `${logs.stdout}\n${logs.stderr}` : logs.why}`)
      throw e
    }
    console.log(`image:smoke: ${tag} passed (register → habit → attend → reward, the web app, the API docs)`)
  } finally {
    await ask(engine, ['rm', '-f', '-v', container])
    await ask(engine, ['rmi', tag])
  }
}

const found = await usableEngine()
if ('none' in found) {
  console.log(`image:smoke: skipped, no container engine can run containers here (${found.none})`)
} else {
  await smokeImage(found.engine).catch((e: unknown) => {
    console.error(`image:smoke: failed: ${e instanceof Error ? e.message : String(e)}`)
    process.exit(1)
  })
}
