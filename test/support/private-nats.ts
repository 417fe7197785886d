/**
 * A nats-server of a test's own (JetStream on, a free port, a store directory of its own), so the
 * test can stop it and start it again on the same port and store without touching the shared one.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { jetstreamManager } from '@nats-io/jetstream'
import { connect } from '@nats-io/transport-node'
import { freePort } from '../../src/platform/net/free-port.js'

const NATS_SERVER = '/usr/sbin/nats-server'
const READY_WITHIN_MS = 10_000
const STOP_WITHIN_MS = 10_000

export class PrivateNats {
  private child: ChildProcess | undefined
  private closed = false

  private constructor(
    readonly port: number,
    readonly storeDir: string,
  ) {}

  get url(): string {
    return `nats://127.0.0.1:${this.port}`
  }

  /** A new server, running and answering JetStream requests. */
  static async launch(): Promise<PrivateNats> {
    const nats = new PrivateNats(await freePort(), await mkdtemp(path.join(tmpdir(), 'questline-nats-')))
    try {
      await nats.start()
    } catch (e) {
      await nats.close()
      throw e
    }
    return nats
  }

  /** Starts the server (again) on its port and store; resolves once JetStream answers. */
  async start(): Promise<void> {
    if (this.child) throw new Error('The private nats-server is running already.')
    const child = spawn(NATS_SERVER, ['-a', '127.0.0.1', '-p', String(this.port), '-js', '-sd', this.storeDir], { stdio: ['ignore', 'ignore', 'pipe'] })
    this.child = child
    let stderr = ''
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()))
    const exited = new Promise<never>((_, reject) => child.once('exit', (code, signal) => reject(new Error(`nats-server exited (${signal ?? code}): ${stderr.trim()}`))))
    exited.catch(() => undefined)
    const deadline = Date.now() + READY_WITHIN_MS
    while (!(await Promise.race([this.answers(), exited]))) {
      if (Date.now() > deadline) throw new Error(`nats-server on port ${this.port} was not ready within ${READY_WITHIN_MS / 1000} s`)
      await new Promise((r) => setTimeout(r, 100))
    }
  }

  /** SIGTERM (an orderly shutdown); resolves once it has exited. */
  async stop(): Promise<void> {
    const child = this.child
    if (!child) return
    this.child = undefined
    if (child.exitCode !== null || child.signalCode !== null) return
    const exited = new Promise((r) => child.once('exit', r))
    child.kill('SIGTERM')
    const kill = setTimeout(() => child.kill('SIGKILL'), STOP_WITHIN_MS)
    await exited
    clearTimeout(kill)
  }

  /** Stops the server (if it runs) and removes its store; safe to call more than once. */
  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    await this.stop()
    await rm(this.storeDir, { recursive: true, force: true })
  }

  private async answers(): Promise<boolean> {
    try {
      const nc = await connect({ servers: this.url, reconnect: false, timeout: 1000 })
      try {
        await (await jetstreamManager(nc)).getAccountInfo()
        return true
      } finally {
        await nc.close()
      }
    } catch {
      return false
    }
  }
}
