/**
 * A round-robin HTTP front for several gateways, as a load balancer in front of a cluster would
 * be: `npm run start:split` with REPLICAS_EDGE above one, and the tests that run the API suite
 * through two gateways. It passes every request through as it came (streams too), says who the
 * client was in `X-Forwarded-For` (the gateways trust it through TRUST_PROXY), and tries the next
 * gateway when one refuses the connection, as a balancer's health checks would steer around it.
 */
import { createServer, request, Agent, type IncomingMessage, type Server, type ServerResponse } from 'node:http'

/** Bodies are read whole before they are sent on, so a refused connection can be tried elsewhere. */
const BODY_KEPT_BYTES = 8 * 1024 * 1024

/** Headers of any size go on: the gateway answers those too large for it (431 problem+json). */
const MAX_HEADER_BYTES = 1024 * 1024

/** Connection failures that mean the gateway never took the request: another may. */
const NOT_TAKEN = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE'])

export class Balancer {
  private next = 0
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 256 })
  private readonly open = new Set<ServerResponse>()

  private constructor(
    private readonly server: Server,
    /** The gateways' base URLs, read at every request (a restarted gateway keeps its port). */
    private readonly targets: () => string[],
    readonly url: string,
  ) {}

  static async start(host: string, port: number, targets: () => string[]): Promise<Balancer> {
    const server = createServer({ maxHeaderSize: MAX_HEADER_BYTES })
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject)
      server.listen(port, host, () => resolve())
    })
    const bound = (server.address() as { port: number }).port
    const balancer = new Balancer(server, targets, `http://${host.includes(':') ? `[${host}]` : host}:${bound}`)
    server.on('request', (req: IncomingMessage, res: ServerResponse) => void balancer.handle(req, res))
    return balancer
  }

  async close(): Promise<void> {
    for (const res of this.open) res.destroy()
    this.agent.destroy()
    await new Promise<void>((resolve) => this.server.close(() => resolve()))
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    this.open.add(res)
    res.once('close', () => this.open.delete(res))
    const body = await readBody(req)
    const targets = this.targets()
    const first = this.next++
    for (let i = 0; i < targets.length; i++) {
      const target = targets[(first + i) % targets.length]!
      const outcome = await this.forward(target, req, body, res)
      if (outcome !== 'not-taken') return
    }
    if (!res.headersSent) {
      res.writeHead(503, { 'content-type': 'application/problem+json' })
      res.end(JSON.stringify({ type: '/problems/service-unavailable', title: 'Service unavailable', status: 503, detail: 'No gateway took the request.' }))
    }
  }

  /** Sends the request to one gateway and its answer back; 'not-taken' when the gateway never took it. */
  private forward(target: string, req: IncomingMessage, body: Buffer, res: ServerResponse): Promise<'done' | 'not-taken'> {
    return new Promise((resolve) => {
      const upstream = request(target + req.url, { method: req.method, agent: this.agent, headers: headersOn(req, body) }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, withoutHopByHop(answer.headers))
        res.flushHeaders()
        answer.pipe(res)
        answer.once('end', () => resolve('done'))
        answer.once('error', () => resolve('done'))
        res.once('close', () => {
          answer.destroy()
          resolve('done')
        })
      })
      upstream.once('error', (e: NodeJS.ErrnoException) => {
        if (!res.headersSent && NOT_TAKEN.has(e.code ?? '')) return resolve('not-taken')
        res.destroy()
        resolve('done')
      })
      upstream.end(body)
    })
  }
}

/** Hop-by-hop headers end at the balancer, both ways (RFC 9110 §7.6.1). */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'proxy-connection', 'te', 'trailer'])

/**
 * An answer goes on with the balancer's own connection headers: a gateway's `Keep-Alive: timeout=72`
 * passed through would tell the client to keep an idle connection longer than the balancer keeps it,
 * and the client's next request could meet the balancer closing it.
 */
function withoutHopByHop(given: IncomingMessage['headers']): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = {}
  for (const [name, value] of Object.entries(given)) if (value !== undefined && !HOP_BY_HOP.has(name)) headers[name] = value
  return headers
}

/** The request's end-to-end headers; the body goes on whole, so with its length. */
function headersOn(req: IncomingMessage, body: Buffer): Record<string, string | string[]> {
  const headers = withoutHopByHop(req.headers)
  headers['x-forwarded-for'] = [req.headers['x-forwarded-for'], req.socket.remoteAddress].filter(Boolean).join(', ')
  headers['x-forwarded-proto'] ??= 'http'
  if (body.length > 0 || !(req.method === 'GET' || req.method === 'HEAD')) headers['content-length'] = String(body.length)
  return headers
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = []
    let size = 0
    req.on('data', (c: Buffer) => {
      size += c.length
      if (size <= BODY_KEPT_BYTES) chunks.push(c)
    })
    req.once('end', () => resolve(Buffer.concat(chunks)))
    req.once('error', () => resolve(Buffer.concat(chunks)))
  })
}
