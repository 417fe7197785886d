/**
 * `npm run image:smoke`: the image as it ships, built and run with podman (scripts/containers/podman.ts):
 *  1. the base image: a stand-in built offline under the Dockerfile's NODE_IMAGE, reused while its
 *     recipe holds (scripts/containers/stand-ins.ts); no registry is reached for images;
 *  2. `podman build` of the Dockerfile as `questline:local` (compose.yaml's default image), its layers
 *     cached between runs; npm ci inside reaches the npm registry through the host's network;
 *  3. a container with a read-only root filesystem (no tmpfs added either) and a named volume at
 *     /data, its port published on loopback: the smoke of test/support/runtime-smoke.ts (register →
 *     habit → attend → reward, the web app, the API docs);
 *  4. SIGTERM: the container must exit 0 within the drain (DRAIN_TIMEOUT_MS plus a margin);
 *  5. a new container on the same volume knows the player (logs them in, their reward kept).
 * Fails where podman is installed and any of it fails. Skips in one line only where no podman is
 * installed and CI is not set. Prints the image's size and each step's time.
 */
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { loadConfig } from '../src/config.js'
import { freePort } from '../src/platform/net/free-port.js'
import { expectPlayerKnown, smokeTest, waitUntilReady } from '../test/support/runtime-smoke.js'
import { ask, fail, must, requirePodman, shown, Steps } from './containers/podman.js'
import { ensureStandIns } from './containers/stand-ins.js'

const LABEL = 'image:smoke'
export const IMAGE = 'localhost/questline:local'
const READY_TIMEOUT_MS = 120_000
const { port: CONTAINER_PORT, drainTimeoutMs: DRAIN_MS } = loadConfig({})
/** A stop may take the drain and a few seconds of closing; podman kills at this bound (and the exit is then 137). */
const STOP_BOUND_S = Math.ceil(DRAIN_MS / 1000) + 5

/** Builds the Dockerfile as questline:local on the stand-in base; the layer cache makes a warm build short. */
export async function buildImage(steps: Steps): Promise<void> {
  await ensureStandIns(['node'], steps)
  // --format docker keeps the HEALTHCHECK (the OCI format has no field for it).
  await steps.step(`build ${IMAGE} (podman build, layers cached)`, () =>
    shown('podman', ['build', '--format', 'docker', '--pull=never', '--network=host', '--layers', '-t', IMAGE, '-f', 'Dockerfile', '.']))
}

export async function imageSize(): Promise<string> {
  const bytes = Number(await must('podman', ['image', 'inspect', '--format', '{{.Size}}', IMAGE]))
  return `${(bytes / 1e6).toFixed(0)} MB`
}

async function start(name: string, volume: string, port: number): Promise<string> {
  // --read-only-tmpfs=false: no writable /tmp, /var/tmp or /run either, as a read-only root in
  // Docker or Kubernetes has. --init: an init as PID 1, as compose's init: true.
  await must('podman', ['run', '-d', '--name', name, '--init', '--read-only', '--read-only-tmpfs=false',
    '-v', `${volume}:/data`, '-p', `127.0.0.1:${port}:${CONTAINER_PORT}`, IMAGE])
  const url = `http://127.0.0.1:${port}`
  const exited = async () => {
    const state = await ask('podman', ['inspect', '--format', '{{.State.Running}} {{.State.ExitCode}}', name])
    return state.ok && state.stdout.startsWith('true') ? undefined : `the container stopped (${state.ok ? state.stdout : state.why})`
  }
  await waitUntilReady(url, { withinMs: READY_TIMEOUT_MS, exited })
  return url
}

/** SIGTERM, then the exit code and the seconds it took; 0 within the bound, or it throws. */
async function stopDrained(name: string): Promise<string> {
  const t0 = performance.now()
  await must('podman', ['stop', '--time', String(STOP_BOUND_S), name], { timeoutMs: (STOP_BOUND_S + 30) * 1000 })
  const seconds = (performance.now() - t0) / 1000
  const code = await must('podman', ['inspect', '--format', '{{.State.ExitCode}}', name])
  if (code !== '0') throw new Error(`${name} exited ${code} on SIGTERM after ${seconds.toFixed(1)} s, not 0 within the drain (${STOP_BOUND_S} s)`)
  return `exit 0 after ${seconds.toFixed(1)} s`
}

async function lastOutput(name: string): Promise<void> {
  const logs = await ask('podman', ['logs', '--tail', '40', name])
  console.error(`${LABEL}: ${name}'s last output:\n${logs.ok ? `${logs.stdout}\n${logs.stderr}` : logs.why}`)
}

async function smokeImage(steps: Steps): Promise<void> {
  await buildImage(steps)
  const size = await imageSize()
  const first = `questline-smoke-${process.pid}-1`
  const second = `questline-smoke-${process.pid}-2`
  const volume = `questline-smoke-${process.pid}`
  try {
    const port = await freePort()
    const url = await steps.step('start (read-only root, volume at /data) until /readyz', () => start(first, volume, port))
      .catch(async (e: unknown) => { await lastOutput(first); throw e })
    const { player, after } = await steps.step('runtime smoke (register → habit → attend → reward, /, /docs)', () => smokeTest(url))
      .catch(async (e: unknown) => { await lastOutput(first); throw e })
    console.log(`${LABEL}: SIGTERM: ${await steps.step('SIGTERM, exit 0 within the drain', () => stopDrained(first))}`)
    const again = await steps.step('a new container on the same volume until /readyz', () => start(second, volume, port))
      .catch(async (e: unknown) => { await lastOutput(second); throw e })
    await steps.step('the player logs in again, reward kept', () => expectPlayerKnown(again, player, after))
    await steps.step('SIGTERM the second', () => stopDrained(second))
    console.log(`${LABEL}: passed: ${IMAGE} (${size}) on the stand-in base; read-only root, volume kept across containers, exit 0 on SIGTERM`)
  } finally {
    await ask('podman', ['rm', '-f', '-t', '0', first, second])
    await ask('podman', ['volume', 'rm', '-f', volume])
  }
  console.log(`${LABEL}: image size ${size}; steps:\n${steps.summary()}`)
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  await requirePodman(LABEL)
  const steps = new Steps(LABEL)
  await smokeImage(steps).catch((e: unknown) => fail(LABEL, steps, e))
}
