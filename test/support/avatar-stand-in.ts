/**
 * An HTTP stand-in for the avatar service: the marketplace's HTTP adapter is pointed at it
 * (AVATAR_URL), it forwards each call to the real avatar API of a test app, and it fails the
 * calls a test chooses, before forwarding (nothing applied) or after (applied, answer lost).
 */
import { setTimeout as sleep } from 'node:timers/promises'
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify'
import type { TestApp } from './app.js'

type AvatarCall = 'profile' | 'spend' | 'earn' | 'add-item' | 'take-item'

export interface Fault {
  call: AvatarCall
  /** before: fail without forwarding. after: forward (the change is applied), then fail the answer. */
  when: 'before' | 'after'
  /**
   * 500: a problem answer; timeout: no answer within the client's timeout; reset: the connection
   * is cut; hold (before only): the call is forwarded, late, once `gate` opens.
   */
  kind: '500' | 'timeout' | 'reset' | 'hold'
  gate?: Promise<void>
  /** How many calls fail; Infinity for an outage that lasts until healed. */
  times: number
}

function callOf(method: string, url: string): AvatarCall | undefined {
  const path = url.split('?')[0]!
  if (method === 'GET' && /^\/internal\/v1\/avatars\/[^/]+\/profile$/.test(path)) return 'profile'
  if (method !== 'POST') return undefined
  if (path.endsWith('/money/spend')) return 'spend'
  if (path.endsWith('/money/earn')) return 'earn'
  if (path.endsWith('/inventory/items')) return 'add-item'
  if (path.endsWith('/inventory/items/take')) return 'take-item'
  return undefined
}

export class AvatarStandIn {
  /** The app whose avatar API answers; set once the app is built (it needs this stand-in's URL first). */
  target: TestApp | undefined
  private faults: Fault[] = []
  /** Every call received, with its idempotency key. */
  readonly calls: { call: AvatarCall | undefined; key: string | undefined }[] = []
  private readonly server = Fastify({ forceCloseConnections: true })

  constructor(private readonly timeoutMs: number) {
    this.server.removeContentTypeParser('application/json')
    this.server.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => done(null, body))
    this.server.all('/*', (req, reply) => this.handle(req, reply))
  }

  async start(): Promise<string> {
    return this.server.listen({ port: 0, host: '127.0.0.1' })
  }

  close(): Promise<void> {
    return this.server.close()
  }

  /** Replaces the faults (an empty list heals the service). */
  fail(...faults: Fault[]): void {
    this.faults = faults.map((f) => ({ ...f }))
    this.calls.length = 0
  }

  heal(): void {
    this.faults = []
  }

  count(call: AvatarCall): number {
    return this.calls.filter((c) => c.call === call).length
  }

  private async handle(req: FastifyRequest, reply: FastifyReply): Promise<unknown> {
    const call = callOf(req.method, req.url)
    const key = req.headers['idempotency-key'] as string | undefined
    this.calls.push({ call, key })
    const fault = this.faults.find((f) => f.call === call && f.times > 0)
    if (fault) fault.times--
    if (fault?.kind === 'hold') await fault.gate
    else if (fault?.when === 'before') return this.misbehave(fault, req, reply)
    const headers: Record<string, string> = {}
    for (const h of ['authorization', 'content-type', 'idempotency-key']) {
      const v = req.headers[h]
      if (typeof v === 'string') headers[h] = v
    }
    const res = await this.target!.inject({
      method: req.method as 'GET', url: req.url, headers, ...(typeof req.body === 'string' ? { payload: req.body } : {}),
    })
    if (fault?.when === 'after') return this.misbehave(fault, req, reply)
    reply.code(res.statusCode)
    if (res.headers['content-type']) reply.header('content-type', res.headers['content-type'])
    return reply.send(res.rawPayload.length > 0 ? res.rawPayload : undefined)
  }

  private async misbehave(fault: Fault, req: FastifyRequest, reply: FastifyReply): Promise<unknown> {
    if (fault.kind === 'reset') {
      reply.hijack()
      req.raw.socket.destroy()
      return undefined
    }
    if (fault.kind === 'timeout') await sleep(this.timeoutMs * 3)
    return reply.code(500).type('application/problem+json')
      .send({ type: '/problems/internal', title: 'Internal server error', status: 500, detail: 'injected failure' })
  }
}
