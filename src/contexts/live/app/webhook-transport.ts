/**
 * One webhook attempt on the wire: a POST that follows no redirect, is cut at a timeout, and goes
 * only to the addresses the target check lets through, checked as the connection is made (so a
 * name that resolved to a public address when the endpoint was made cannot be pointed at a
 * private one later).
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns'
import { request as httpRequest, type RequestOptions } from 'node:http'
import { request as httpsRequest } from 'node:https'
import type { LookupFunction } from 'node:net'
import { parseTarget, refusedAddress } from '../domain/webhook.js'

export interface AttemptResult {
  /** The receiver's status code, when it answered. */
  statusCode?: number
  /** Why no answer came (refused address, connection error, timeout). */
  error?: string
}

interface PostOptions {
  timeoutMs: number
  allowPrivate: boolean
  /** Aborts the attempt (the process is closing); the result then does not count. */
  signal: AbortSignal
}

/** Why the host of a URL may not receive deliveries (its addresses, resolved now), or undefined. */
export async function refusedHost(rawUrl: string, allowPrivate: boolean): Promise<string | undefined> {
  const target = parseTarget(rawUrl)
  if (!target.ok) return target.reason
  if (allowPrivate) return undefined
  if (target.ipLiteral) return refusedAddress(target.ipLiteral, false)
  const addresses = await new Promise<LookupAddress[] | Error>((resolve) =>
    dnsLookup(target.url.hostname, { all: true }, (err, found) => resolve(err ?? found)))
  if (addresses instanceof Error) return `its host ${target.url.hostname} does not resolve (${(addresses as NodeJS.ErrnoException).code ?? addresses.message})`
  for (const a of addresses) {
    const refused = refusedAddress(a.address, false)
    if (refused) return `its host ${target.url.hostname} resolves to ${refused}`
  }
  return undefined
}

/** A DNS lookup that fails for a name resolving to any address deliveries may not go to. */
const guardedLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (err, addresses: LookupAddress[]) => {
    if (err) return callback(err, '', 0)
    const refused = addresses.map((a) => refusedAddress(a.address, false)).find((r) => r !== undefined)
    if (refused) return callback(Object.assign(new Error(`${hostname} resolves to ${refused}`), { code: 'EADDRNOTALLOWED' }), '', 0)
    // Node asks for every address when it tries families in turn (autoSelectFamily), else for one.
    if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses)
    return callback(null, addresses[0]!.address, addresses[0]!.family)
  })
}

/** POSTs `body` to `rawUrl`: the status code once the receiver answers with one, else why not. */
export function post(rawUrl: string, body: string, headers: Record<string, string>, o: PostOptions): Promise<AttemptResult> {
  const target = parseTarget(rawUrl)
  if (!target.ok) return Promise.resolve({ error: `the URL ${target.reason}` })
  if (target.ipLiteral) {
    const refused = refusedAddress(target.ipLiteral, o.allowPrivate)
    if (refused) return Promise.resolve({ error: `refused: ${refused}` })
  }
  const request = target.url.protocol === 'https:' ? httpsRequest : httpRequest
  const options: RequestOptions = {
    method: 'POST',
    headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
    // A connection of its own: nothing pooled outlives the attempt or skips the address check.
    agent: false,
    signal: o.signal,
    ...(o.allowPrivate ? {} : { lookup: guardedLookup }),
  }
  return new Promise((resolve) => {
    const req = request(target.url, options, (res) => {
      clearTimeout(timer)
      // Only the status counts: the body is not read, and the connection is closed.
      resolve({ statusCode: res.statusCode ?? 0 })
      res.destroy()
    })
    const timer = setTimeout(() => req.destroy(new Error(`no answer within ${o.timeoutMs} ms`)), o.timeoutMs)
    req.on('error', (e: NodeJS.ErrnoException) => {
      clearTimeout(timer)
      resolve({ error: e.message || e.code || 'connection failed' })
    })
    req.end(body)
  })
}
