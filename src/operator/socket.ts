/**
 * The operator's door into a running embedded server: a Unix socket in its data directory, which
 * only the directory's owner can reach (no token, no network). PGlite lets one process open the
 * data, so `questline backup`, `admin` and `keys rotate` ask the server holding it through this socket;
 * on a stopped directory (or PostgreSQL) they do the work themselves.
 */
import { chmod, rm } from 'node:fs/promises'
import { createServer, request, type IncomingMessage, type Server } from 'node:http'
import path from 'node:path'
import { NotFound } from '../platform/errors.js'
import type { Logger } from '../platform/log.js'

/** Linux allows 107 bytes for a socket's path; a data directory deeper than that goes without. */
const MAX_SOCKET_PATH = 100

const socketPathOf = (dataDir: string): string => path.resolve(dataDir, 'questline.sock')

interface OperatorHandlers {
  /** The whole backup file's bytes. */
  backup(): Promise<Buffer>
  role(email: string, role: 'admin' | 'player'): Promise<unknown>
  /** Makes a new current signing key; answers its kid. */
  rotateKeys(): Promise<string>
}

/** Answers, as JSON: what the handler returned, or {error} with 404 (unknown user) or 400/500. */
export async function serveOperatorSocket(dataDir: string, handlers: OperatorHandlers, log: Logger | undefined): Promise<Server | undefined> {
  const socket = socketPathOf(dataDir)
  if (socket.length > MAX_SOCKET_PATH) {
    log?.warn({ socket }, 'the data directory path is too long for an operator socket: backup and admin commands need the server stopped')
    return undefined
  }
  // This process holds the data directory's lock: a socket file left there is a crashed holder's.
  await rm(socket, { force: true })
  const server = createServer((req, res) => {
    void answer(req, handlers).then(({ status, body }) => {
      res.writeHead(status, { 'content-type': Buffer.isBuffer(body) ? 'application/octet-stream' : 'application/json' })
      res.end(Buffer.isBuffer(body) ? body : JSON.stringify(body))
    })
  })
  try {
    await new Promise<void>((resolve, reject) => server.once('error', reject).listen(socket, resolve))
    await chmod(socket, 0o600)
  } catch (e) {
    server.close()
    log?.warn({ err: e, socket }, 'no operator socket: backup and admin commands need the server stopped')
    return undefined
  }
  server.unref()
  return server
}

async function answer(req: IncomingMessage, h: OperatorHandlers): Promise<{ status: number; body: unknown }> {
  try {
    let text = ''
    for await (const chunk of req) text += String(chunk)
    if (req.method === 'POST' && req.url === '/backup') return { status: 200, body: await h.backup() }
    if (req.method === 'POST' && req.url === '/role') {
      const { email, role } = JSON.parse(text) as { email: string; role: 'admin' | 'player' }
      return { status: 200, body: await h.role(email, role) }
    }
    if (req.method === 'POST' && req.url === '/rotate-keys') return { status: 200, body: { kid: await h.rotateKeys() } }
    return { status: 404, body: { error: `no operator command ${req.method} ${req.url}` } }
  } catch (e) {
    const status = e instanceof NotFound ? 404 : 500
    return { status, body: { error: (e as Error).message } }
  }
}

/** Sends a command to the server holding `dataDir`; rejects with the server's error text. */
export function callOperatorSocket(dataDir: string, command: string, body: unknown = {}): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const req = request({ socketPath: socketPathOf(dataDir), method: 'POST', path: `/${command}`, headers: { 'content-type': 'application/json' } }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c)).on('error', reject).on('end', () => {
        const bytes = Buffer.concat(chunks)
        if (res.statusCode === 200) return resolve(bytes)
        let message = bytes.toString('utf8')
        try {
          message = (JSON.parse(message) as { error: string }).error
        } catch { /* the text as it came */ }
        reject(new OperatorFailure(message))
      })
    })
    req.on('error', (e) => reject(new OperatorFailure(
      `The data directory ${dataDir} is in use, and its server does not answer on ${socketPathOf(dataDir)} (${(e as Error).message}).`,
    )))
    req.end(JSON.stringify(body))
  })
}

/** A command that cannot be done, with what to tell the operator. */
export class OperatorFailure extends Error {}
