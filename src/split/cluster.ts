/**
 * Starts Questline as separate processes: every context on a port of its own (with replicas),
 * then the gateway in front of them. Used by `npm run start:split` and by the split-services
 * tests, which also stop and restart single processes.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { createInterface } from 'node:readline'
import { freePort } from '../platform/net/free-port.js'

const READY_TIMEOUT_MS = 60_000
const STOP_GRACE_MS = 10_000
/** Output lines kept per process, to say why one exited before it was ready. */
const KEPT_LINES = 20
/** A process whose port was taken is started again on it this many times, this far apart. */
const PORT_TAKEN_ATTEMPTS = 3
const PORT_TAKEN_PAUSE_MS = 500

export interface ClusterProcess {
  name: string
  context: string
  url: string
  port: number
  child: ChildProcess
  /** Its last output lines. */
  tail: string[]
  /** How it was started, so it can be started again. */
  args: string[]
  env: Record<string, string>
}

interface ClusterOptions {
  /** The gateway's port; 0 picks a free one. */
  port: number
  host: string
  /** Contexts to run besides the gateway, with their replica counts. */
  contexts: { context: string; replicas: number }[]
  /** Settings for every process (on top of the launcher's own environment). */
  env: Record<string, string>
  /** Where each output line goes, prefixed with the process name; undefined drops them. */
  output?: (line: string) => void
  /** How node starts Questline: from source by default; tests pass a prebuilt bundle. */
  entry?: string[]
  /** Every process serves with `--test-controls` (black-box tests drive their clocks and jobs). */
  testControls?: boolean
}

const FROM_SOURCE = ['--import', 'tsx', 'src/main.ts']

export class Cluster {
  readonly processes: ClusterProcess[] = []
  private stopping = false

  private constructor(private readonly opts: ClusterOptions) {}

  static async start(opts: ClusterOptions): Promise<Cluster> {
    const cluster = new Cluster(opts)
    try {
      // Ports first: every process learns where every context lives (it forwards or calls there).
      const planned: { name: string; context: string; port: number }[] = []
      const upstreams: Record<string, string> = {}
      for (const { context, replicas } of opts.contexts) {
        const urls: string[] = []
        for (let i = 1; i <= replicas; i++) {
          const port = await freePort(opts.host)
          planned.push({ name: replicas > 1 ? `${context}#${i}` : context, context, port })
          urls.push(`http://${opts.host}:${port}`)
        }
        upstreams[`UPSTREAM_${context.toUpperCase()}`] = urls.join(',')
      }
      // The gateway starts last, but its port is chosen now: each context verifies the gateway's
      // tokens from its JWKS, fetched when the first one arrives.
      const gatewayPort = opts.port || (await freePort(opts.host))
      const contextEnv = { ...upstreams, JWKS_URL: `http://${opts.host}:${gatewayPort}/auth/jwks.json` }
      // Each replica finds itself among its context's upstreams by its own URL (it owns a share of the partitions).
      await Promise.all(planned.map((p) => cluster.launch(p.name, p.context, ['--only', p.context], p.port, { ...contextEnv, ADVERTISE_URL: `http://${opts.host}:${p.port}` })))
      await cluster.launch('gateway', 'edge', ['--only', 'edge'], gatewayPort, upstreams)
      return cluster
    } catch (e) {
      await cluster.stop()
      throw e
    }
  }

  get gateway(): ClusterProcess {
    return this.processes.find((p) => p.name === 'gateway')!
  }

  /** The processes not killed or exited. */
  live(): ClusterProcess[] {
    return this.processes.filter((p) => isAlive(p.child))
  }

  /** The live processes serving a context. */
  of(context: string): ClusterProcess[] {
    return this.live().filter((p) => p.context === context)
  }

  /** Kills one process at once (SIGKILL: no clean shutdown), as a crash would. */
  async kill(p: ClusterProcess): Promise<void> {
    if (!isAlive(p.child)) return
    const exited = new Promise((r) => p.child.once('exit', r))
    p.child.kill('SIGKILL')
    await exited
  }

  /** Starts a stopped process again on its port, with its settings (`changes` on top), and waits until it is ready. */
  async restart(p: ClusterProcess, changes: Record<string, string> = {}): Promise<ClusterProcess> {
    this.processes.splice(this.processes.indexOf(p), 1)
    return this.launch(p.name, p.context, p.args, p.port, { ...p.env, ...changes })
  }

  /**
   * Spawns a process and waits until it is ready. Its port is already known to the others, so a
   * port taken in the meantime (a moment's collision with another starter) is tried again, not changed.
   */
  private async launch(name: string, context: string, args: string[], port: number, env: Record<string, string>): Promise<ClusterProcess> {
    for (let attempt = 1; ; attempt++) {
      const p = this.spawn(name, context, args, port, env)
      try {
        await this.ready(p)
        return p
      } catch (e) {
        const portTaken = p.tail.some((line) => line.includes('EADDRINUSE'))
        if (!portTaken || attempt >= PORT_TAKEN_ATTEMPTS || this.stopping) throw e
        this.processes.splice(this.processes.indexOf(p), 1)
        await new Promise((r) => setTimeout(r, PORT_TAKEN_PAUSE_MS))
      }
    }
  }

  async stop(): Promise<void> {
    this.stopping = true
    await Promise.all(this.processes.filter((p) => isAlive(p.child)).map((p) => new Promise<void>((resolve) => {
      p.child.once('exit', () => resolve())
      p.child.kill('SIGTERM')
      setTimeout(() => p.child.kill('SIGKILL'), STOP_GRACE_MS).unref()
    })))
  }

  private spawn(name: string, context: string, args: string[], port: number, env: Record<string, string>): ClusterProcess {
    const child = spawn(process.execPath, [...(this.opts.entry ?? FROM_SOURCE), 'serve', ...args, '--port', String(port), ...(this.opts.testControls ? ['--test-controls'] : [])], {
      // eslint-disable-next-line no-restricted-syntax -- a child inherits the launcher's environment, then the cluster's settings
      env: { ...process.env, ...this.opts.env, ...env, HOST: this.opts.host },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    const output = this.opts.output
    const tail: string[] = []
    for (const stream of [child.stdout!, child.stderr!]) {
      createInterface({ input: stream }).on('line', (line) => {
        if (tail.push(line) > KEPT_LINES) tail.shift()
        output?.(`[${name}] ${line}`)
      })
    }
    child.on('exit', (code, signal) => {
      if (!this.stopping) output?.(`[cluster] ${name} exited (${signal ?? `code ${code}`})`)
    })
    const p = { name, context, port, url: `http://${this.opts.host}:${port}`, child, tail, args, env }
    this.processes.push(p)
    return p
  }

  private async ready(p: ClusterProcess): Promise<void> {
    const deadline = Date.now() + READY_TIMEOUT_MS
    // 'close' comes after its output is read to the end: the lines that say why are the last ones.
    const exited = new Promise<never>((_, reject) => p.child.once('close', (code) =>
      reject(new Error(`${p.name} exited with code ${code} before it was ready; its last output:\n${p.tail.join('\n')}`))))
    exited.catch(() => undefined)
    while (Date.now() < deadline) {
      const ok = await Promise.race([fetch(`${p.url}/readyz`, { signal: AbortSignal.timeout(2_000) }).then((r) => r.ok, () => false), exited])
      if (ok) return
      await new Promise((r) => setTimeout(r, 200))
    }
    throw new Error(`${p.name} was not ready within ${READY_TIMEOUT_MS / 1000} s`)
  }
}

const isAlive = (c: ChildProcess) => c.exitCode === null && c.signalCode === null
