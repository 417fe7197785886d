/**
 * Webhook receivers for the suites: local HTTP servers (the test apps set WEBHOOK_ALLOW_PRIVATE=true
 * so the platform may call 127.0.0.1), and the calls that make endpoints and read their logs.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http'
import type { AddressInfo } from 'node:net'
import { expect } from 'vitest'
import type { TestApp } from './app.js'
import type { Player } from './players.js'

export const hooks = '/api/v1/me/webhooks'

export interface Received { headers: IncomingHttpHeaders; body: string; at: number }
/** How a receiver answers its n-th request (0-based): a status, after a delay, or never. */
export type Answer = number | { status: number; afterMs: number } | 'hang'

/** A local receiver answering as `answer` says; closed (hanging requests cut) when the test ends. */
export async function receiver(onTestFinished: (fn: () => Promise<void>) => void, answer: (n: number) => Answer = () => 200) {
  const received: Received[] = []
  const late = new Set<NodeJS.Timeout>()
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const a = answer(received.length)
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString(), at: Date.now() })
      if (a === 'hang') return
      const { status, afterMs } = typeof a === 'number' ? { status: a, afterMs: 0 } : a
      const timer = setTimeout(() => {
        late.delete(timer)
        res.writeHead(status).end()
      }, afterMs)
      late.add(timer)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  onTestFinished(async () => {
    for (const timer of late) clearTimeout(timer)
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
  })
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, received }
}

export async function addEndpoint(app: TestApp, p: Player, url: string, events: string[] = ['AvatarChanged']): Promise<{ id: string; secret: string }> {
  const res = await app.inject({ method: 'POST', url: hooks, headers: p.auth, payload: { url, events } })
  expect(res.statusCode, res.body).toBe(201)
  return res.json()
}

/** An AvatarChanged event of the player's avatar. */
export async function earn(app: TestApp, p: Player, amount = 5): Promise<void> {
  const res = await app.inject({ method: 'POST', url: `/api/v1/avatars/${p.avatarId}/money/earn`, headers: p.auth, payload: { amount } })
  expect(res.statusCode, res.body).toBe(204)
  await app.settle()
}

export type Delivery = {
  id: string; eventId: string; type: string; status: string; attempts: number; lastStatusCode: number | null; lastError: string | null; nextAttemptAt: string | null
}

export async function deliveriesOf(app: TestApp, p: Player, endpointId: string): Promise<Delivery[]> {
  const res = await app.inject({ url: `${hooks}/${endpointId}/deliveries`, headers: p.auth })
  expect(res.statusCode, res.body).toBe(200)
  return res.json().items
}

export const atLeast = <T>(items: T[], n: number) => (items.length >= n ? items : undefined)
