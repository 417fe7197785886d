import { spawn, type ChildProcess } from 'node:child_process'
import { freePort } from '../../src/platform/net/free-port.js'

export interface Started {
  url: string
  /** The server process's id (also under `taskset`, which execs it). */
  pid: number
  /** How the process ended, once it has (also after stop()); undefined while it runs. */
  exitCause(): string | undefined
  stop(): Promise<void>
}

export interface StartOptions {
  /** CPU list for `taskset -c` (e.g. '1'); unset = not pinned. */
  cpus?: string | undefined
}

/** The command that runs an entry point (TypeScript through tsx, JavaScript as it is), pinned when asked. */
export function nodeCommand(entry: string, args: string[], cpus?: string): [string, string[]] {
  const node = entry.endsWith('.ts') ? [process.execPath, '--import', 'tsx', entry, ...args] : [process.execPath, entry, ...args]
  return cpus ? ['taskset', ['-c', cpus, ...node]] : [node[0]!, node.slice(1)]
}

const live = new Set<ChildProcess>()
const cleanups = new Set<() => Promise<void>>()

/** Runs `cleanup` if the bench is interrupted (after the children are killed); returns a function that unregisters it. */
export function onInterrupt(cleanup: () => Promise<void>): () => void {
  cleanups.add(cleanup)
  return () => cleanups.delete(cleanup)
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    for (const c of live) c.kill('SIGKILL')
    const bounded = [...cleanups].map((c) => Promise.race([c(), new Promise((r) => setTimeout(r, 10_000))]))
    void Promise.allSettled(bounded).then(() => process.exit(130))
  })
}


/** Starts an entry point as a child process and waits until `readyPath` answers 200 (120 s at most: a fresh embedded data dir on a busy machine is slow). */
export async function startServer(name: string, entry: string, args: string[], env: Record<string, string>, readyPath: string, options: StartOptions = {}): Promise<Started> {
  const port = await freePort()
  const [command, commandArgs] = nodeCommand(entry, args, options.cpus)
  const child = spawn(command, commandArgs, {
    env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', 'inherit', 'inherit'],
  })
  live.add(child)
  const url = `http://127.0.0.1:${port}`
  let cause: string | undefined
  const exited = new Promise<never>((_, reject) => child.once('exit', (code, signal) => {
    cause = `${name} exited with ${signal ? `signal ${signal}` : `code ${code}`}`
    reject(new Error(cause))
  }))
  const deadline = Date.now() + 120_000
  for (;;) {
    const ok = await Promise.race([fetch(url + readyPath, { signal: AbortSignal.timeout(2_000) }).then((r) => r.ok, () => false), exited])
    if (ok) break
    if (Date.now() > deadline) {
      child.kill('SIGKILL')
      throw new Error(`${name} was not ready within 120 s`)
    }
    await new Promise((r) => setTimeout(r, 250))
  }
  exited.catch(() => undefined)
  return {
    url,
    pid: child.pid!,
    exitCause: () => cause,
    stop: () => new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve()
      child.once('exit', () => resolve())
      child.kill('SIGTERM')
      setTimeout(() => child.kill('SIGKILL'), 10_000).unref()
    }).finally(() => live.delete(child)),
  }
}
