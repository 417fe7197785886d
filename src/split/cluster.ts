/**
 * Starts Questline as separate processes: every context on a port of its own (with replicas),
 * then the gateway in front of them (or several gateways behind a round-robin balancer). Used by `npm run start:split` and by the split-services
 * tests, which also stop and restart single processes.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { createInterface } from 'node:readline'
import { freePort } from '../platform/net/free-port.js'
import { Balancer } from './balancer.js'

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
  /** Where clients reach the platform (the gateway, or the balancer in front of several); 0 picks a free port. */
  port: number
  host: string
  /** Contexts to run besides the gateway, with their replica counts. */
  contexts: { context: string; replicas: number }[]
  /** Gateways (edge processes); more than one are fronted by a round-robin balancer on `port`. */
  gateways?: number
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

/** Loopback addresses: the balancer's and the gateways', trusted to say who the client was. */
const LOOPBACK = '127.0.0.1/32,::1/128'

export class Cluster {
  readonly processes: ClusterProcess[] = []
  private stopping = false
  private balancer: Balancer | undefined

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
      // The gateways start last, but the front's port is chosen now: each context verifies the
      // gateways' tokens from their JWKS, fetched when the first one arrives.
      const gateways = opts.gateways ?? 1
      const frontPort = opts.port || (await freePort(opts.host))
      // Every process runs on this host: the contexts trust the gateways' word on who the client was.
      const contextEnv = { ...upstreams, JWKS_URL: `http://${opts.host}:${frontPort}/auth/jwks.json`, TRUST_PROXY: LOOPBACK }
      // Each replica finds itself among its context's upstreams by its own URL (it owns a share of the partitions).
      await Promise.all(planned.map((p) => cluster.launch(p.name, p.context, ['--only', p.context], p.port, { ...contextEnv, ADVERTISE_URL: `http://${opts.host}:${p.port}` })))
      if (gateways === 1) {
        await cluster.launch('gateway', 'edge', ['--only', 'edge'], frontPort, upstreams)
        return cluster
      }
      const gatewayPorts = await Promise.all(Array.from({ length: gateways }, () => freePort(opts.host)))
      await Promise.all(gatewayPorts.map((port, i) =>
        cluster.launch(`gateway#${i + 1}`, 'edge', ['--only', 'edge'], port, { ...upstreams, TRUST_PROXY: LOOPBACK })))
      cluster.balancer = await Balancer.start(opts.host, frontPort, () => cluster.processes.filter((p) => p.context === 'edge').map((p) => p.url))
      return cluster
    } catch (e) {
      await cluster.stop()
      throw e
    }
  }

  /** The first gateway process. */
  get gateway(): ClusterProcess {
    return this.processes.find((p) => p.context === 'edge')!
  }

  /** Where clients reach the platform: the balancer in front of the gateways, or the one gateway. */
  get url(): string {
    return this.balancer?.url ?? this.gateway.url
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

  /**
   * Stops one process as an orchestrator does (SIGTERM: it drains), waits for it to exit, and starts
   * it again on its port; answers how it exited, and the new process once it is ready.
   */
  async restartGracefully(p: ClusterProcess): Promise<{ exit: number | string; again: ClusterProcess }> {
    const exited = new Promise<number | string>((resolve) => p.child.once('exit', (code, signal) => resolve(code ?? signal ?? 'unknown')))
    p.child.kill('SIGTERM')
    const exit = await exited
    return { exit, again: await this.restart(p) }
  }

  /**
   * A rolling restart: every process restarted gracefully, in waves: the first process of every
   * context at once, each ready again before the next wave stops the second ones, and so on, so
   * each context keeps serving throughout. A lone gateway stays (its clients would find nobody).
   * Answers how each one exited, by name.
   */
  async rollingRestart(): Promise<Map<string, number | string>> {
    const exits = new Map<string, number | string>()
    const byContext = new Map<string, ClusterProcess[]>()
    for (const p of this.live()) byContext.set(p.context, [...(byContext.get(p.context) ?? []), p])
    if (!this.balancer) byContext.delete('edge')
    const waves = Math.max(...[...byContext.values()].map((ps) => ps.length))
    for (let i = 0; i < waves; i++) {
      const wave = [...byContext.values()].flatMap((ps) => ps.slice(i, i + 1))
      await Promise.all(wave.map(async (p) => exits.set(p.name, (await this.restartGracefully(p)).exit)))
    }
    return exits
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
    await this.balancer?.close()
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
