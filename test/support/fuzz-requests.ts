/**
 * The requests a fuzz sends to one operation of the OpenAPI document: a valid request built from
 * its schemas, with real ids in the path, and the changes that can be made to it (see changesOf).
 */
import fc from 'fast-check'
import type { TestApp } from './app.js'
import { clip, type FuzzWorld, type Operation, type Param } from './fuzz-world.js'
import { ABSENT, faultsOf, toJson, validatorOf, validValue, type Schema, type ValueOptions } from './openapi-arbitraries.js'
import { applyTwists, edgeTextOf, encodeText, ODD_BODIES, ODD_URL_TEXT, queryFaultOf, queryTextOf, twist, type Twist } from './openapi-wire.js'

type AuthKind = 'player' | 'none' | 'garbage' | 'other player'

export interface FuzzRequest {
  method: string
  url: string
  auth: AuthKind
  headers: Record<string, string>
  payload?: string
  /** The body parses as JSON and the document's schema refuses it: the server must not accept it. */
  documentedInvalid: boolean
}

const UNKNOWN_QUERY = ['extra', 'limit', 'cursor', '__proto__', 'constructor', '', 'a[b]', '%00', encodeText('😀')]
const ODD_QUERY = ['%', '%zz', '&', '=', '&&=&', 'a', 'a=%ED%A0%80', 'limit[]=1', '%FF=1', 'x=%E0%A4%A', `x=${'a'.repeat(5000)}`]
const ODD_IDEMPOTENCY_KEYS = ['', ' ', 'x'.repeat(201), 'a b', '\u00e9', 'k\tk', 'a,b', 'fuzz-replay']
const CONTENT_TYPES = [
  'application/json; charset=utf-8', 'application/json; charset=iso-8859-1', 'text/plain', 'application/x-www-form-urlencoded',
  'application/merge-patch+json', 'APPLICATION/JSON', 'application/json;', '',
]

const isJson = (contentType: string | undefined) => contentType !== undefined && /^application\/json\s*(;\s*charset=utf-8)?$/i.test(contentType)

function documentedInvalid(op: Operation, payload: string | undefined, contentType: string | undefined): boolean {
  if (!op.body || payload === undefined || !isJson(contentType)) return false
  let parsed: unknown
  try {
    parsed = JSON.parse(payload)
  } catch {
    return false
  }
  return !validatorOf(op.body)(parsed)
}

/** One thing a generated request does differently from a valid one. */
type Change =
  | { kind: 'path'; name: string; text: string }
  | { kind: 'query'; name: string; text: string | typeof ABSENT }
  | { kind: 'query-extra'; text: string }
  | { kind: 'header'; name: string; text: string }
  | { kind: 'body'; at: string; value: unknown }
  | { kind: 'twist'; twists: Twist[] }
  | { kind: 'raw-body'; text: string | undefined }
  | { kind: 'content-type'; text: string }
  | { kind: 'auth'; auth: AuthKind }

interface Shape { path: Record<string, string>; query: [string, string][]; headers: Record<string, string>; body: unknown }

/**
 * What can be wrong with a request to `op`, each a generator of one such change: every path,
 * query and header parameter (beyond its bounds, odd escapes, hostile text, missing), every body
 * field at any depth (beyond its bounds, wrong types, hostile text, missing), the body as a whole
 * (unknown and duplicate keys, deep nesting, not an object, malformed, too large, absent, another
 * content type), a body on a route that takes none (GET bodies alike), and the token.
 */
function changesOf(op: Operation, o: ValueOptions): { any: fc.Arbitrary<Change>[]; edges: fc.Arbitrary<Change>[] } {
  const params = (where: Param['in']) => op.params.filter((p) => p.in === where)
  const any: fc.Arbitrary<Change>[] = []
  const edges: fc.Arbitrary<Change>[] = []
  for (const p of params('path')) {
    const at = (text: string): Change => ({ kind: 'path', name: p.name, text })
    any.push(fc.oneof(queryFaultOf(p.schema), fc.constantFrom(...ODD_URL_TEXT)).map(at))
    edges.push(...edgeTextOf(p.schema).map((t) => fc.constant(at(t))))
  }
  for (const p of params('query')) {
    const at = (text: string | typeof ABSENT): Change => ({ kind: 'query', name: p.name, text })
    any.push((p.required ? fc.oneof(queryFaultOf(p.schema), fc.constant(ABSENT)) : queryFaultOf(p.schema)).map(at))
    edges.push(...edgeTextOf(p.schema).map((t) => fc.constant(at(t))))
  }
  any.push(fc.oneof(
    fc.tuple(fc.constantFrom(...UNKNOWN_QUERY, ...params('query').map((p) => p.name)), queryFaultOf({ type: 'string' })).map(([k, v]) => `${k}=${v}`),
    fc.constantFrom(...ODD_QUERY),
  ).map((text) => ({ kind: 'query-extra', text })))
  for (const p of params('header')) any.push(fc.constantFrom(...ODD_IDEMPOTENCY_KEYS).map((text) => ({ kind: 'header', name: p.name, text })))
  if (op.body) {
    for (const f of faultsOf(op.body, o)) {
      const at = (value: unknown): Change => ({ kind: 'body', at: f.at, value })
      any.push(f.value.map(at))
      edges.push(...f.edges.map((e) => e.map(at)))
    }
    any.push(fc.array(twist(), { minLength: 1, maxLength: 2 }).map((twists) => ({ kind: 'twist', twists })))
    any.push(fc.oneof(fc.constantFrom(...ODD_BODIES), fc.constant(undefined)).map((text) => ({ kind: 'raw-body', text })))
    any.push(fc.constantFrom(...CONTENT_TYPES).map((text) => ({ kind: 'content-type', text })))
  } else {
    // The avatar search reads criteria from a GET body; every other route must ignore one.
    const criteria: Schema = { type: 'object', properties: Object.fromEntries(params('query').map((p) => [p.name, p.schema])) }
    const faults = faultsOf(criteria, o)
    const body = (v: unknown): Change => ({ kind: 'raw-body', text: toJson(v) })
    any.push(fc.oneof(validValue(criteria, o), ...faults.map((f) => f.value)).map(body))
    any.push(fc.oneof(fc.constantFrom(...ODD_BODIES), fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v))).map((text) => ({ kind: 'raw-body', text })))
    if (op.method === 'GET') edges.push(...faults.flatMap((f) => f.edges).map((e) => e.map(body)))
  }
  any.push(fc.constantFrom<AuthKind>('none', 'garbage', 'other player').map((auth) => ({ kind: 'auth', auth })))
  return { any, edges }
}

/** A valid request to `op`: real ids in the path, every required and some optional fields. */
function shapeOf(w: FuzzWorld, op: Operation, o: ValueOptions): fc.Arbitrary<Shape> {
  const params = (where: Param['in']) => op.params.filter((p) => p.in === where)
  const path = fc.tuple(...params('path').map((p) => {
    const known = w.pathValues(op, p.name).map(encodeText)
    return fc.tuple(fc.constant(p.name), known.length
      ? fc.oneof({ weight: 9, arbitrary: fc.constantFrom(...known) }, { weight: 1, arbitrary: queryTextOf(p.schema, o, p.name) })
      : queryTextOf(p.schema, o, p.name))
  })).map((pairs) => Object.fromEntries(pairs))
  const query = fc.tuple(...params('query').map((p) => fc.tuple(
    fc.constant(p.name),
    p.required ? fc.constant(true) : fc.boolean(),
    queryTextOf(p.schema, o, p.name),
  ))).map((pairs) => pairs.filter(([, present]) => present).map(([k, , v]): [string, string] => [k, v]))
  const headers = fc.tuple(...params('header').map((p) => fc.tuple(fc.constant(p.name), fc.option(fc.uuid(), { freq: 2 }))))
    .map((pairs) => Object.fromEntries(pairs.filter(([, v]) => v !== null)) as Record<string, string>)
  const body = op.body ? validValue(op.body, o) : fc.constant(ABSENT)
  return fc.record({ path, query, headers, body })
}

/** A request built from a valid shape with the changes applied. */
function assemble(w: FuzzWorld, op: Operation, shape: Shape, changes: Change[]): FuzzRequest {
  const path = { ...shape.path }
  let query = [...shape.query.map(([k, v]) => `${k}=${v}`)]
  const headers: Record<string, string> = { ...shape.headers }
  let body = shape.body
  let payload: string | undefined
  let raw = false
  let contentType = 'application/json'
  let auth: AuthKind = 'player'
  for (const c of changes) {
    if (c.kind === 'path') path[c.name] = c.text
    else if (c.kind === 'query') query = [...query.filter((q) => !q.startsWith(`${c.name}=`)), ...(c.text === ABSENT ? [] : [`${c.name}=${c.text}`])]
    else if (c.kind === 'query-extra') query.push(c.text)
    else if (c.kind === 'header') headers[c.name] = c.text
    else if (c.kind === 'body') body = c.value
    else if (c.kind === 'twist') body = applyTwists(body, c.twists)
    else if (c.kind === 'raw-body') [raw, payload] = [true, c.text]
    else if (c.kind === 'content-type') contentType = c.text
    else auth = c.auth
  }
  if (!raw) payload = body === ABSENT ? undefined : toJson(body)
  // A well-formed login with wrong credentials counts against the client's address (and, on a
  // shared split cluster, against later suites): well-formed logins use the real ones.
  if (op.key === 'POST /auth/login' && payload !== undefined && isJson(contentType) && isObject(payload) && !documentedInvalid(op, payload, contentType)) {
    payload = JSON.stringify({ email: w.a.email, password: w.a.password })
  }
  if (payload !== undefined && contentType !== '') headers['content-type'] = contentType
  const url = op.path.replace(/\{([^}]+)\}/g, (_, name: string) => path[name] ?? '')
  const req: FuzzRequest = {
    method: op.method, url: query.length ? `${url}?${query.join('&')}` : url, auth, headers,
    ...(payload !== undefined ? { payload } : {}), documentedInvalid: documentedInvalid(op, payload, contentType),
  }
  return Object.assign(req, { [fc.toStringMethod]: () => describeRequest(req) })
}

/**
 * Requests to `op`: mostly one change to a valid request, now and then none (valid, awkward
 * values and all) or several. `examples` come first, whatever the run's count: one request for
 * each possible change, and one for each edge value of each parameter and field.
 */
export function requestsOf(w: FuzzWorld, op: Operation, o: ValueOptions, seed: number): { arbitrary: fc.Arbitrary<FuzzRequest>; examples: [FuzzRequest][] } {
  const { any, edges } = changesOf(op, o)
  const shape = shapeOf(w, op, o)
  const arbitrary = fc.tuple(shape, fc.oneof(
    { weight: 1, arbitrary: fc.constant([] as Change[]) },
    { weight: 6, arbitrary: fc.oneof(...any).map((c) => [c]) },
    { weight: 1, arbitrary: fc.array(fc.oneof(...any), { minLength: 2, maxLength: 3 }) },
  )).map(([sh, cs]) => assemble(w, op, sh, cs))
  const examples = [...any, ...edges].map((change, i) => {
    const [sh, c] = fc.sample(fc.tuple(shape, change), { numRuns: 1, seed: seed + i })[0]!
    return [assemble(w, op, sh, [c])] as [FuzzRequest]
  })
  return { arbitrary, examples }
}

function isObject(text: string): boolean {
  try {
    const v = JSON.parse(text)
    return v !== null && typeof v === 'object' && !Array.isArray(v)
  } catch {
    return false
  }
}

const describeRequest = (r: FuzzRequest) =>
  `${r.method} ${clip(r.url)} auth=${r.auth} headers=${JSON.stringify(r.headers)}${r.payload !== undefined ? ` body=${clip(JSON.stringify(r.payload))}` : ''}`

export type Response = Awaited<ReturnType<TestApp['inject']>>

/** Sends the request as the world's players: `a`, or `b` for another player's token. */
export async function send(w: FuzzWorld, op: Operation, r: FuzzRequest): Promise<Response> {
  const headers = { ...r.headers }
  if (r.auth === 'garbage') headers.authorization = 'Bearer x.y.z'
  else if (r.auth === 'other player') headers.authorization = w.b.auth.authorization
  // Logging out revokes the access token it came with: each logout gets a token of its own.
  else if (r.auth === 'player') headers.authorization = op.key === 'POST /auth/logout' ? `Bearer ${await w.app.issueToken(w.a.userId, 'player')}` : w.a.auth.authorization
  return w.app.inject({ method: r.method as 'GET', url: r.url, headers, ...(r.payload !== undefined ? { payload: r.payload } : {}) })
}
