/**
 * npm run bench:startup — how soon a restart answers, on an existing data directory.
 *
 * Makes a fresh DATA_DIR, starts the platform once there (creating the embedded database: the
 * first-start figure), stops it, then restarts it BENCH_RUNS times (default 5) with each command
 * below and prints, per run and as the median, the milliseconds from spawning the command to the
 * first 200 from GET /healthz (the process is up and listening) and from GET /readyz (database
 * open and migrated, bus started: the platform serves). Each is stopped with SIGTERM (to its
 * process group, as Ctrl-C would) and the next starts once the data directory is unlocked.
 *
 * Commands: `npm start` (what a user types: npm itself, then bin/questline.js), and
 * `node bin/questline.js serve` (the same without npm). BENCH_COMMANDS=npm or =node picks one.
 * The machine's load average is printed too: on shared cores it moves every figure.
 */
import { spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { loadavg, tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { median } from './lib/load.js'
import { freePort } from '../src/platform/net/free-port.js'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const RUNS = Number(process.env.BENCH_RUNS ?? 5)
const POLL_MS = 10
const TIMEOUT_MS = 120_000

const COMMANDS: Record<string, { label: string; argv: string[] }> = {
  npm: { label: 'npm start', argv: ['npm', 'start', '--silent'] },
  node: { label: 'node bin/questline.js serve', argv: [process.execPath, path.join(ROOT, 'bin', 'questline.js'), 'serve'] },
}

interface Timing {
  healthz: number
  readyz: number
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const load = () => loadavg().map((l) => l.toFixed(2)).join(' ')

/** Whether a live process holds the data directory's lock. */
function lockHolder(dataDir: string): boolean {
  try {
    process.kill(Number(readFileSync(path.join(dataDir, 'questline.lock'), 'utf8')), 0)
    return true
  } catch {
    return false
  }
}

async function answers(url: string): Promise<boolean> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(5_000) })
    await res.arrayBuffer()
    return res.status === 200
  } catch {
    return false
  }
}

/** Starts `command`, times /healthz and /readyz from the spawn, stops it and waits until the data dir is free. */
async function startOnce(command: string[], dataDir: string): Promise<Timing> {
  const port = await freePort()
  const base = `http://127.0.0.1:${port}`
  const t0 = performance.now()
  const child = spawn(command[0]!, command.slice(1), {
    cwd: ROOT,
    env: { ...process.env, DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'ignore', 'inherit'],
    detached: true,
  })
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  let gone = false
  void exited.then(() => {
    gone = true
  })
  try {
    const until = async (probe: string): Promise<number> => {
      for (;;) {
        if (await answers(base + probe)) return Math.round(performance.now() - t0)
        if (gone) throw new Error(`${command.join(' ')} exited before ${probe} answered`)
        if (performance.now() - t0 > TIMEOUT_MS) throw new Error(`${probe} did not answer within ${TIMEOUT_MS} ms`)
        await sleep(POLL_MS)
      }
    }
    const healthz = await until('/healthz')
    const readyz = await until('/readyz')
    return { healthz, readyz }
  } finally {
    if (!gone) process.kill(-child.pid!, 'SIGTERM')
    await Promise.race([exited, sleep(15_000)])
    if (!gone) process.kill(-child.pid!, 'SIGKILL')
    // npm may exit before its child: the next start waits until the data directory's lock is
    // gone or its owner is (a process killed leaves its lock behind; the next start clears it).
    for (let i = 0; i < 3_000 && lockHolder(dataDir); i++) await sleep(20)
  }
}

async function main(): Promise<void> {
  const picked = process.env.BENCH_COMMANDS?.split(',') ?? Object.keys(COMMANDS)
  const dataDir = await mkdtemp(path.join(tmpdir(), 'questline-startup-'))
  const stopOnSignal = () => void rm(dataDir, { recursive: true, force: true }).finally(() => process.exit(130))
  process.once('SIGINT', stopOnSignal)
  process.once('SIGTERM', stopOnSignal)
  try {
    console.log(`startup on an existing data directory (${dataDir}), ${RUNS} restarts each; load average ${load()}`)
    const first = await startOnce(COMMANDS.node!.argv, dataDir)
    console.log(`first start (creates the database): /healthz ${first.healthz} ms, /readyz ${first.readyz} ms`)
    for (const name of picked) {
      const command = COMMANDS[name]
      if (!command) throw new Error(`unknown command ${name}: ${Object.keys(COMMANDS).join(', ')}`)
      const runs: Timing[] = []
      for (let i = 0; i < RUNS; i++) runs.push(await startOnce(command.argv, dataDir))
      console.log(command.label)
      console.log(`  /healthz ms: ${runs.map((r) => r.healthz).join(' ').padEnd(32)} median ${median(runs.map((r) => r.healthz))}`)
      console.log(`  /readyz  ms: ${runs.map((r) => r.readyz).join(' ').padEnd(32)} median ${median(runs.map((r) => r.readyz))}`)
    }
    console.log(`load average ${load()}`)
  } finally {
    await rm(dataDir, { recursive: true, force: true })
  }
}

main().catch((e: unknown) => {
  console.error(e)
  process.exit(1)
})
