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
 * First starts are measured BENCH_FRESH_RUNS times (default 3), each on a data directory of its
 * own. Medians are set against the targets (/readyz within 1.5 s on an existing data directory,
 * 5 s on a fresh one), and the process's own account of its start (its "is up" log line: ms to
 * its code loaded, platform assembled, listening, ready, and each step of the start) is printed
 * beside each figure. The machine's load average goes with every figure: on shared cores it
 * moves them all.
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
const FRESH_RUNS = Number(process.env.BENCH_FRESH_RUNS ?? 3)
const TARGET_EXISTING_MS = 1_500
const TARGET_FRESH_MS = 5_000
const POLL_MS = 10
const TIMEOUT_MS = 120_000

const COMMANDS: Record<string, { label: string; argv: string[] }> = {
  npm: { label: 'npm start', argv: ['npm', 'start', '--silent'] },
  node: { label: 'node bin/questline.js serve', argv: [process.execPath, path.join(ROOT, 'bin', 'questline.js'), 'serve'] },
}

interface Timing {
  healthz: number
  readyz: number
  /** The load average (1 min) when the run began. */
  load: number
  /** The process's own account of its start, from its "is up" log line. */
  account: string
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const load = () => loadavg().map((l) => l.toFixed(2)).join(' ')

/** Whether a live process holds the data directory's lock. */
function lockHolder(dataDir: string): boolean {
  try {
    const text = readFileSync(path.join(dataDir, 'questline.lock'), 'utf8')
    process.kill(/^\d+$/.test(text.trim()) ? Number(text) : (JSON.parse(text) as { pid: number }).pid, 0)
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

/** The timings of the "is up" log line: `loaded 240 assembled 390 listening 405 ready 910 (database 398 migrations 18 …)`. */
function accountOf(output: string): string {
  const line = output.split('\n').find((l) => l.includes('"readyMs"'))
  if (!line) return ''
  const up = JSON.parse(line) as Record<string, unknown>
  const marks = ['loaded', 'assembled', 'listening', 'ready'].map((m) => `${m} ${String(up[`${m}Ms`])}`).join(' ')
  const steps = Object.entries((up.startMs ?? {}) as Record<string, number>).map(([step, ms]) => `${step} ${ms}`).join(', ')
  return `${marks} (${steps})`
}

/** Starts `command`, times /healthz and /readyz from the spawn, stops it and waits until the data dir is free. */
async function startOnce(command: string[], dataDir: string): Promise<Timing> {
  const port = await freePort()
  const base = `http://127.0.0.1:${port}`
  const load = loadavg()[0]!
  const t0 = performance.now()
  const child = spawn(command[0]!, command.slice(1), {
    cwd: ROOT,
    env: { ...process.env, DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'inherit'],
    detached: true,
  })
  let output = ''
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')))
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
    // The "is up" line follows readiness by a moment.
    for (let i = 0; i < 100 && !accountOf(output) && !gone; i++) await sleep(POLL_MS)
    return { healthz, readyz, load, account: accountOf(output) }
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
    console.log(`startup: ${FRESH_RUNS} first starts, then ${RUNS} restarts each on an existing data directory; load average ${load()}`)
    console.log(`first start, a fresh data directory each (node bin/questline.js serve):`)
    const fresh: Timing[] = []
    for (let i = 0; i < Math.max(1, FRESH_RUNS); i++) {
      const freshDir = i === 0 ? dataDir : await mkdtemp(path.join(tmpdir(), 'questline-startup-'))
      try {
        fresh.push(report(await startOnce(COMMANDS.node!.argv, freshDir)))
      } finally {
        if (freshDir !== dataDir) await rm(freshDir, { recursive: true, force: true })
      }
    }
    const verdicts = [verdict('first start, fresh data directory', fresh, TARGET_FRESH_MS)]
    for (const name of picked) {
      const command = COMMANDS[name]
      if (!command) throw new Error(`unknown command ${name}: ${Object.keys(COMMANDS).join(', ')}`)
      console.log(`${command.label}, existing data directory:`)
      const runs: Timing[] = []
      for (let i = 0; i < RUNS; i++) runs.push(report(await startOnce(command.argv, dataDir)))
      verdicts.push(verdict(`${command.label}, existing data directory`, runs, TARGET_EXISTING_MS))
    }
    console.log(verdicts.join('\n'))
    console.log(`load average ${load()}`)
  } finally {
    await rm(dataDir, { recursive: true, force: true })
  }
}

function report(t: Timing): Timing {
  console.log(`  /healthz ${String(t.healthz).padStart(5)} ms  /readyz ${String(t.readyz).padStart(5)} ms  load ${t.load.toFixed(2)}  process: ${t.account}`)
  return t
}

function verdict(label: string, runs: Timing[], targetMs: number): string {
  const readyz = median(runs.map((r) => r.readyz))
  const loads = runs.map((r) => r.load)
  return `${label}: /readyz median ${readyz} ms, target ${targetMs} ms: ${readyz <= targetMs ? 'met' : 'missed'} ` +
    `(/healthz median ${median(runs.map((r) => r.healthz))} ms; load average ${Math.min(...loads).toFixed(2)}–${Math.max(...loads).toFixed(2)})`
}

main().catch((e: unknown) => {
  console.error(e)
  process.exit(1)
})
