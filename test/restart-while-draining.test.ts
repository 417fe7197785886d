/**
 * A restart on the embedded database's data directory while the previous process still drains
 * (SIGTERM) waits for it, saying so, and then serves; a start beside a process that is serving
 * (not stopping) is refused at once. Whole processes, as an operator runs them.
 */
import { readFile } from 'node:fs/promises'
import { connect, type Socket } from 'node:net'
import path from 'node:path'
import { expect, test } from 'vitest'
import { backend } from './support/backends.js'
import { eventually } from './support/eventually.js'
import { dataPlace, launchServer, startServer, stopServer, untilReady, type Server } from './support/serve-process.js'

const onEmbedded = test.runIf(backend() === 'embedded')
const READY_AFTER_PREVIOUS_EXITS_MS = 30_000

/**
 * A registration under way on `server`, held open: its headers are read (the server has answered
 * `100 Continue`) and its body is not sent, so a drain waits for it. `finish` sends the body.
 */
async function heldRequest(server: Server): Promise<{ finish(): Promise<string> }> {
  const { hostname, port } = new URL(server.url)
  const socket: Socket = connect(Number(port), hostname)
  let answer = ''
  socket.on('data', (chunk: Buffer) => (answer += chunk.toString('utf8')))
  const body = JSON.stringify({ name: 'Held', email: `held-${process.pid}-${Date.now()}@example.com`, password: 'a held request password' })
  socket.write(`POST /auth/register HTTP/1.1\r\nhost: ${hostname}\r\ncontent-type: application/json\r\n` +
    `content-length: ${Buffer.byteLength(body)}\r\nexpect: 100-continue\r\n\r\n`)
  await eventually('the server reads the held request', () => (answer.includes('100 Continue') ? true : undefined))
  return {
    async finish() {
      const ended = new Promise<void>((resolve) => socket.once('close', () => resolve()))
      socket.write(body)
      await ended
      return answer
    },
  }
}

const exitOf = (s: Server) => new Promise<number | null>((resolve) => {
  if (s.child.exitCode !== null) return resolve(s.child.exitCode)
  s.child.once('exit', (code) => resolve(code))
})

onEmbedded('a start while the previous process drains waits for it, saying which, and serves once it has exited', async ({ onTestFinished }) => {
  const place = await dataPlace('restart-draining')
  onTestFinished(() => place.cleanup())
  const previous = await startServer({ ...place.env, DRAIN_TIMEOUT_MS: '30000' })
  onTestFinished(() => stopServer(previous, 'SIGKILL'))
  const held = await heldRequest(previous)

  previous.child.kill('SIGTERM')
  const lock = path.join(place.dataDir, 'questline.lock')
  await eventually('the lock says the previous process is stopping', async () => (JSON.parse(await readFile(lock, 'utf8')).stopping ? true : undefined))
  const next = await launchServer(place.env)
  onTestFinished(() => stopServer(next, 'SIGKILL'))
  await eventually('the next process says it waits', () => (next.output().includes(`previous process (pid ${previous.child.pid})`) ? true : undefined), { withinMs: 60_000 })
  expect(previous.child.exitCode, 'the previous process is still draining while the next one waits').toBeNull()

  expect(await held.finish()).toMatch(/HTTP\/1\.1 200 OK[\s\S]*connection: close/i)
  expect(await exitOf(previous)).toBe(0)
  await untilReady(next, READY_AFTER_PREVIOUS_EXITS_MS)
  expect(next.output()).not.toContain('in use by another')
})

onEmbedded('a start beside a process serving the same data directory (not stopping) is refused at once', async ({ onTestFinished }) => {
  const place = await dataPlace('restart-serving')
  onTestFinished(() => place.cleanup())
  const serving = await startServer(place.env)
  onTestFinished(() => stopServer(serving))
  const second = await launchServer(place.env)
  onTestFinished(() => stopServer(second, 'SIGKILL'))
  expect(await exitOf(second)).toBe(1)
  expect(second.output()).toContain(`in use by another Questline process (pid ${serving.child.pid})`)
  expect(second.output()).not.toContain('waiting for it to finish')
})
