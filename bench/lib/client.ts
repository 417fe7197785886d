/** A light keep-alive HTTP client for load that must not cost the shared cores much (fetch costs several times more). */
import { Agent, request } from 'node:http'

export interface Reply {
  status: number
  text: string
}

export interface Client {
  /** One request; rejects on a network error or after `timeoutMs` without an answer, never on a status. */
  send(method: 'GET' | 'POST', path: string, token?: string, body?: unknown): Promise<Reply>
  close(): void
}

export function keepAliveClient(base: string, maxSockets: number, timeoutMs = 30_000): Client {
  const agent = new Agent({ keepAlive: true, maxSockets })
  const { hostname, port } = new URL(base)
  return {
    send: (method, path, token, body) => new Promise<Reply>((resolve, reject) => {
      const payload = body === undefined ? undefined : JSON.stringify(body)
      const headers: Record<string, string> = {
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(payload === undefined ? {} : { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(payload)) }),
      }
      const req = request({ agent, host: hostname, port, method, path, headers }, (res) => {
        let text = ''
        res.setEncoding('utf8')
          .on('data', (chunk: string) => (text += chunk))
          .on('end', () => resolve({ status: res.statusCode!, text }))
          .on('error', reject)
      })
      req.setTimeout(timeoutMs, () => req.destroy(new Error(`no answer within ${timeoutMs / 1000} s`)))
      req.on('error', reject)
      req.end(payload)
    }),
    close: () => agent.destroy(),
  }
}
