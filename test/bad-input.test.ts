/**
 * No client input gets a 5xx, and every error is problem+json. The operations come from the
 * OpenAPI document, so a new route is swept without editing this file.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { buildTestApp, splitTarget, type TestApp } from './support/app.js'
import { newHabit } from './support/habits.js'
import { newPlayer, type Player } from './support/players.js'
import type { SplitTestApp } from './support/split-app.js'

interface Schema { type?: string; enum?: unknown[]; properties?: Record<string, Schema>; required?: string[]; anyOf?: Schema[] }
interface Operation { method: string; path: string; body?: Schema; bodyRequired: boolean }

let app: TestApp
let player: Player
let habitId: string
let marketplaceId: string
let operations: Operation[] = []

beforeAll(async () => {
  app = await buildTestApp()
  player = await newPlayer(app)
  habitId = await newHabit(app, player)
  marketplaceId = (await app.inject({ method: 'POST', url: '/api/v1/marketplaces', headers: player.auth, payload: { avatarId: player.avatarId } })).json().id
  const doc = (await app.inject({ url: '/openapi.json' })).json() as { paths: Record<string, Record<string, { requestBody?: { required?: boolean; content?: Record<string, { schema: Schema }> } }>> }
  operations = Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => ({
      method: method.toUpperCase(), path,
      body: op.requestBody?.content?.['application/json']?.schema,
      bodyRequired: op.requestBody?.required ?? false,
    })))
})
afterAll(() => app.close())

/** Fills path parameters with real ids so requests reach validation and rules, not just the router. */
const urlOf = (op: Operation, id?: string, itemName?: string) =>
  op.path.replace('{id}', id ?? (op.path.startsWith('/api/v1/habits') ? habitId : player.avatarId))
    .replace('{marketplaceId}', id ?? marketplaceId)
    .replace('{itemName}', itemName ?? 'Rusty%20Shortsword')

/** The path parameter naming the resource, swept with bad ids. */
const ID_PARAM = /\{(id|marketplaceId)\}/

type Payload = string | object
interface Case { name: string; payload?: Payload; contentType?: string; headers?: Record<string, string>; id?: string; itemName?: string; expect?: number }

function wrongValues(s: Schema): [string, unknown][] {
  const type = s.type ?? s.anyOf?.find((a) => a.type !== 'null')?.type
  const out: [string, unknown][] = [type === 'boolean' ? ['the string "true"', 'true'] : ['true', true], ['an array', [1]], ['an object', { a: 1 }]]
  if (type === 'integer' || type === 'number') out.push(['a numeric string', '5'], ['a fraction', 1.5], ['1e300', 1e300], ['2^53', 2 ** 53], ['-1', -1], ['1e20', 1e20])
  if (type === 'string') out.push(['a number', 5], ['10,000 characters', 'x'.repeat(10_000)], ['a NUL character', 'a\u0000b'], ['an unpaired surrogate', 'a\ud800b'])
  if (s.enum || s.anyOf?.some((a) => a.enum)) out.push(['an unknown enum value', 'SPACESHIP'])
  return out
}

/** Operations that take files larger than the 64 KiB every other body is held to: an import (up to IMPORT_BODY_MAX_BYTES). */
const LARGE_BODIES = new Set(['POST /api/v1/avatars/{id}/import'])

function casesFor(op: Operation): Case[] {
  const cases: Case[] = []
  if (op.path.startsWith('/api/v1')) {
    cases.push({ name: 'no token', headers: {}, expect: 401 }, { name: 'a garbage token', headers: { authorization: 'Bearer x.y.z' }, expect: 401 })
  }
  if (ID_PARAM.test(op.path)) {
    for (const [name, id] of [
      ['a NUL id', '%00'], ['a 500-character id', 'a'.repeat(500)], ['a traversal id', '..%2F..'], ['a bad-escape id', '%E0%A4%A'],
      // ajv-formats would take it as a uuid; PostgreSQL refuses it.
      ['a urn:uuid id', 'urn:uuid:00000000-0000-4000-8000-000000000000'],
    ] as const) {
      cases.push({ name, id, ...(op.body ? { payload: {} } : {}) })
    }
  }
  if (op.path.includes('{itemName}')) {
    for (const [name, itemName] of [['a NUL item name', '%00'], ['a 500-character item name', 'a'.repeat(500)], ['a blank item name', '%20'], ['a bad-escape item name', '%E0%A4%A']] as const) {
      cases.push({ name, itemName })
    }
  }
  // Validation answers 200 {valid} for anything by contract.
  if (op.body && op.bodyRequired && op.path !== '/auth/validate') {
    cases.push(
      { name: 'malformed JSON', payload: '{"amount":', contentType: 'application/json' },
      { name: 'a JSON array', payload: '[1]', contentType: 'application/json' },
      { name: 'a JSON string', payload: '"x"', contentType: 'application/json' },
      { name: 'JSON null', payload: 'null', contentType: 'application/json' },
      { name: 'an empty body', payload: '', contentType: 'application/json' },
      { name: 'a body over 64 KiB', payload: JSON.stringify({ pad: 'x'.repeat(70_000) }), contentType: 'application/json', ...(LARGE_BODIES.has(`${op.method} ${op.path}`) ? {} : { expect: 413 }) },
      { name: 'an XML body', payload: '<amount>5</amount>', contentType: 'text/xml' },
    )
    if (op.body.required?.length) cases.push({ name: 'missing fields', payload: {} })
    for (const field of op.body.required ?? []) {
      for (const [what, value] of wrongValues(op.body.properties?.[field] ?? {})) {
        cases.push({ name: `${field} as ${what}`, payload: { ...validish(op.body), [field]: value } })
      }
    }
  }
  return cases
}

/** A body whose required fields all have plausible values, so one wrong field is the only fault. */
function validish(s: Schema): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const f of s.required ?? []) {
    const p = s.properties?.[f] ?? {}
    const type = p.type ?? p.anyOf?.find((a) => a.type !== 'null')?.type
    out[f] = p.enum ? p.enum[0] : type === 'integer' ? 1 : type === 'array' ? [] : 'valid-text'
  }
  return out
}

/** The app's URL over a real socket (some refusals happen before a request reaches fastify's inject). */
let listening: Promise<string> | undefined
const realSocket = () => (listening ??= splitTarget
  ? Promise.resolve((app as SplitTestApp).cluster.gateway.url)
  : app.http.listen({ port: 0, host: '127.0.0.1' }))

describe('every operation refuses bad input with a 4xx problem', () => {
  test('the sweep covers every documented operation', () => {
    expect(operations.length).toBeGreaterThan(40)
  })

  test('each case', async () => {
    const failures: string[] = []
    let count = 0
    for (const op of operations) {
      for (const c of casesFor(op)) {
        count++
        const headers: Record<string, string> = { ...(c.headers ?? player.auth) }
        if (c.contentType) headers['content-type'] = c.contentType
        const res = await app.inject({
          method: op.method as 'GET', url: urlOf(op, c.id, c.itemName), headers,
          ...(c.payload !== undefined ? { payload: c.payload } : {}),
        })
        const label = `${op.method} ${op.path} with ${c.name}: ${res.statusCode}`
        const body = String(res.headers['content-type'] ?? '').startsWith('application/problem+json') ? res.json() : undefined
        if (res.statusCode < 400 || res.statusCode >= 500) failures.push(`${label} ${res.body.slice(0, 200)}`)
        else if (c.expect && res.statusCode !== c.expect) failures.push(`${label}, expected ${c.expect}`)
        else if (!body || body.status !== res.statusCode || typeof body.type !== 'string' || typeof body.title !== 'string' || typeof body.detail !== 'string') {
          failures.push(`${label}: not a problem body: ${res.headers['content-type']} ${res.body.slice(0, 200)}`)
        }
      }
    }
    expect(failures).toEqual([])
    expect(count).toBeGreaterThan(300)
  })

  test('validation problems name each bad field', async () => {
    const res = await app.inject({ method: 'POST', url: `/api/v1/avatars/${player.avatarId}/inventory/items`, headers: player.auth, payload: { type: 'SPACESHIP', name: 5, power: 1.5 } })
    expect(res.statusCode, res.body).toBe(400)
    expect(res.json().errors.map((e: { path: string }) => e.path).sort()).toEqual(['body/name', 'body/power', 'body/type'])
  })

  test('a request line and headers too large for the server are 431 problem+json, over a real socket', async () => {
    const base = await realSocket()
    const res = await fetch(`${base}/api/v1/avatars/${player.avatarId}?pad=${'x'.repeat(20_000)}`, { headers: player.auth })
    expect(res.status).toBe(431)
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/)
    expect(await res.json()).toMatchObject({ type: '/problems/headers-too-large', status: 431, errors: [{ path: 'headers' }] })
  })

  test('a body over 64 KiB is 413 problem+json over a real socket, with a declared length or chunked, and the service stays up', async () => {
    const base = await realSocket()
    const oversized = JSON.stringify({ name: 'x'.repeat(4_000_000) })
    const headers = { ...player.auth, 'content-type': 'application/json' }
    for (let i = 0; i < 5; i++) {
      const chunked = new ReadableStream({ start(c) { c.enqueue(new TextEncoder().encode(oversized)); c.close() } })
      for (const body of [oversized, chunked]) {
        const res = await fetch(`${base}/api/v1/habits`, { method: 'POST', headers, body, duplex: 'half' } as RequestInit)
        expect(res.status, typeof body).toBe(413)
        expect(await res.json()).toMatchObject({ type: '/problems/payload-too-large', status: 413 })
      }
    }
    const listed = await fetch(`${base}/api/v1/habits?avatarId=${player.avatarId}`, { headers: player.auth })
    expect(listed.status).toBe(200)
  })

  test('a known path with another method is 405 with Allow; an unknown path is 404', async () => {
    const res = await app.inject({ method: 'PUT', url: `/api/v1/avatars/${player.avatarId}/money`, headers: player.auth })
    expect(res.statusCode).toBe(405)
    expect(res.headers.allow).toBe('GET, HEAD')
    expect(res.json().type).toBe('/problems/method-not-allowed')
    const missing = await app.inject({ url: '/api/v1/nothing-here', headers: player.auth })
    expect(missing.statusCode).toBe(404)
    expect(missing.headers['content-type']).toMatch(/^application\/problem\+json/)
  })

  test('a wrong method is 405 before any body is read: malformed, oversized or valid JSON alike', async () => {
    const url = `/api/v1/avatars/${player.avatarId}/money`
    for (const payload of ['{"amount":', JSON.stringify({ pad: 'x'.repeat(70_000) }), '{"amount":5}', '']) {
      const res = await app.inject({ method: 'POST', url, headers: { ...player.auth, 'content-type': 'application/json' }, payload })
      expect(res.statusCode, `${payload.slice(0, 20)}: ${res.body}`).toBe(405)
      expect(res.headers.allow).toBe('GET, HEAD')
      expect(res.json().type).toBe('/problems/method-not-allowed')
    }
  })
})
