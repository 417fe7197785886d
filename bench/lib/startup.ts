/** Start-up time: from spawning a command to the first 200 from /healthz, then a clean stop. */
import { spawn } from 'node:child_process'
import { performance } from 'node:perf_hooks'
import { rssMb } from './memory.js'
import { freePort } from '../../src/platform/net/free-port.js'
import { onInterrupt } from './processes.js'

export interface StartUp {
  ms: number
  /** RSS of the spawned process a second after it answered, when it is the server itself. */
  rssMb?: number | undefined
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** Whether any process of the group is still there. */
function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0)
    return true
  } catch {
    return false
  }
}

/**
 * Spawns `command` in a process group of its own (npm start is npm → sh → tsx → node), polls
 * /healthz every 10 ms until 200, then SIGTERMs the group and waits until all of it is gone (an
 * embedded data directory is free again). `measureRss`: the spawned process is the server.
 */
export async function timeStartUp(command: string, args: string[], env: Record<string, string>, opts: { measureRss?: boolean; timeoutMs?: number } = {}): Promise<StartUp> {
  const port = await freePort()
  const t0 = performance.now()
  const child = spawn(command, args, {
    env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', 'ignore', 'inherit'],
    detached: true,
  })
  const pgid = child.pid!
  const unregister = onInterrupt(async () => {
    if (groupAlive(pgid)) process.kill(-pgid, 'SIGKILL')
  })
  let exitCode: number | null | undefined
  child.once('exit', (code) => {
    exitCode = code
  })
  try {
    const deadline = t0 + (opts.timeoutMs ?? 120_000)
    for (;;) {
      if (exitCode !== undefined) throw new Error(`${command} ${args.join(' ')} exited with code ${exitCode} before answering`)
      const ok = await fetch(`http://127.0.0.1:${port}/healthz`, { signal: AbortSignal.timeout(1_000) }).then((r) => r.ok, () => false)
      if (ok) break
      if (performance.now() > deadline) throw new Error(`${command} did not answer /healthz within ${(opts.timeoutMs ?? 120_000) / 1000} s`)
      await sleep(10)
    }
    const ms = Math.round(performance.now() - t0)
    let rss: number | undefined
    if (opts.measureRss) {
      await sleep(1_000)
      rss = await rssMb(pgid)
    }
    return { ms, rssMb: rss }
  } finally {
    if (groupAlive(pgid)) process.kill(-pgid, 'SIGTERM')
    const deadline = performance.now() + 15_000
    while (groupAlive(pgid)) {
      if (performance.now() > deadline) process.kill(-pgid, 'SIGKILL')
      await sleep(20)
    }
    unregister()
  }
}

/** Wall time of a command that exits by itself, and its last stdout line. */
export async function timeRun(command: string, args: string[], env: Record<string, string> = {}): Promise<{ ms: number; lastLine: string }> {
  const t0 = performance.now()
  const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] })
  let out = ''
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString()
  })
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve))
  if (code !== 0) throw new Error(`${command} ${args.join(' ')} exited with code ${code}`)
  return { ms: Math.round(performance.now() - t0), lastLine: out.trim().split('\n').at(-1) ?? '' }
}
